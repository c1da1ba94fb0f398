/**
 * Commit export pages (`GET /commits`, http-api.md §2.5 and §4.3; replication.md §6): raw commit
 * blobs newest to oldest, with their transaction blobs. Default mode walks every parent; lineage
 * mode pages the first-parent chain and lists, per merge on the page, what its other parents
 * brought in. Cursors are commit CIDs, so a page stays the same while new commits arrive.
 */
import { CID } from 'multiformats/cid';
import { commitConflict, notFound } from '../errors.js';
import type { Ledger } from '../ledger/ledger.js';
import { Codec } from './cid.js';
import { decodeEnvelope, type CommitEnvelope } from './commit-codec.js';

export const COMMITS_DEFAULT_LIMIT = 100;
export const COMMITS_MAX_LIMIT = 500;

/** One page, with raw bytes (the server base64-encodes them). */
export interface CommitPage {
  ledger: string;
  head_commit_id: string;
  head_t: number;
  commits: Uint8Array[];
  blobs: Map<string, Uint8Array>;
  missing_blobs: string[];
  newest_t: number | null;
  oldest_t: number | null;
  next_cursor_id: string | null;
  count: number;
  effective_limit: number;
  lineage?: true;
  merged_commits?: Uint8Array[];
}

export interface PageOptions {
  limit: number;
  cursor?: string | undefined;
  lineage?: boolean;
  /** Lineage mode: the client's head; the export stops above it. */
  base?: string | undefined;
}

interface Loaded { id: string; bytes: Uint8Array; env: CommitEnvelope }

async function load(ledger: Ledger, id: string): Promise<Loaded> {
  const bytes = await ledger.store.get(CID.parse(id));
  return { id, bytes, env: decodeEnvelope(bytes) };
}

/** A page of the ledger's commits at its current head. */
export async function commitPage(ledger: Ledger, opts: PageOptions): Promise<CommitPage> {
  const limit = Math.max(1, Math.min(COMMITS_MAX_LIMIT, opts.limit));
  const head = ledger.head;
  const chain = await ledger.chainEntries();
  const onChain = (id: string): number => {
    const e = chain.find((x) => x?.cid === id);
    return e ? e.t : -1;
  };
  const page: CommitPage = {
    ledger: ledger.id, head_commit_id: head.cid, head_t: head.t, commits: [], blobs: new Map(), missing_blobs: [],
    newest_t: null, oldest_t: null, next_cursor_id: null, count: 0, effective_limit: limit,
  };
  let start = head.t;
  if (opts.cursor) {
    let c: CID;
    try { c = CID.parse(opts.cursor); } catch { throw notFound(`cursor ${opts.cursor} is not a commit of ${ledger.id}`); }
    if (c.code !== Codec.commit) throw notFound(`cursor ${opts.cursor} is not a commit of ${ledger.id}`);
    start = onChain(opts.cursor);
    if (start < 0 && !opts.lineage) {
      // Default mode may hand out a cursor off the first-parent chain (inside merged history).
      return defaultWalk(ledger, page, opts.cursor, limit);
    }
    if (start < 0) throw notFound(`cursor ${opts.cursor} is not on the first-parent chain of ${ledger.id}`);
  }
  if (!opts.lineage) return defaultWalk(ledger, page, chain[start]!.cid, limit);

  page.lineage = true;
  let stop = -1;
  if (opts.base) {
    stop = onChain(opts.base);
    if (stop < 0) throw commitConflict(`base_id ${opts.base} is not on the first-parent chain of ${ledger.id}`);
  }
  // What base_id reaches matters only for merges on the page: walked on the first one (a linear
  // history never reads the commits below the base, however large they are).
  let baseReach: Set<string> | null = null;
  const reachedFromBase = async (): Promise<Set<string>> => (baseReach ??= stop >= 0 ? await ancestors(ledger, [chain[stop]!.cid]) : new Set<string>());
  const merged: Loaded[] = [];
  let used = 0;
  let t = start;
  const ids: string[] = [];
  for (let k = start; k > stop && k >= 0 && ids.length <= limit; k--) ids.push(chain[k]!.cid);
  const next = readAhead(ledger, ids);
  for (; t > stop && t >= 0; t--) {
    const { commit: c, blob } = await next(start - t);
    const extra: Loaded[] = [];
    if (c.env.parents.length > 1) {
      const first = await ancestors(ledger, [c.env.parents[0]!.toString()]);
      const fromBase = await reachedFromBase();
      extra.push(...await brought(ledger, c.env.parents.slice(1).map(String), (id) => first.has(id) || fromBase.has(id)));
    }
    // A page always holds at least one first-parent commit, so one merge may carry it past the limit.
    if (page.commits.length > 0 && used + 1 + extra.length > limit) break;
    page.commits.push(c.bytes);
    merged.push(...extra);
    used += 1 + extra.length;
    await addBlob(ledger, page, c.env, blob);
    for (const m of extra) await addBlob(ledger, page, m.env);
    page.newest_t ??= c.env.t;
    page.oldest_t = c.env.t;
  }
  page.count = page.commits.length;
  page.next_cursor_id = t > stop && t >= 0 ? chain[t]!.cid : null;
  if (merged.length) page.merged_commits = merged.map((m) => m.bytes);
  return page;
}

/** Default mode: every parent, newest t first, from `from`. */
async function defaultWalk(ledger: Ledger, page: CommitPage, from: string, limit: number): Promise<CommitPage> {
  const seen = new Set<string>([from]);
  const frontier: Loaded[] = [await load(ledger, from)];
  while (frontier.length > 0 && page.commits.length < limit) {
    frontier.sort((a, b) => b.env.t - a.env.t || (a.id < b.id ? -1 : 1));
    const c = frontier.shift()!;
    page.commits.push(c.bytes);
    await addBlob(ledger, page, c.env);
    page.newest_t ??= c.env.t;
    page.oldest_t = Math.min(page.oldest_t ?? c.env.t, c.env.t);
    for (const p of c.env.parents) {
      const id = p.toString();
      if (seen.has(id)) continue;
      seen.add(id);
      frontier.push(await load(ledger, id));
    }
  }
  frontier.sort((a, b) => b.env.t - a.env.t || (a.id < b.id ? -1 : 1));
  page.count = page.commits.length;
  page.next_cursor_id = frontier[0]?.id ?? null;
  return page;
}

/** Every commit reachable from `from` (themselves included). */
async function ancestors(ledger: Ledger, from: string[]): Promise<Set<string>> {
  const out = new Set<string>();
  const stack = [...from];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (out.has(id)) continue;
    out.add(id);
    for (const p of (await load(ledger, id)).env.parents) stack.push(p.toString());
  }
  return out;
}

/** Commits reachable from `from` and not excluded, parents before children. */
async function brought(ledger: Ledger, from: string[], excluded: (id: string) => boolean): Promise<Loaded[]> {
  const found = new Map<string, Loaded>();
  const stack = [...from];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (found.has(id) || excluded(id)) continue;
    const c = await load(ledger, id);
    found.set(id, c);
    for (const p of c.env.parents) stack.push(p.toString());
  }
  // Parents before children: ascending t, then the topological order of a DFS.
  const out: Loaded[] = [];
  const done = new Set<string>();
  const visit = (c: Loaded): void => {
    if (done.has(c.id)) return;
    done.add(c.id);
    for (const p of c.env.parents) { const q = found.get(p.toString()); if (q) visit(q); }
    out.push(c);
  };
  for (const c of [...found.values()].sort((a, b) => a.env.t - b.env.t)) visit(c);
  return out;
}

/** Add a commit's transaction blob (read already, or null when unreadable) to the page, or list it as missing. */
async function addBlob(ledger: Ledger, page: CommitPage, env: CommitEnvelope, read?: Uint8Array | null): Promise<void> {
  if (!env.txn) return;
  const id = env.txn.toString();
  if (page.blobs.has(id) || page.missing_blobs.includes(id)) return;
  const bytes = read !== undefined ? read : await readBlob(ledger, env);
  if (bytes) page.blobs.set(id, bytes); else page.missing_blobs.push(id);
}

/** A commit's transaction blob, or null when it cannot be read. */
async function readBlob(ledger: Ledger, env: CommitEnvelope): Promise<Uint8Array | null> {
  if (!env.txn) return null;
  try { return await ledger.store.get(env.txn); } catch { return null; }
}

/** Commits to read ahead of the page walk, so that store reads overlap instead of queueing one by one. */
const READ_AHEAD = 16;

/** `next(i)` is the i-th of `ids` with its transaction blob; up to READ_AHEAD later ones are read meanwhile. */
function readAhead(ledger: Ledger, ids: readonly string[]): (i: number) => Promise<{ commit: Loaded; blob: Uint8Array | null }> {
  const started = new Map<number, Promise<{ commit: Loaded; blob: Uint8Array | null }>>();
  let issued = 0;
  return (i) => {
    while (issued < ids.length && issued <= i + READ_AHEAD) {
      const p = load(ledger, ids[issued]!).then(async (commit) => ({ commit, blob: await readBlob(ledger, commit.env) }));
      p.catch(() => {}); // awaited when used; a page that stops early never asks for it
      started.set(issued++, p);
    }
    const p = started.get(i)!;
    started.delete(i);
    return p;
  };
}
