/**
 * The peer's follow loop (replication.md §14): subscribe to the transaction server's `/events`,
 * keep the nameservice view current, and bring every loaded ledger up to the server's head with
 * the staleness plan — nothing, switch to a newer index, catch up a few commits by walking first
 * parents, catch up many through one `/pack`, or reload. Works over shared storage (the Connection
 * reads the server's own directory) and over the storage proxy (a PeerNameService and a
 * ProxyContentStore). Only fetch, streams and the core: it runs in Node and in browsers.
 */
import { CID } from 'multiformats/cid';
import { Codec, cidOf } from '../core/commit/cid.js';
import { decodeEnvelope } from '../core/commit/commit-codec.js';
import { encodeDictPage, PAGE_IDS, PAGE_SHIFT } from '../core/index/dict-page.js';
import { isLedgraphError } from '../core/errors.js';
import { parseJsonNode, type DictChunk } from '../core/index/root-codec.js';
import { IndexTree } from '../core/index/tree.js';
import type { Connection } from '../core/ledger/connection.js';
import type { Ledger } from '../core/ledger/ledger.js';
import { normalizeLedgerId } from '../core/ledger/ledger-id.js';
import type { NsRecord } from '../core/store.js';
import { eventsUrl, followEvents, type EventsSubscription } from './events-client.js';
import type { PeerNameService } from './peer-ns.js';
import type { ProxyClient } from './proxy-client.js';
import type { ProxyContentStore } from './proxy-store.js';
import { stalenessPlan, type Plan } from './plan.js';

/** Where log lines go (the server's Logger fits). */
export interface PeerLog {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
}

/** Proxy mode: the mirrored nameservice, the read-through store and the client behind both. */
export interface ProxyParts { ns: PeerNameService; store: ProxyContentStore; client: ProxyClient }

export interface FollowerOptions {
  conn: Connection;
  /** Absent in shared-storage mode. */
  proxy?: ProxyParts | null;
  /**
   * The `/events` stream (URL without query) and its token; null to follow nothing. With `all`
   * every ledger is subscribed; otherwise `ledgers`, extended by any other ledger a read touches.
   */
  events?: { url: string; token?: string | null; all: boolean; graphSources?: readonly string[] } | null;
  /** Ledgers to load at connect. */
  ledgers?: readonly string[];
  fetch?: typeof fetch;
  log?: PeerLog;
}

/** What the follower did (tests, /stats, the bench). */
export interface FollowerCounters { commitsApplied: number; catchUps: number; packCatchUps: number; indexSwitches: number; reloads: number; connects: number }

const quiet: PeerLog = { info() {}, warn() {} };

/** Keeps a Connection's loaded ledgers in step with a transaction server. */
export class PeerFollower {
  readonly counters: FollowerCounters = { commitsApplied: 0, catchUps: 0, packCatchUps: 0, indexSwitches: 0, reloads: 0, connects: 0 };
  private readonly conn: Connection;
  private readonly proxy: ProxyParts | null;
  private readonly log: PeerLog;
  private readonly preload: string[];
  private readonly running = new Map<string, Promise<void>>();
  private readonly dirty = new Set<string>();
  /** Ledgers whose record was taken since the current connect (the snapshot overrides watermarks). */
  private seenSinceConnect = new Set<string>();
  private subscription: EventsSubscription | null = null;
  private unsubscribe: (() => void) | null = null;
  private readonly listeners = new Set<(ledgerId: string, t: number) => void>();
  /** Ledgers in the event subscription (unless it is `all`). */
  private readonly subscribed = new Set<string>();

  constructor(private readonly opts: FollowerOptions) {
    this.conn = opts.conn;
    this.proxy = opts.proxy ?? null;
    this.log = opts.log ?? quiet;
    this.preload = (opts.ledgers ?? []).filter((l) => l !== '*').map(normalizeLedgerId);
    for (const id of this.preload) this.subscribed.add(id);
  }

  /** Start following: nameservice changes refresh ledgers; the event stream feeds the nameservice. */
  start(): void {
    this.unsubscribe = this.conn.ns.subscribe((c) => {
      if (c.record) this.proxy?.store.noteRecord(c.record);
      this.follow(c.ledger_id);
      if (c.kind === 'retract' || c.kind === 'delete') this.conn.evict(c.ledger_id);
      else this.schedule(c.ledger_id);
    });
    this.conn.refresher = (id) => this.refreshFromServer(id);
    this.subscribe();
  }

  /**
   * Make sure a ledger's events reach this peer: a ledger outside a per-ledger subscription that
   * a read touched (its record came from GET /storage/ns, or the server had none yet) is added,
   * and the stream reconnects; its creation then arrives as an event.
   */
  follow(id: string): void {
    const ev = this.opts.events;
    if (!ev || ev.all || !this.proxy || this.subscribed.has(id)) return; // shared storage sees every ledger itself
    this.subscribed.add(id);
    this.subscription?.close();
    this.subscribe();
  }

  private subscribe(): void {
    const ev = this.opts.events;
    if (ev) {
      const url = eventsUrl(ev.url, { all: ev.all, ledgers: ev.all ? [] : [...this.subscribed], graphSources: ev.graphSources ?? [] });
      this.subscription = followEvents({
        url, token: ev.token ?? null, fetch: this.opts.fetch,
        onConnect: () => {
          this.counters.connects++;
          this.seenSinceConnect = new Set();
          this.log.info('peer: events connected', { url });
          for (const id of this.preload) void this.load(id);
        },
        onRecord: (rec) => this.onRecord(rec),
        onRetracted: (id) => {
          if (this.proxy) this.proxy.ns.retract(id);
          this.conn.evict(id);
        },
        onDisconnect: (e, ms) => this.log.warn('peer: events disconnected; reconnecting', { error: e.message, retry_ms: ms }),
      });
    } else {
      for (const id of this.preload) void this.load(id);
    }
  }

  /** Called with (ledger, t) after a ledger reached a new t on this peer. */
  onChange(listener: (ledgerId: string, t: number) => void): () => void {
    this.listeners.add(listener);
    return () => { this.listeners.delete(listener); };
  }

  /** True while the event stream is connected. */
  get connected(): boolean { return this.subscription?.connected ?? false; }

  private onRecord(rec: NsRecord): void {
    if (this.proxy) {
      const fresh = !this.seenSinceConnect.has(rec.ledger_id);
      this.seenSinceConnect.add(rec.ledger_id);
      this.proxy.store.noteRecord(rec);
      // Changes reach schedule() through the nameservice subscription.
      this.proxy.ns.observe(rec, fresh);
    } else {
      this.schedule(rec.ledger_id);
    }
  }

  private async load(id: string): Promise<void> {
    try {
      await this.conn.ledger(id);
    } catch (e) {
      this.log.warn('peer: cannot load ledger', { ledger: id, error: e instanceof Error ? e.message : String(e) });
    }
  }

  /** Read the record from the transaction server (proxy) or storage (shared), then refresh. */
  async refreshFromServer(ledgerId: string): Promise<void> {
    const id = normalizeLedgerId(ledgerId);
    if (this.proxy) await this.proxy.ns.refresh(id);
    await this.refresh(id);
  }

  /** Refresh one ledger now (coalesced with a refresh already running); resolves when done. */
  refresh(ledgerId: string): Promise<void> {
    const id = normalizeLedgerId(ledgerId);
    this.schedule(id);
    return this.running.get(id) ?? Promise.resolve();
  }

  private schedule(id: string): void {
    if (this.running.has(id)) {
      this.dirty.add(id);
      return;
    }
    const run = (async () => {
      do {
        this.dirty.delete(id);
        try {
          await this.refreshOnce(id);
        } catch (e) {
          this.log.warn('peer: refresh failed', { ledger: id, error: e instanceof Error ? e.message : String(e) });
        }
      } while (this.dirty.has(id));
    })().finally(() => this.running.delete(id));
    this.running.set(id, run);
  }

  /** Apply the §14 plan to a loaded ledger (ledgers not loaded are loaded on first use). */
  private async refreshOnce(id: string): Promise<void> {
    const p = this.conn.loadedLedger(id);
    if (!p) return;
    const l = await p.catch(() => null);
    if (!l) return;
    const rec = await this.conn.ns.get(id);
    if (!rec || rec.retracted) { this.conn.evict(id); return; }
    const plan = stalenessPlan(localState(l), rec);
    const before = l.t;
    await this.execute(id, l, rec, plan);
    const after = (await this.conn.loadedLedger(id)?.catch(() => null))?.t ?? before;
    if (after !== before) for (const f of this.listeners) f(id, after);
  }

  private async execute(id: string, l: Ledger, rec: NsRecord, plan: Plan): Promise<void> {
    switch (plan.kind) {
      case 'nothing':
        if (plan.reason === 'behind-local') this.log.warn('peer: the server is behind this peer', { ledger: id, local_t: l.t, remote_t: rec.commit_t });
        return;
      case 'index':
        if (!(await l.lock.run(() => this.switchIndex(l, rec)))) await this.reload(id);
        return;
      case 'commits': {
        const ok = await l.lock.run(() => this.walkCommits(l, rec, plan.gap));
        if (!ok) { await this.reload(id); return; }
        if (plan.index && !(await l.lock.run(() => this.switchIndex(l, rec)))) await this.reload(id);
        return;
      }
      case 'reload': {
        // Many commits behind: one pack of the missing commits, if the server and the chain allow.
        if (this.proxy && rec.commit_head_id && l.head.cid && (await l.lock.run(() => this.packCommits(id, l, rec)))) {
          if (rec.index_t > (l.tree?.t ?? 0) && rec.index_head_id && !(await l.lock.run(() => this.switchIndex(l, rec)))) await this.reload(id);
          return;
        }
        await this.reload(id);
      }
    }
  }

  private async reload(id: string): Promise<void> {
    this.counters.reloads++;
    await this.conn.reload(id);
  }

  /**
   * Walk first parents from the record's head down to the local head, then apply oldest first.
   * False (nothing applied) when the walk does not meet the local head in exactly `gap` commits.
   */
  private async walkCommits(l: Ledger, rec: NsRecord, gap: number): Promise<boolean> {
    if (l.t + gap !== rec.commit_t) return l.t === rec.commit_t; // moved meanwhile (a query caught up)
    const chain: { cid: string; bytes: Uint8Array }[] = [];
    let cur: CID | null = CID.parse(rec.commit_head_id!);
    while (cur && cur.toString() !== l.head.cid && chain.length <= gap) {
      const bytes = await this.conn.contentFor(l.id).get(cur);
      chain.push({ cid: cur.toString(), bytes });
      cur = decodeEnvelope(bytes).parents[0] ?? null;
    }
    if (chain.length !== gap || cur?.toString() !== l.head.cid) {
      this.log.warn('peer: commit walk does not match the gap; reloading', { ledger: l.id, gap, walked: chain.length });
      return false;
    }
    await this.apply(l, chain, rec);
    this.counters.catchUps++;
    return true;
  }

  /** One `/pack` with `have` = the local head; the commits received must be exactly the gap. */
  private async packCommits(id: string, l: Ledger, rec: NsRecord): Promise<boolean> {
    const proxy = this.proxy!;
    const gap = rec.commit_t - l.t;
    if (gap <= 0) return gap === 0;
    const got = new Map<string, Uint8Array>();
    try {
      const n = await proxy.client.pack(id, rec.commit_head_id!, [l.head.cid], async (cid, bytes) => {
        await proxy.store.putFetched(cid, bytes, id);
        got.set(cid.toString(), bytes);
      });
      if (n !== gap) {
        this.log.warn('peer: pack commit count does not match the gap; reloading', { ledger: id, gap, commits: n });
        return false;
      }
    } catch (e) {
      if (isLedgraphError(e) && e.status >= 500 && e.status !== 501) throw e;
      this.log.warn('peer: pack unavailable; reloading', { ledger: id, error: e instanceof Error ? e.message : String(e) });
      return false;
    }
    const chain: { cid: string; bytes: Uint8Array }[] = [];
    let cur: string | null = rec.commit_head_id;
    while (cur && cur !== l.head.cid) {
      const bytes = got.get(cur);
      if (!bytes) return false; // not on the first-parent chain above our head
      chain.push({ cid: cur, bytes });
      cur = decodeEnvelope(bytes).parents[0]?.toString() ?? null;
    }
    if (cur !== l.head.cid || chain.length !== gap) return false;
    await this.apply(l, chain, rec);
    this.counters.packCatchUps++;
    return true;
  }

  /** Apply walked commits (newest first in `chain`) oldest first. */
  private async apply(l: Ledger, chain: { cid: string; bytes: Uint8Array }[], rec: NsRecord): Promise<void> {
    const oldestFirst = chain.slice().reverse();
    const datas = await l.decodeResolved(oldestFirst);
    for (let i = 0; i < oldestFirst.length; i++) {
      const { cid, bytes } = oldestFirst[i]!;
      l.applyCommit(datas[i]!, cid, bytes);
      this.counters.commitsApplied++;
    }
    l.record = { ...rec, index_head_id: l.record.index_head_id, index_t: l.record.index_t };
  }

  /**
   * Switch a loaded ledger to the record's newer index root and drop the novelty it covers. Only
   * when the root's dictionary agrees with this peer's ids (they are assigned in apply order, which
   * may differ from the server's); otherwise false and the caller reloads from the root.
   */
  private async switchIndex(l: Ledger, rec: NsRecord): Promise<boolean> {
    if (!rec.index_head_id || rec.index_head_id === l.tree?.rootCid.toString()) return true;
    const tree = await IndexTree.load(this.conn.contentFor(l.id), CID.parse(rec.index_head_id), this.conn.leafCache);
    if (tree.t > l.t || tree.root.dict.size > l.dict.size) return false;
    if (!(await this.sameDictionary(l, tree))) return false;
    l.installIndex(tree);
    l.record = { ...l.record, index_head_id: rec.index_head_id, index_t: rec.index_t };
    this.counters.indexSwitches++;
    return true;
  }

  /**
   * True when the root's dictionary pages hold this peer's keys under the same ids. Pages are
   * content-addressed, so the pages past this peer's own base are encoded here and their CIDs
   * compared: nothing is fetched.
   */
  private async sameDictionary(l: Ledger, tree: IndexTree): Promise<boolean> {
    const d = tree.root.dict;
    if (d.pages) {
      for (let k = l.dict.baseSize >>> PAGE_SHIFT; k < d.pages.length; k++) {
        const from = k << PAGE_SHIFT;
        const keys = await l.dict.keysOf(from, Math.min(d.size, from + PAGE_IDS));
        if ((await cidOf(Codec.dict, encodeDictPage(from, keys))).toString() !== d.pages[k]) return false;
      }
      return true;
    }
    const known = new Set(l.tree?.root.dict.chunks ?? []);
    for (const c of d.chunks) {
      if (known.has(c)) continue;
      const chunk = parseJsonNode<DictChunk>(await this.conn.contentFor(l.id).get(CID.parse(c)), 'dictionary chunk');
      const mine = await l.dict.keysOf(chunk.from, chunk.from + chunk.keys.length);
      if (mine.length !== chunk.keys.length || mine.some((k, i) => k !== chunk.keys[i])) return false;
    }
    return true;
  }

  /** Stop following (the Connection stays open). */
  close(): void {
    this.opts.events = null;
    this.subscription?.close();
    this.subscription = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.conn.refresher) this.conn.refresher = null;
  }
}

function localState(l: Ledger): { t: number; index_t: number; index_head_id: string | null } {
  return { t: l.t, index_t: l.tree?.t ?? 0, index_head_id: l.tree ? l.tree.rootCid.toString() : null };
}
