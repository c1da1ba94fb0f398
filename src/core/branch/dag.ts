/**
 * The commit graph of a ledger's branches (branches.md §6.1): ancestor sets over every parent,
 * the common ancestor of two heads, and the commits one head has that another lacks, in an order
 * that puts parents before children. Only envelopes are read, and they are cached by CID: commits
 * are immutable, so an entry never goes stale.
 */
import { CID } from 'multiformats/cid';
import { decodeEnvelope } from '../commit/commit-codec.js';
import type { ContentStore } from '../store.js';

/** What the graph walks need of a commit. */
export interface Node { cid: string; t: number; parents: string[]; time: string }

/** Default bytes of cached envelopes (≈ 50,000 commits). */
export const DEFAULT_COMMIT_CACHE_BYTES = 16 * 1024 * 1024;

/** Estimated bytes of a cached node: its strings (one byte a character plus headers), the object, its array and the map entry. */
function nodeBytes(n: Node): number {
  let b = 200 + n.cid.length + n.time.length;
  for (const p of n.parents) b += 24 + p.length;
  return b;
}

/**
 * Commit envelopes cached by CID, within a byte budget (--commit-cache-bytes): two generations of
 * half the budget each; when the newer fills, the older is dropped (a walk then reads those from
 * the store again). Graphs over the parts of one store share one (a CID's envelope is the same
 * everywhere), so the budget holds however many ledgers there are.
 */
export class EnvelopeCache {
  private nodes = new Map<string, Node>();
  private older = new Map<string, Node>();
  private bytes = 0;
  private olderBytes = 0;
  constructor(readonly maxBytes = DEFAULT_COMMIT_CACHE_BYTES) {}

  /** Estimated bytes cached now. */
  get cachedBytes(): number { return this.bytes + this.olderBytes; }

  /** The cached envelope of `cid`, if any. */
  get(cid: string): Node | undefined { return this.nodes.get(cid) ?? this.older.get(cid); }

  /** Cache an envelope. */
  add(n: Node): void {
    if (this.nodes.has(n.cid)) return;
    const b = nodeBytes(n);
    if (this.bytes + b > this.maxBytes / 2) {
      this.older = this.nodes;
      this.olderBytes = this.bytes;
      this.nodes = new Map();
      this.bytes = 0;
    }
    this.nodes.set(n.cid, n);
    this.bytes += b;
  }
}

export class CommitGraph {
  /** `cache`: the envelope cache, which graphs over the parts of one store may share. */
  constructor(private readonly store: ContentStore, private readonly cache = new EnvelopeCache()) {}

  /** Record a commit whose envelope the caller has at hand (a ledger applying it), sparing a read. */
  remember(n: Node): void {
    this.cache.add(n);
  }

  /** The envelope facts of one commit. */
  async node(cid: string): Promise<Node> {
    const hit = this.cache.get(cid);
    if (hit) return hit;
    const env = decodeEnvelope(await this.store.get(CID.parse(cid)));
    const n: Node = { cid, t: env.t, parents: env.parents.map(String), time: env.time };
    this.cache.add(n);
    return n;
  }

  /** Every commit reachable from `head` through any parent, itself included. */
  async ancestors(head: string, stopAt: ReadonlySet<string> = new Set()): Promise<Set<string>> {
    const seen = new Set<string>();
    const stack = [head];
    while (stack.length > 0) {
      const c = stack.pop()!;
      if (seen.has(c) || stopAt.has(c)) continue;
      seen.add(c);
      for (const p of (await this.node(c)).parents) if (!seen.has(p)) stack.push(p);
    }
    return seen;
  }

  /**
   * The common ancestor of two heads (branches.md §6.1): among the best common ancestors (those
   * that are not an ancestor of another common ancestor) the one with the greatest t, ties to the
   * smallest CID. t alone would not do: a merge commit's t can be below its second parent's, so an
   * older common commit can carry a greater t than a newer one. Null when nothing is shared.
   */
  async commonAncestor(a: string, b: string): Promise<Node | null> {
    const fromA = await this.ancestors(a);
    if (fromA.has(b)) return this.node(b);
    // Walk b's history; a commit in A's set ends that path (everything behind it is common too).
    const candidates: Node[] = [];
    const seen = new Set<string>();
    const stack = [b];
    while (stack.length > 0) {
      const c = stack.pop()!;
      if (seen.has(c)) continue;
      seen.add(c);
      const n = await this.node(c);
      if (fromA.has(c)) { candidates.push(n); continue; }
      for (const p of n.parents) stack.push(p);
    }
    let best: Node | null = null;
    for (const n of candidates) {
      const behindOther = candidates.length > 1 && await this.isBehind(n, candidates);
      if (behindOther) continue;
      if (!best || n.t > best.t || (n.t === best.t && n.cid < best.cid)) best = n;
    }
    return best;
  }

  /** True when `n` is an ancestor of another of `nodes`. */
  private async isBehind(n: Node, nodes: Node[]): Promise<boolean> {
    for (const o of nodes) if (o.cid !== n.cid && (await this.ancestors(o.cid)).has(n.cid)) return true;
    return false;
  }

  /**
   * The commits reachable from `head` and not from any commit in `exclude` (an ancestor set),
   * parents before children; among independent commits, first-parent history first.
   */
  async only(head: string, exclude: ReadonlySet<string>): Promise<Node[]> {
    const out: Node[] = [];
    const done = new Set<string>();
    // Iterative post-order DFS: a node is emitted once all its parents are.
    const stack: { cid: string; next: number }[] = [{ cid: head, next: 0 }];
    const onStack = new Set<string>([head]);
    if (exclude.has(head)) return out;
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const n = await this.node(top.cid);
      if (top.next < n.parents.length) {
        const p = n.parents[top.next++]!;
        if (!exclude.has(p) && !done.has(p) && !onStack.has(p)) {
          stack.push({ cid: p, next: 0 });
          onStack.add(p);
        }
        continue;
      }
      stack.pop();
      onStack.delete(top.cid);
      done.add(top.cid);
      out.push(n);
    }
    return out;
  }

  /** The first-parent chain from `head` back to genesis, newest first. */
  async firstParents(head: string): Promise<Node[]> {
    const out: Node[] = [];
    let cur: string | undefined = head;
    while (cur) {
      const n = await this.node(cur);
      out.push(n);
      cur = n.parents[0];
    }
    return out;
  }
}
