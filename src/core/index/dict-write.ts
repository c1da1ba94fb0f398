/**
 * Folding dictionary terms into persisted pages (docs/dictionary.md): the pages from the previous
 * root's last (partial) page on are written again with the new keys, earlier pages are shared;
 * the filter groups holding a rewritten page likewise. Ids are append-only, so an index job
 * writes O(new terms) bytes, not the dictionary.
 */
import { Codec } from '../commit/cid.js';
import type { ContentStore } from '../store.js';
import type { DictRootJson, TermDict } from './dict.js';
import { encodeDictPage, encodeFilterGroup, FILTERS_PER_GROUP, PAGE_IDS, PAGE_SHIFT } from './dict-page.js';
import { pageFilterAndFingerprints } from './dict-held.js';
import type { TimeSlice } from '../util/next-turn.js';

/**
 * The dictionary of ids [0, size) as pages on top of `prev` (the root the dictionary's base came
 * from; null or an old-format root: every page is written), pausing between pages when `pace` is used up.
 */
export async function writeDictPages(store: ContentStore, dict: TermDict, prev: DictRootJson | null, size: number, pace?: TimeSlice): Promise<DictRootJson> {
  const paged = prev?.pages !== undefined && prev.filters !== undefined;
  if (paged && prev!.size === size) return { size, chunks: [], pages: prev!.pages!, filters: prev!.filters! };
  const oldSize = paged ? prev!.size : 0;
  const pages = paged ? prev!.pages!.slice() : [];
  const groups = paged ? prev!.filters!.slice() : [];
  const firstPage = oldSize >>> PAGE_SHIFT;
  const fresh = new Map<number, Uint32Array>();
  const fps = new Map<number, Int32Array>();
  const writes: Promise<void>[] = [];
  for (let k = firstPage; k << PAGE_SHIFT < size; k++) {
    if (pace?.due()) await pace.pause();
    const start = k << PAGE_SHIFT;
    const keys = await dict.keysOf(start, Math.min(size, start + PAGE_IDS));
    // Each key hashed once for its page's filter and the fingerprints attachBase keeps.
    const f = pageFilterAndFingerprints(keys);
    fresh.set(k, f.filter);
    fps.set(k, f.fps);
    writes.push(store.put(Codec.dict, encodeDictPage(start, keys)).then((cid) => { pages[k] = cid.toString(); }));
  }
  // Filters of unchanged pages in a rewritten group come from the loaded base.
  const firstGroup = (firstPage / FILTERS_PER_GROUP) | 0;
  const lastPage = ((size - 1) >>> PAGE_SHIFT);
  for (let g = firstGroup; g * FILTERS_PER_GROUP <= lastPage; g++) {
    const filters: Uint32Array[] = [];
    for (let k = g * FILTERS_PER_GROUP; k < Math.min((g + 1) * FILTERS_PER_GROUP, lastPage + 1); k++) {
      filters.push(fresh.get(k) ?? await dict.pageFilter(k));
    }
    writes.push(store.put(Codec.dict, encodeFilterGroup(g * FILTERS_PER_GROUP, filters)).then((cid) => { groups[g] = cid.toString(); }));
  }
  await Promise.all(writes);
  dict.noteWrittenFilters(size, fresh, fps);
  return { size, chunks: [], pages, filters: groups };
}
