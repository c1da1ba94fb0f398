/**
 * The term dictionary: dense integer ids for term keys (rdf/terms.ts). Append-only, so an id
 * never changes meaning; a Db snapshot can share the dictionary with newer snapshots.
 *
 * Ids below `base.size` live in persisted pages (dict-page.ts, docs/dictionary.md), fetched on
 * demand and kept while in use (the grace window) and in the shared decoded-object cache
 * (--leaf-cache-bytes); only the page filters (2 bytes per term) stay resident. Terms added since
 * the last index are the in-memory delta, folded into pages by the indexer. Lookups are
 * synchronous over what is resident; the async `ensureIds` / `resolveKeys` load what a scan
 * batch or a set of keys needs, and a lookup that needs an absent page throws DictMiss (callers
 * resolve it and retry). Decoded terms are kept in a bounded set-associative cache
 * (--term-cache-bytes, term-cache.ts).
 */
import { LedgraphError, internalError } from '../errors.js';
import { keyKind, keyToTerm, termKey, type Term } from '../rdf/terms.js';
import { decodeDictPage, decodeFilterGroup, FILTER_WORDS, FILTERS_PER_GROUP, keyHashes, PAGE_IDS, PAGE_SHIFT } from './dict-page.js';
import { fingerprint, HeldPages, HoldBound, pageBytes, pageFingerprints, type Page } from './dict-held.js';
import { SlicedFilters } from './dict-slices.js';
import { TermCache } from './term-cache.js';
import { inParallel } from '../util/in-parallel.js';

/** Estimated bytes of one term cache slot: the decoded Term object, its value string, the slot. */
export const TERM_SLOT_BYTES = 128;
/** Default budget of the decoded-term cache of one dictionary. */
export const DEFAULT_TERM_CACHE_BYTES = 12 * 1024 * 1024;
/** Estimated bytes a dictionary entry costs besides its key's characters (map entry, array slot, string header). */
export const DICT_ENTRY_OVERHEAD_BYTES = 64;
/** A page used within this window is kept by the dictionary itself, whatever the shared cache evicts. */
export const DICT_PAGE_GRACE_MS = 30_000;
/** Pages used this recently are held even past the byte bound (their ids are about to be read synchronously). */
export const DICT_PAGE_BUSY_MS = 2_000;
/** The bound on pages held for the grace window by a dictionary without a shared cache. */
export const DEFAULT_DICT_HOLD_BYTES = 32 * 1024 * 1024;

/** The persisted dictionary of an index root (new format: `pages` and `filters`; old: `chunks`). */
export interface DictRootJson { size: number; chunks: string[]; pages?: string[]; filters?: string[] }

/** Where pages come from: the ledger's content store (by CID string). */
export interface DictSource { get(cid: string): Promise<Uint8Array> }
/** The shared, budgeted cache of decoded objects (LeafCache). */
export interface DictObjectCache {
  getObject(key: string): unknown;
  setObject(key: string, value: object, bytes: number): void;
  /** The bound on the pages dictionaries hold for their grace window (a share of the cache's budget). */
  readonly holdBound?: HoldBound;
}

/** Counts of key → id lookups that went to the pages (the filters' false positives, measured). */
export interface DictProbeStats {
  /** Lookups of keys not in the pages. */
  absent: number;
  /** Candidate pages the Bloom filters named for them (false positives). */
  candidates: number;
  /** Of those, the pages whose fingerprints matched too, or were unknown: the page had to be read. */
  pagesRead: number;
}

/** A lookup that needs a page not loaded: resolve `key` or `id` on `dict`, then retry. */
export class DictMiss extends LedgraphError {
  constructor(readonly dict: TermDict, readonly key: string | undefined, readonly id: number | undefined) {
    super(503, 'err:db/Unavailable', 'a dictionary page needed by this request is not loaded; retry', { headers: { 'Retry-After': '1' } });
  }
  /** Load what the failed lookup needed (a lookup that misses again after that is a bug, not a retry). */
  async resolve(): Promise<void> {
    if (this.key !== undefined) {
      await this.dict.resolveKeys([this.key]);
      try { this.dict.idOfKey(this.key); } catch (e) { if (isDictMiss(e) && e.key === this.key) throw internalError(`dictionary lookup of ${JSON.stringify(this.key.slice(0, 200))} still misses after loading its pages`); }
    } else {
      await this.dict.ensureIds([[this.id!]], 1);
      try { this.dict.key(this.id!); } catch (e) { if (isDictMiss(e)) throw internalError(`dictionary id ${this.id} still misses after loading its page`); }
    }
  }
}

/** True when `e` is a dictionary miss. */
export function isDictMiss(e: unknown): e is DictMiss { return e instanceof DictMiss; }

/**
 * Run `fn`, loading what a dictionary miss asks for and running it again (each retry loads at
 * least one more page, so this ends). For pure, synchronous-per-attempt steps such as planning.
 */
export async function withDictRetry<T>(fn: () => T | Promise<T>, undo?: () => void): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (!isDictMiss(e) || attempt > 10_000) throw e;
      undo?.();
      await e.resolve();
    }
  }
}

/** Base pages read at once by baseKeyIds (each a file read and an inflate). */
const BASE_READS = 8;
/** Most keys (and their characters) remembered as absent from the base pages. */
const ABSENT_KEYS = 16_384;
const ABSENT_CHARS = 4 * 1024 * 1024;
/** Most page lookups remembered (≈ 100 bytes each). */
const HIT_KEYS = 16_384;
/** Bytes charged for a fingerprint entry of the shared cache besides its array (object, map entry, key). */
const FP_ENTRY_BYTES = 192;
/** The shared-cache key of a page's fingerprints. */
const fpKey = (cid: string): string => 'fp:' + cid;

/**
 * A flat copy of a key. Keys arrive concatenated (termKey) or sliced out of a parsed document, and
 * V8 keeps such a string as a rope or a view that holds its parts or its whole parent alive; the
 * dictionary keeps delta keys until the next index, so it stores a flat copy (once per new term).
 */
export function flatKey(key: string): string {
  return JSON.parse(JSON.stringify(key)) as string;
}

export class TermDict {
  /** First id of the in-memory delta: ids below it are in base pages. */
  private from = 0;
  private readonly ids = new Map<string, number>();
  /** Keys kept resident whatever page holds them (pin), and those found so far. */
  private readonly wanted = new Set<string>();
  private readonly pinned = new Map<string, number>();
  /** Recent key → id answers from pages (at most HIT_KEYS). */
  private hits = new Map<string, number>();
  /** The previous generation of `hits`: an answer survives at least HIT_KEYS newer ones (a commit's resolved keys until its apply). */
  private oldHits = new Map<string, number>();
  /** Keys found absent from the base pages (valid until the base changes; bounded): the synchronous intern after resolveKeys skips the probes. */
  private absent = new Set<string>();
  private absentChars = 0;
  private keys: string[] = [];
  /** Characters of every delta key (for the memory estimate). */
  private keyChars = 0;
  private base: { size: number; pages: string[]; filters: string[] } | null = null;
  private src: DictSource | null = null;
  private shared: DictObjectCache | null = null;
  /** Pages used within the grace window, by page number (bounded in bytes with the other dictionaries of the cache). */
  private readonly recent = new HeldPages(new HoldBound(DEFAULT_DICT_HOLD_BYTES));
  /**
   * Fingerprints of the keys of each base page seen so far (dict-held.ts): 4 bytes per key. With a
   * shared cache they live in it (under `fp:<page cid>`, charged their bytes), so they share its
   * budget and are evicted like pages; a candidate page whose fingerprints were evicted is read
   * again to reject a key. Without one (a dictionary of its own), here by page number.
   */
  private fps: (Int32Array | undefined)[] = [];
  private fpBytes = 0;
  /**
   * Fingerprints learned while resolveKeys runs (by page CID), kept until it ends: the shared cache
   * may evict them while the call reads more pages, and its answers are decided with them.
   */
  private callFps: Map<string, Int32Array> | null = null;
  /** Fingerprints of the keys the running resolveKeys looks for: a page read for its fingerprints that holds one is cached after all. */
  private callWant: Set<number> | null = null;
  private resolving = 0;
  /** Key → id lookups that reached the pages (measurement). */
  readonly probes: DictProbeStats = { absent: 0, candidates: 0, pagesRead: 0 };
  private readonly loading = new Map<number, Promise<Page>>();
  /** The base pages' filters, bit-sliced; valid for the pages of groups where `filterLoaded[group]`. */
  private slices = new SlicedFilters();
  private filterLoaded: boolean[] = [];
  private filtersLoading: Promise<void> | null = null;
  private clock = Date.now();
  private lastSweep = 0;
  private readonly h = new Uint32Array(2);
  /** Decoded terms by id (bounded by `termCacheBytes`). */
  private readonly termCache: TermCache;

  /** `termCacheBytes` bounds the decoded-term cache (at least 16 slots). */
  constructor(termCacheBytes = DEFAULT_TERM_CACHE_BYTES, readonly graceMs = DICT_PAGE_GRACE_MS) {
    // Up to two thirds of the budget for the terms' slots, the rest for texts derived from them (the
    // SPARQL JSON writer's fragments, termText), counted in characters. At the 12 MiB default that
    // is 65,536 slots: fewer made the churned ledger's 40,000-term range read miss on every pass.
    let slots = 16;
    while (slots * 2 * TERM_SLOT_BYTES * 3 <= termCacheBytes * 2) slots *= 2;
    this.termCache = new TermCache(slots, Math.max(0, termCacheBytes - slots * TERM_SLOT_BYTES));
  }

  /** Number of ids assigned. */
  get size(): number { return this.from + this.keys.length; }
  /** First id not in base pages (the delta starts here). */
  get baseSize(): number { return this.from; }

  /** Page filters (and fingerprints) just written for a root of `size` terms (writeDictPages), for attachBase to reuse. */
  private freshFilters: { size: number; filters: ReadonlyMap<number, Uint32Array>; fps?: ReadonlyMap<number, Int32Array> } | null = null;

  /** Remember the filters and fingerprints of the pages written for a root of `size` terms (used once, by attachBase). */
  noteWrittenFilters(size: number, filters: ReadonlyMap<number, Uint32Array>, fps?: ReadonlyMap<number, Int32Array>): void {
    this.freshFilters = { size, filters, ...(fps ? { fps } : {}) };
  }

  /**
   * Serve ids below `root.size` from the pages of a new-format root (opening a ledger, or after
   * an index job wrote them). Delta keys now in pages move to the page cache; filters already
   * loaded are extended with them, exactly as the indexer built the persisted ones.
   */
  attachBase(root: DictRootJson, src: DictSource, shared: DictObjectCache | null): void {
    if (!root.pages || !root.filters) return; // an old-format root: its keys are all in the delta
    // Keys absent from the old base may be in the new one (the delta folded into pages).
    this.absent.clear();
    this.absentChars = 0;
    this.src = src;
    this.shared = shared;
    if (shared) { this.fps = []; this.fpBytes = 0; } // fingerprints live in the shared cache from now on
    if (shared?.holdBound) this.recent.useBound(shared.holdBound);
    const S = root.size, pages = root.pages.length;
    if (this.size === 0) {
      // Opening: nothing in memory yet, every id is in pages.
      this.from = S;
      this.base = { size: S, pages: root.pages, filters: root.filters };
      this.slices = new SlicedFilters();
      this.slices.resize(pages);
      this.filterLoaded = root.filters.map(() => false);
      this.fps = [];
      this.fpBytes = 0;
      return;
    }
    if (S < this.from || S > this.size) throw internalError(`dictionary root of ${S} terms does not fit a dictionary of ${this.size}`);
    const oldFrom = this.from;
    this.slices.resize(pages);
    // A group's filter is known when it was loaded, or when all its keys come from the delta.
    const hadBase = this.base !== null;
    this.filterLoaded = root.filters.map((_, g) => (g * FILTERS_PER_GROUP) << PAGE_SHIFT >= oldFrom || (hadBase && this.filterLoaded[g] === true));
    // The filters writeDictPages just built for these pages, when it built them for this root:
    // OR them in rather than hashing every new key a second time.
    const fresh = this.freshFilters?.size === S ? this.freshFilters.filters : null;
    const freshFps = this.freshFilters?.size === S ? this.freshFilters.fps : undefined;
    this.freshFilters = null;
    const firstK = oldFrom >>> PAGE_SHIFT, endK = S > oldFrom ? ((S - 1) >>> PAGE_SHIFT) + 1 : firstK;
    let covered = fresh !== null;
    for (let k = firstK; covered && k < endK; k++) if (!fresh!.has(k)) covered = false;
    if (covered) {
      for (let k = firstK; k < endK; k++) if (this.filterLoaded[(k / FILTERS_PER_GROUP) | 0]) this.slices.setPage(k, fresh!.get(k)!, 0);
    } else {
      for (let id = oldFrom; id < S; id++) {
        const k = id >>> PAGE_SHIFT;
        if (!this.filterLoaded[(k / FILTERS_PER_GROUP) | 0]) continue;
        keyHashes(this.keys[id - oldFrom]!, this.h);
        this.slices.add(k, this.h);
      }
    }
    // Pages that now hold delta keys: extend or create them from the delta.
    for (let k = oldFrom >>> PAGE_SHIFT; k < pages && k << PAGE_SHIFT < S; k++) {
      const start = k << PAGE_SHIFT, end = Math.min(S, start + PAGE_IDS);
      let keys: string[] | null = null;
      if (start >= oldFrom) keys = this.keys.slice(start - oldFrom, end - oldFrom);
      else {
        const have = this.recent.get(k);
        if (have && start + have.keys.length === oldFrom) keys = have.keys.concat(this.keys.slice(0, end - oldFrom));
      }
      if (!keys) { this.recent.delete(k); this.setFps(k, undefined, root.pages[k]); continue; }
      const page: Page = { keys, used: this.clock, cid: root.pages[k]!, bytes: pageBytes(keys) };
      this.recent.set(k, page);
      const fps = freshFps?.get(k);
      this.setFps(k, fps?.length === keys.length ? fps : pageFingerprints(keys), page.cid);
      this.shared?.setObject(page.cid, page, page.bytes);
    }
    // A large delta (a bulk load) just made many pages at once: keep the held ones within their
    // bound now (none is in a lookup), not at the next lookup's sweep, which may never come.
    this.recent.sweep(this.clock - this.graceMs, this.clock + 1);
    const all = S - oldFrom === this.keys.length; // every delta key is in pages now (a bulk load, an index job with no writes since)
    for (let i = 0; i < S - oldFrom; i++) {
      if (this.wanted.size > 0 && this.wanted.has(this.keys[i]!)) this.pinned.set(this.keys[i]!, oldFrom + i);
      if (!all) {
        this.ids.delete(this.keys[i]!);
        this.keyChars -= this.keys[i]!.length;
      }
    }
    if (all) {
      // One clear instead of a million deletes.
      this.ids.clear();
      this.keyChars = 0;
    }
    this.keys = this.keys.slice(S - oldFrom);
    this.from = S;
    this.base = { size: S, pages: root.pages, filters: root.filters };
  }

  private filtersReady(): boolean {
    for (const l of this.filterLoaded) if (!l) return false;
    return true;
  }

  /** Estimated bytes held: delta, filters (grow with terms) and fingerprints when there is no shared cache, pages in use (bounded), the term cache (bounded). */
  memory(): { dictBytes: number; dictPageBytes: number; termCacheBytes: number; termCacheLimitBytes: number } {
    return {
      dictBytes: this.keyChars + this.keys.length * DICT_ENTRY_OVERHEAD_BYTES + this.slices.byteLength + this.fpBytes + (this.hits.size + this.oldHits.size) * 100 + this.absent.size * 64 + this.absentChars,
      dictPageBytes: this.recent.bytes,
      termCacheBytes: this.termCache.slots * TERM_SLOT_BYTES + this.termCache.textLength,
      termCacheLimitBytes: this.termCache.maxSlots * TERM_SLOT_BYTES + this.termCache.maxTextChars,
    };
  }

  /** A resident page, held for the grace window from now (its ids are about to be used), or undefined. */
  private page(k: number): Page | undefined {
    let p = this.recent.get(k);
    if (p === undefined) {
      p = this.peek(k);
      if (p === undefined) return undefined;
      this.recent.set(k, p);
    }
    p.used = this.clock;
    return p;
  }

  /** A resident page without holding it (held, or in the shared cache), or undefined. */
  private peek(k: number): Page | undefined {
    const p = this.recent.get(k);
    if (p !== undefined) return p;
    const cid = this.base?.pages[k];
    return cid !== undefined ? this.shared?.getObject(cid) as Page | undefined : undefined;
  }

  private setFps(k: number, f: Int32Array | undefined, cid = this.base?.pages[k]): void {
    if (this.shared) {
      // Under the page's CID: a page rewritten by a newer root has a new one, so nothing goes stale.
      if (f && cid !== undefined) {
        this.shared.setObject(fpKey(cid), { fps: f }, f.byteLength + FP_ENTRY_BYTES);
        this.callFps?.set(cid, f);
      }
      return;
    }
    this.fpBytes += (f?.byteLength ?? 0) - (this.fps[k]?.byteLength ?? 0);
    this.fps[k] = f;
  }

  /** Page k's fingerprints if known (in the shared cache, or here). */
  private knownFps(k: number): Int32Array | undefined {
    if (!this.shared) return this.fps[k];
    const cid = this.base?.pages[k];
    if (cid === undefined) return undefined;
    return this.callFps?.get(cid) ?? (this.shared.getObject(fpKey(cid)) as { fps: Int32Array } | undefined)?.fps;
  }

  /** Page k's fingerprints, taken from the page when not known yet (undefined: unknown and the page is not resident). */
  private fpsOf(k: number): Int32Array | undefined {
    let f = this.knownFps(k);
    if (f === undefined) {
      const p = this.peek(k);
      if (p === undefined) return undefined;
      f = pageFingerprints(p.keys);
      this.setFps(k, f);
    }
    return f;
  }

  /** Id of a key, or undefined when the term was never seen (DictMiss when a candidate page is not loaded). */
  idOfKey(key: string): number | undefined { return this.ownIdOfKey(key); }

  private ownIdOfKey(key: string): number | undefined {
    const id = this.ids.get(key);
    if (id !== undefined || this.from === 0) return id;
    const pinned = this.pinned.get(key) ?? this.hits.get(key) ?? this.oldHits.get(key);
    if (pinned !== undefined) return pinned;
    if (this.absent.has(key)) return undefined;
    const found = this.baseId(key);
    if (found === -2) throw new DictMiss(this, key, undefined);
    if (found >= 0) return found;
    // Remembered, so staging's lookup spares resolveKeys and the apply after it the probes.
    if (this.absent.size >= ABSENT_KEYS || this.absentChars > ABSENT_CHARS) { this.absent.clear(); this.absentChars = 0; }
    this.noteAbsent(key);
    return undefined;
  }

  private noteAbsent(key: string): void {
    this.absent.add(key);
    this.absentChars += key.length;
  }

  /**
   * A base id, -1 when absent, -2 when a filter or candidate page is not loaded. A candidate page
   * is read only when its fingerprints hold the key's (or are not known yet), and held only when
   * it holds the key: rejecting a key holds nothing (the shared cache's budget decides).
   */
  private baseId(key: string): number {
    if (!this.filtersReady()) return -2;
    keyHashes(key, this.h);
    const fp = fingerprint(this.h);
    let missing = false, found = -1, candidates = 0, read = 0;
    this.slices.candidates(this.h, this.base!.pages.length, (k) => {
      candidates++;
      const f = this.fpsOf(k);
      if (f === undefined) { missing = true; return false; }
      let i = f.indexOf(fp);
      if (i < 0) return false;
      read++;
      const p = this.peek(k);
      if (!p) { missing = true; return false; }
      for (; i >= 0; i = f.indexOf(fp, i + 1)) {
        if (p.keys[i] !== key) continue;
        this.page(k);
        found = (k << PAGE_SHIFT) + i;
        return true;
      }
      return false;
    });
    if (found < 0 && !missing) {
      this.probes.absent++;
      this.probes.candidates += candidates;
      this.probes.pagesRead += read;
    }
    if (found >= 0) {
      // Keys found in pages are remembered (bounded): the page's key map may be dropped with the page.
      if (this.hits.size >= HIT_KEYS) { this.oldHits = this.hits; this.hits = new Map(); }
      this.hits.set(key, found);
      return found;
    }
    return missing ? -2 : -1;
  }

  /** Id of a term, or undefined. */
  idOf(term: Term): number | undefined { return this.idOfKey(termKey(term)); }

  /** Id of a key: synchronous when the pages it needs are resident, else a promise that loads them. */
  idOfKeySoon(key: string): number | undefined | Promise<number | undefined> {
    try {
      return this.idOfKey(key);
    } catch (e) {
      if (isDictMiss(e)) return this.lookupKey(key);
      throw e;
    }
  }

  /** Pin keys from the moment they are folded into pages (a new dictionary: nothing to load). */
  want(keys: readonly string[]): void { for (const k of keys) this.wanted.add(k); }

  /**
   * Keep the ids of a few keys the engine looks up synchronously on every commit (rdf:type for
   * class statistics) in memory for good, whichever page holds them.
   */
  async pin(keys: readonly string[]): Promise<void> {
    this.want(keys);
    for (const k of keys) {
      const id = await this.lookupKey(k);
      if (id !== undefined && id < this.from) this.pinned.set(k, id);
    }
  }

  /** Id of a term, loading the pages the lookup needs (async callers). */
  async lookup(term: Term): Promise<number | undefined> { return this.lookupKey(termKey(term)); }

  /** Id of a key, loading the pages the lookup needs (async callers). */
  async lookupKey(key: string): Promise<number | undefined> {
    for (;;) {
      try {
        return this.idOfKey(key);
      } catch (e) {
        if (!isDictMiss(e)) throw e;
        await e.resolve();
      }
    }
  }

  /** Id of a key, assigning the next id when new. */
  internKey(key: string): number {
    return this.ownIdOfKey(key) ?? this.appendKey(flatKey(key));
  }
  /**
   * Id for a key idOfKey has just answered undefined for (not a DictMiss), with nothing interned
   * since: the next id, without probing the delta, the caches and the base pages again. `flat`:
   * the key is already a flat string sharing no larger one (stored as it is, like internFlatKey).
   */
  internAbsentKey(key: string, flat = false): number {
    return this.appendKey(flat ? key : flatKey(key));
  }
  /** Assign the next id to a key known to be new; `key` is stored as given (a flat copy). */
  private appendKey(key: string): number {
    const id = this.size;
    this.keys.push(key);
    this.ids.set(key, id);
    this.keyChars += key.length;
    return id;
  }
  /**
   * Id of a key, assigning the next id when new, storing the key as given: for callers whose keys
   * are already flat copies that share no larger string (bulk-batches.ts), so no second copy is made.
   */
  internFlatKey(key: string): number {
    return this.ownIdOfKey(key) ?? this.appendKey(key);
  }
  /**
   * internFlatKey for a caller that holds the id of every base key (`base`, built from keysOf):
   * a key not in it is new or in the delta, so no filter, fingerprint or page is probed. A bulk
   * load into a ledger with data interns each distinct key of its input this way.
   */
  internFlatKeyOver(base: ReadonlyMap<string, number>, key: string): number {
    return base.get(key) ?? this.ids.get(key) ?? this.appendKey(key);
  }
  /** Id of a term, assigning when new. */
  intern(term: Term): number { return this.internKey(termKey(term)); }

  /** Key of an id (DictMiss when its page is not loaded). */
  key(id: number): string {
    if (id >= this.from) {
      const k = this.keys[id - this.from];
      if (k === undefined) throw new RangeError('unknown term id ' + id);
      return k;
    }
    if (id < 0) throw new RangeError('unknown term id ' + id);
    const p = this.page(id >>> PAGE_SHIFT);
    if (!p) throw new DictMiss(this, undefined, id);
    return p.keys[id & (PAGE_IDS - 1)]!;
  }
  /** Term of an id (decoded, then kept in the term cache). */
  term(id: number): Term {
    const hit = this.termCache.get(id, this.size);
    if (hit !== undefined) return hit;
    const t = keyToTerm(this.key(id));
    this.termCache.put(id, t);
    return t;
  }
  /**
   * A text derived from the term of `id` by `derive`, cached beside the decoded term (one
   * derivation per dictionary: the first function asked for is cached, any other is computed
   * every time). The SPARQL JSON writer keeps each term's fragment here.
   */
  termText(id: number, derive: (t: Term) => string): string {
    if (this.deriver !== derive) {
      if (this.deriver !== null) return derive(this.term(id));
      this.deriver = derive;
    }
    const hit = this.termCache.text(id);
    if (hit !== undefined) return hit;
    const text = derive(this.term(id));
    this.termCache.putText(id, text);
    return text;
  }
  private deriver: ((t: Term) => string) | null = null;
  /**
   * The identity of what ids mean in this dictionary, for caches outside it keyed by id (JSON-LD
   * result cells): replaced when `truncate` frees ids that may later name other terms.
   */
  get space(): object { return this.idSpace; }
  private idSpace: object = {};
  /** 0 IRI, 1 blank node, 2 literal. */
  kind(id: number): 0 | 1 | 2 { return keyKind(this.key(id)); }

  /** True when every id of the columns (first n rows) has its key in memory. */
  resident(cols: readonly ArrayLike<number>[], n: number): boolean {
    return this.from === 0 || this.missingPages(cols, n, true) === null;
  }

  /** Load the pages of every id of the columns (first n rows), so key/term/kind answer synchronously. */
  async ensureIds(cols: readonly ArrayLike<number>[], n: number): Promise<void> {
    if (this.from === 0) return;
    this.tick();
    const missing = this.missingPages(cols, n, false);
    if (missing) await Promise.all([...missing].map((k) => this.loadPage(k, true)));
  }

  /** Pages of base ids in the columns that are not in memory (null: none; `first`: stop at one). */
  private missingPages(cols: readonly ArrayLike<number>[], n: number, first: boolean): Set<number> | null {
    const from = this.from;
    let missing: Set<number> | null = null;
    let last = -1;
    for (const c of cols) {
      for (let i = 0; i < n; i++) {
        const id = c[i]!;
        if (id >= from || id < 0) continue;
        const k = id >>> PAGE_SHIFT;
        if (k === last) continue;
        last = k;
        if (this.page(k)) continue;
        (missing ??= new Set()).add(k);
        if (first) return missing;
      }
    }
    return missing;
  }

  /** Load the filters and candidate pages of keys, so idOfKey/internKey answer synchronously. */
  async resolveKeys(keys: Iterable<string>): Promise<void> {
    if (this.from === 0) return;
    if (this.resolving++ === 0 && this.shared) { this.callFps = new Map(); this.callWant = new Set(); }
    try {
      await this.resolveKeysNow(keys);
    } finally {
      if (--this.resolving === 0) { this.callFps = null; this.callWant = null; }
    }
  }

  private async resolveKeysNow(keys: Iterable<string>): Promise<void> {
    this.tick();
    if (!this.filtersReady()) await this.loadFilters();
    const todo: string[] = [];
    for (const key of keys) if (!this.ids.has(key) && !this.pinned.has(key) && !this.hits.has(key) && !this.oldHits.has(key)) todo.push(key);
    // Pages whose fingerprints are unknown are read (not held) to learn them; then the pages whose
    // fingerprints hold a key are held for the synchronous lookup that follows.
    for (let pass = 0; todo.length > 0; pass++) {
      const hold = new Set<number>(), probe = new Set<number>();
      const pages = this.base!.pages.length;
      let fp = 0;
      const note = (k: number) => {
        const f = this.fpsOf(k);
        if (f === undefined) probe.add(k);
        else if (f.indexOf(fp) >= 0 && !this.page(k)) hold.add(k);
        return false;
      };
      for (const key of todo) {
        keyHashes(key, this.h);
        fp = fingerprint(this.h);
        this.callWant?.add(fp);
        this.slices.candidates(this.h, pages, note);
      }
      if (hold.size === 0 && probe.size === 0) break;
      // A page read only for its fingerprints is not cached: it would push out leaves and the
      // fingerprints themselves, and its keys are needed again only if a key turns out to be in it.
      await Promise.all([...[...hold].map((k) => this.loadPage(k, true)), ...[...probe].map((k) => this.fetchPage(k, false))]);
      // Learning fingerprints may name pages to hold: one more pass (more only when a newer root came meanwhile).
      if (probe.size === 0 || pass > 100) break;
    }
    // Remember the answers now (found keys as hits): the synchronous use may come after more awaits.
    // Room for this call's keys first: clearing midway would forget answers of this very call.
    if (this.absent.size + todo.length > ABSENT_KEYS || this.absentChars > ABSENT_CHARS) { this.absent.clear(); this.absentChars = 0; }
    for (const key of todo) {
      if (this.ids.has(key) || this.absent.has(key)) continue;
      if (this.baseId(key) === -1) this.noteAbsent(key);
    }
  }

  /** Keys of ids [from, to), loading their pages as needed (the indexer and peers). */
  async keysOf(from: number, to: number): Promise<string[]> {
    if (from >= this.from) return this.keys.slice(from - this.from, to - this.from);
    const out: string[] = [];
    for (let id = from; id < to;) {
      if (id >= this.from) { out.push(...this.keys.slice(id - this.from, to - this.from)); break; }
      const k = id >>> PAGE_SHIFT;
      const p = this.peek(k) ?? await this.loadPage(k, false);
      const end = Math.min(to, (k + 1) << PAGE_SHIFT, this.from);
      for (; id < end; id++) out.push(p.keys[id & (PAGE_IDS - 1)]!);
    }
    return out;
  }

  /**
   * Every base key with its id, the pages read a few at a time (and cached, as keysOf does), and
   * the filters loaded so other synchronous lookups answer: a bulk load into a ledger with data
   * interns its input against this map (internFlatKeyOver) instead of probing pages per key.
   */
  async baseKeyIds(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (this.from === 0) return out;
    const filters = this.filtersReady() ? null : this.loadFilters();
    const pages = Array.from({ length: ((this.from - 1) >>> PAGE_SHIFT) + 1 }, (_, k) => k);
    // Their fingerprints are not computed: lookups through the map need none (a probe computes them when it needs them).
    const keys = await inParallel(pages, BASE_READS, async (k) => (this.peek(k) ?? await this.fetchPage(k, true, false)).keys);
    for (let k = 0; k < keys.length; k++) {
      const page = keys[k]!, from = k << PAGE_SHIFT, n = Math.min(page.length, this.from - from);
      for (let i = 0; i < n; i++) out.set(page[i]!, from + i);
    }
    await filters;
    return out;
  }

  /** Page k's filter words (FILTER_WORDS; loaded on first need), to write its filter group again. */
  async pageFilter(k: number): Promise<Uint32Array> {
    if (!this.filtersReady()) await this.loadFilters();
    return this.slices.pageWords(k);
  }

  /** Every base page's filter, concatenated (FILTER_WORDS each; loaded on first need). */
  async filterWords(): Promise<Uint32Array> {
    const pages = this.base?.pages.length ?? 0;
    const out = new Uint32Array(pages * FILTER_WORDS);
    for (let k = 0; k < pages; k++) out.set(await this.pageFilter(k), k * FILTER_WORDS);
    return out;
  }

  private tick(): void {
    this.clock = Date.now();
    if (this.clock - this.lastSweep < 1000) return;
    this.lastSweep = this.clock;
    this.recent.sweep(this.clock - this.graceMs, this.clock - DICT_PAGE_BUSY_MS);
  }

  private loadFilters(): Promise<void> {
    if (this.filtersLoading) return this.filtersLoading;
    const base = this.base!;
    const p = (async () => {
      await Promise.all(base.filters.map(async (cid, g) => {
        if (this.filterLoaded[g]) return;
        const f = decodeFilterGroup(await this.src!.get(cid));
        if (this.base !== base) return; // a newer base came meanwhile: its own load fills it
        if (f.firstPage !== g * FILTERS_PER_GROUP) throw internalError('dictionary filter group out of place');
        for (let i = 0; i < f.count; i++) this.slices.setPage(f.firstPage + i, f.words, i * FILTER_WORDS);
        this.filterLoaded[g] = true;
      }));
    })().finally(() => { this.filtersLoading = null; });
    this.filtersLoading = p;
    return p.then(() => (this.base !== base && !this.filtersReady() ? this.loadFilters() : undefined));
  }

  /** Read page k (once, however many ask), learn its fingerprints, and hold it when `hold` (its ids are about to be used). */
  private async loadPage(k: number, hold: boolean): Promise<Page> {
    const page = await this.fetchPage(k);
    if (!hold) return page;
    const held = this.recent.get(k);
    if (held) { held.used = this.clock; return held; }
    if (this.base?.pages[k] === page.cid) { page.used = this.clock; this.recent.set(k, page); }
    return page;
  }

  /** True when a page's fingerprints hold one a running resolveKeys looks for (its page is about to be needed). */
  private holdsWantedKey(fps: Int32Array): boolean {
    const w = this.callWant;
    if (!w || w.size === 0) return false;
    for (let i = 0; i < fps.length; i++) if (w.has(fps[i]!)) return true;
    return false;
  }

  /** Read page k (once, however many ask) and learn its fingerprints (unless not `learn`); cache the decoded page when `cache` (or a running resolveKeys wants it). */
  private fetchPage(k: number, cache = true, learn = true): Promise<Page> {
    let p = this.loading.get(k);
    if (p) return p;
    p = (async () => {
      for (;;) {
        const base = this.base!;
        const cid = base.pages[k];
        if (cid === undefined) throw internalError(`dictionary page ${k} is not in the index root`);
        const bytes = await this.src!.get(cid);
        const cur = this.peek(k);
        if (cur) return cur;
        const { from, keys } = decodeDictPage(bytes);
        const want = Math.min(PAGE_IDS, this.base!.size - (k << PAGE_SHIFT));
        if (from !== k << PAGE_SHIFT) throw internalError(`dictionary page ${k} starts at id ${from}`);
        // A newer root may have rewritten this (last) page with more keys meanwhile.
        if (keys.length < want) { if (this.base !== base) continue; throw internalError(`dictionary page ${k} holds ${keys.length} keys, expected ${want}`); }
        const kept = keys.length > want ? keys.slice(0, want) : keys;
        const page: Page = { keys: kept, used: this.clock, cid, bytes: pageBytes(kept) };
        const fps = learn ? pageFingerprints(kept) : null;
        if (fps && this.base === base) this.setFps(k, fps, cid);
        if (cache || (fps && this.holdsWantedKey(fps))) this.shared?.setObject(cid, page, page.bytes);
        return page;
      }
    })().finally(() => this.loading.delete(k));
    this.loading.set(k, p);
    return p;
  }

  /** Keys from id `from` (inclusive) to `to` (exclusive) of the delta (terms not in base pages yet). */
  slice(from: number, to = this.size): string[] {
    if (from < this.from) throw internalError(`dictionary ids from ${from} are in pages: use keysOf`);
    return this.keys.slice(from - this.from, to - this.from);
  }

  /** Drop ids >= size (undo of a failed apply; only safe before anything references them). */
  truncate(size: number): void {
    if (size < this.from) throw internalError('cannot truncate the dictionary below its persisted pages');
    for (let i = this.keys.length - 1; i >= size - this.from; i--) {
      this.ids.delete(this.keys[i]!);
      this.keyChars -= this.keys[i]!.length;
    }
    if (size < this.size) this.idSpace = {};
    this.keys.length = size - this.from;
    this.termCache.dropFrom(size);
  }
}
