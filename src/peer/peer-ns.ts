/**
 * The NameService of a peer in proxy mode: the transaction server's records as this peer last
 * learned them, from the `/events` stream or `GET /storage/ns`. Read-only (writes go to the
 * transaction server); `subscribe` delivers every accepted change, which is how the Connection's
 * record cache and the follower hear about new heads.
 */
import { LedgraphError } from '../core/errors.js';
import type { NameService, NsChange, NsRecord } from '../core/store.js';

const readOnly = () => new LedgraphError(403, 'err:db/Forbidden', 'this peer is read-only: nameservice changes happen on the transaction server');

/** Records mirrored from a transaction server. */
export class PeerNameService implements NameService {
  private readonly records = new Map<string, NsRecord>();
  private readonly listeners = new Set<(c: NsChange) => void>();

  /**
   * `fetchRecord` reads one record from the server (`GET /storage/ns`), null when it serves none;
   * `save`, when given, persists every record taken (a browser peer reopens offline from them).
   */
  constructor(
    private readonly fetchRecord: (ledgerId: string) => Promise<NsRecord | null>,
    private readonly save?: (rec: NsRecord) => void,
  ) {}

  /** Called with a ledger the server does not (yet) serve, so the follower can watch for it. */
  onMiss: ((ledgerId: string) => void) | null = null;

  /** Start from records persisted earlier (they count as known; fresher ones replace them). */
  seed(records: readonly NsRecord[]): void {
    for (const r of records) if (!this.records.has(r.ledger_id)) this.records.set(r.ledger_id, { ...r });
  }

  /**
   * Take a record from the server. Kept when the ledger is new to this peer, when `commit_t` or
   * `index_t` grew (events may arrive out of order), or when `force` (a fresh snapshot after a
   * reconnect, or a direct read). Returns true when the stored record changed.
   */
  observe(rec: NsRecord, force = false): boolean {
    const prev = this.records.get(rec.ledger_id);
    if (prev && !force && !(rec.commit_t > prev.commit_t || rec.index_t > prev.index_t || (rec.retracted && !prev.retracted))) return false;
    if (prev && prev.commit_head_id === rec.commit_head_id && prev.index_head_id === rec.index_head_id && prev.retracted === rec.retracted &&
      prev.commit_t === rec.commit_t && prev.index_t === rec.index_t) return false;
    this.records.set(rec.ledger_id, { ...rec });
    this.save?.({ ...rec });
    this.emit({ ledger_id: rec.ledger_id, kind: prev ? (rec.commit_t !== prev.commit_t ? 'commit' : 'index') : 'create', record: { ...rec } });
    return true;
  }

  /** The ledger was retracted or purged on the server. */
  retract(ledgerId: string): void {
    const prev = this.records.get(ledgerId);
    if (!prev || prev.retracted) return;
    const next = { ...prev, retracted: true };
    this.records.set(ledgerId, next);
    this.save?.({ ...next });
    this.emit({ ledger_id: ledgerId, kind: 'retract', record: { ...next } });
  }

  /**
   * Read the record from the server now (Ledgraph-Min-T, first use) and keep it. When the server
   * cannot be reached, a record known already (persisted, or from events) is kept and returned.
   */
  async refresh(ledgerId: string): Promise<NsRecord | null> {
    let rec: NsRecord | null;
    try {
      rec = await this.fetchRecord(ledgerId);
    } catch (e) {
      const known = this.records.get(ledgerId);
      if (known && !(e instanceof LedgraphError)) return { ...known }; // offline: serve what we have
      throw e;
    }
    if (rec) this.observe(rec, true);
    else this.onMiss?.(ledgerId);
    return this.records.get(ledgerId) ?? null;
  }

  async get(ledgerId: string): Promise<NsRecord | null> {
    const hit = this.records.get(ledgerId);
    if (hit) return { ...hit };
    return this.refresh(ledgerId);
  }

  async list(): Promise<NsRecord[]> {
    return [...this.records.values()].sort((a, b) => (a.ledger_id < b.ledger_id ? -1 : a.ledger_id > b.ledger_id ? 1 : 0)).map((r) => ({ ...r }));
  }

  compareAndSet(): Promise<boolean> { return Promise.reject(readOnly()); }
  delete(): Promise<boolean> { return Promise.reject(readOnly()); }

  subscribe(listener: (change: NsChange) => void): () => void {
    this.listeners.add(listener);
    return () => { this.listeners.delete(listener); };
  }

  private emit(c: NsChange): void {
    for (const l of [...this.listeners]) {
      try { l(c); } catch { /* a listener's failure is its own */ }
    }
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
