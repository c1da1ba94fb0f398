/**
 * Garbage collection of index artifacts (docs/branches.md, "Index retention"). What is retained:
 * every object reachable from any nameservice record — its commits, and every index root on the
 * `prev_root` chain of its index head with their dictionary pages and filter groups (old roots:
 * chunks), branch nodes, leaves and histories. An index root drops out of that set when a record stops naming it and it is on no
 * other record's chain: a fast-forward or rebase gives a branch its source's index head, an index
 * job finishes for a head that moved off its chain or was dropped. Such roots are *retired* here;
 * after `graceMs` (a reader may still hold a snapshot of them, a peer may still be reading) the
 * sweep deletes their objects that nothing retained reaches.
 *
 * Content addressing means an index job may be writing, right now, an object equal to one being
 * swept (a branch's leaf and its source's later leaf can be byte-identical). Sweeps therefore run
 * exclusively with the index writers of this connection (`writing`): a sweep waits for running
 * jobs to publish, and jobs started meanwhile wait for the sweep.
 */
import { CID } from 'multiformats/cid';
import { indexArtifacts } from '../index/artifacts.js';
import type { ContentStore } from '../store.js';
import { reachableFromOthers } from './reachable.js';
import type { LedgerStores } from './stores.js';

/** Default time an unreachable index root is kept before its objects are deleted (10 minutes). */
export const DEFAULT_GC_GRACE_MS = 600_000;

interface Candidate { cid: string; due: number; ledgerId: string }

export class IndexGc {
  private readonly candidates: Candidate[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<void> | null = null;
  private writers = 0;
  private sweeping: Promise<void> | null = null;
  private drained: (() => void) | null = null;
  private closed = false;
  /** Leaf → history memo shared by every sweep (leaves are immutable). */
  private readonly histories = new Map<string, string | null>();
  /** Objects deleted by sweeps so far (diagnostics, tests). */
  deleted = 0;

  constructor(private readonly stores: Pick<LedgerStores, 'contentFor' | 'partitionOf' | 'ns'>, readonly graceMs = DEFAULT_GC_GRACE_MS) {}

  /** Index roots of `ledgerId`'s content that no record names any more: swept after the grace period. */
  retire(ledgerId: string, roots: readonly (string | null)[]): void {
    if (this.closed) return;
    const due = Date.now() + this.graceMs;
    for (const cid of roots) if (cid) this.candidates.push({ cid, due, ledgerId });
    this.schedule();
  }

  /** Run an index writer (index job, bulk load); it waits while a sweep deletes. */
  async writing<T>(fn: () => Promise<T>): Promise<T> {
    while (this.sweeping) await this.sweeping;
    this.writers++;
    try {
      return await fn();
    } finally {
      if (--this.writers === 0 && this.drained) this.drained();
    }
  }

  /** Run `fn` while no index writer of this connection runs (deletes of drops and sweeps). */
  async exclusively<T>(fn: () => Promise<T>): Promise<T> {
    while (this.sweeping) await this.sweeping;
    let release!: () => void;
    this.sweeping = new Promise<void>((r) => { release = r; });
    try {
      while (this.writers > 0) await new Promise<void>((r) => { this.drained = r; });
      this.drained = null;
      return await fn();
    } finally {
      this.sweeping = null;
      release();
    }
  }

  /** Wait until no sweep runs and none is due (tests, shutdown); candidates not yet due stay. */
  async idle(): Promise<void> {
    for (;;) {
      if (this.running) { await this.running; continue; }
      if (!this.candidates.some((c) => c.due <= Date.now())) return;
      this.run();
    }
  }

  /** Stop: pending candidates are forgotten (their objects stay, unreachable). */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.candidates.length = 0;
  }

  private schedule(): void {
    if (this.timer || this.running || this.candidates.length === 0 || this.closed) return;
    const next = Math.min(...this.candidates.map((c) => c.due));
    this.timer = setTimeout(() => { this.timer = null; this.run(); }, Math.max(0, next - Date.now()));
    // A pending sweep must not keep a process alive (Node timers have unref; browsers do not).
    (this.timer as { unref?: () => void }).unref?.();
  }

  private run(): void {
    if (this.running) return;
    if (this.timer) { clearTimeout(this.timer); this.timer = null; }
    const now = Date.now();
    const due = this.candidates.filter((c) => c.due <= now);
    if (due.length === 0) { this.schedule(); return; }
    for (const c of due) this.candidates.splice(this.candidates.indexOf(c), 1);
    this.running = this.exclusively(() => this.sweep(due))
      .catch((e) => {
        console.error(JSON.stringify({ level: 'error', msg: 'index garbage collection failed', error: String(e) }));
      })
      .finally(() => { this.running = null; this.schedule(); });
  }

  /**
   * Delete the objects of the retired roots (and their prev_root chains) that nothing retained in
   * their content partition reaches (every ledger's records under the shared layout, one ledger's
   * branches under a per-ledger one).
   */
  private async sweep(due: Candidate[]): Promise<void> {
    const byPartition = new Map<string, Candidate[]>();
    for (const c of due) {
      const p = this.stores.partitionOf(c.ledgerId);
      byPartition.set(p, [...(byPartition.get(p) ?? []), c]);
    }
    for (const [partition, cands] of byPartition) {
      const keep = await reachableFromOthers(this.stores, partition, new Set(), 'index', this.histories);
      this.deleted += await deleteIndexObjects(this.stores.contentFor(cands[0]!.ledgerId), cands.map((c) => c.cid), keep, this.histories);
    }
  }
}

/**
 * Delete every object of the index roots `roots` and of their prev_root chains that is not in
 * `keep` (root first, leaves last: a partial delete never leaves a root pointing at a missing
 * leaf); returns the number of objects deleted. `keep` gains what was deleted.
 */
export async function deleteIndexObjects(content: ContentStore, roots: readonly string[], keep: Set<string>, histories?: Map<string, string | null>): Promise<number> {
  let deleted = 0;
  for (const start of roots) {
    let root: string | null = start;
    while (root && !keep.has(root)) {
      const idx = await indexArtifacts(content, root, { tolerant: true, skip: keep, histories });
      keep.add(root);
      if (!idx) break;
      for (const c of idx.objects.reverse()) {
        keep.add(c);
        if (await content.delete(CID.parse(c))) deleted++;
      }
      root = idx.root.prev_root;
    }
  }
  return deleted;
}
