/**
 * IndexedDB ContentStore and NameService for the in-browser peer (via idb-keyval). Runs anywhere
 * `indexedDB` exists; imports nothing from node:*. Objects and records live in two databases,
 * `<name>-objects` and `<name>-ns`, because an idb-keyval store is one object store per database.
 */
import { createStore, get, promisifyRequest, set, values, type UseStore } from 'idb-keyval';
import type { CID } from 'multiformats/cid';
import { cidOf } from '../core/commit/cid.js';
import { badRequest, isLedgraphError, storageError, type LedgraphError } from '../core/errors.js';
import type { Storage } from '../core/ledger/connection.js';
import { sameRecordVersion, type ContentStore, type NameService, type NsChange, type NsRecord } from '../core/store.js';
import { ChangeFeed, byLedgerId, changeKind, checkPutCid, checkRecord, cloneRecord, missingObject, verifiedBytes } from './memory-store.js';

const idbFail = (what: string, e: unknown): LedgraphError =>
  isLedgraphError(e) ? e : storageError(`${what}: ${e instanceof Error ? e.message : String(e)}`);

/** The idb-keyval store `<db>`/`<store>`; a clear 502 where IndexedDB does not exist. */
function openStore(db: string, store: string): UseStore {
  if (typeof indexedDB === 'undefined') throw storageError('IndexedDB is not available in this runtime');
  return createStore(db, store);
}

/** Run `body` against the store inside one readwrite transaction; resolves when the transaction commits. */
function inTransaction<T>(store: UseStore, body: (s: IDBObjectStore, done: (value: T) => void) => void): Promise<T> {
  // Requests are chained through onsuccess callbacks, not awaits, so the transaction never auto-commits midway.
  return store('readwrite', (s) => new Promise<T>((resolve, reject) => {
    body(s, (value) => promisifyRequest(s.transaction).then(() => resolve(value), reject));
  }));
}

/** Delete a key in one transaction, reporting whether it existed. */
function deleteExisting(store: UseStore, key: string): Promise<boolean> {
  return inTransaction<boolean>(store, (s, done) => {
    const req = s.count(key);
    req.onsuccess = () => {
      const existed = req.result > 0;
      if (existed) s.delete(key);
      done(existed);
    };
  });
}

/** Content-addressed objects in IndexedDB, keyed by CID string; every read is verified. */
export class IdbContentStore implements ContentStore {
  private readonly store: UseStore;

  constructor(readonly name = 'ledgraph') {
    this.store = openStore(`${name}-objects`, 'objects');
  }

  /** Store bytes under their CID (structured clone keeps a private copy). */
  async put(codec: number, bytes: Uint8Array): Promise<CID> {
    if (!(bytes instanceof Uint8Array)) throw badRequest('object bytes must be a Uint8Array');
    const cid = await cidOf(codec, bytes);
    await set(cid.toString(), bytes, this.store).catch((e) => { throw idbFail(`cannot store object ${cid.toString()}`, e); });
    return cid;
  }

  /** Store bytes under a caller-computed CID after verifying it. */
  async putWithCid(cid: CID, bytes: Uint8Array): Promise<void> {
    await checkPutCid(cid, bytes);
    await set(cid.toString(), bytes, this.store).catch((e) => { throw idbFail(`cannot store object ${cid.toString()}`, e); });
  }

  /** The object's bytes, verified against the CID on every read. */
  async get(cid: CID): Promise<Uint8Array> {
    let bytes: unknown;
    try {
      bytes = await get(cid.toString(), this.store);
    } catch (e) {
      throw idbFail(`cannot read object ${cid.toString()}`, e);
    }
    if (bytes === undefined) throw missingObject(cid, `IndexedDB store "${this.name}"`);
    if (!(bytes instanceof Uint8Array)) throw storageError(`object ${cid.toString()} in IndexedDB store "${this.name}" is not bytes`);
    return verifiedBytes(cid, bytes, `IndexedDB store "${this.name}"`);
  }

  /** True when the object is stored (not verified). */
  async has(cid: CID): Promise<boolean> {
    try {
      return (await this.store('readonly', (s) => promisifyRequest(s.count(cid.toString())))) > 0;
    } catch (e) {
      throw idbFail(`cannot look up object ${cid.toString()}`, e);
    }
  }

  /** Remove the object; true when it existed. */
  async delete(cid: CID): Promise<boolean> {
    return deleteExisting(this.store, cid.toString()).catch((e) => { throw idbFail(`cannot delete object ${cid.toString()}`, e); });
  }

  /** idb-keyval keeps its connection for reuse; nothing to release. */
  async close(): Promise<void> {}
}

/**
 * Nameservice records in IndexedDB. compareAndSet reads, compares and writes in one readwrite
 * transaction, which IndexedDB serialises across tabs; a BroadcastChannel tells other tabs and
 * instances on the same database about each change.
 */
export class IdbNameService implements NameService {
  private readonly store: UseStore;
  private readonly channel: BroadcastChannel | undefined;
  private readonly feed = new ChangeFeed((active) => this.listen(active));

  constructor(readonly name = 'ledgraph') {
    this.store = openStore(`${name}-ns`, 'records');
    this.channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(`ledgraph-ns:${name}`) : undefined;
    // In Node an open channel keeps the process alive; browsers have no unref.
    (this.channel as { unref?: () => void } | undefined)?.unref?.();
  }

  /** The record, or null. */
  async get(ledgerId: string): Promise<NsRecord | null> {
    try {
      return (await get<NsRecord>(ledgerId, this.store)) ?? null;
    } catch (e) {
      throw idbFail(`cannot read nameservice record ${ledgerId}`, e);
    }
  }

  /** Replace the record when the stored version equals `expected`, atomically. */
  async compareAndSet(ledgerId: string, expected: NsRecord | null, next: NsRecord): Promise<boolean> {
    checkRecord(ledgerId, next);
    const stored = cloneRecord(next);
    let change: NsChange | null;
    try {
      change = await inTransaction<NsChange | null>(this.store, (s, done) => {
        const req = s.get(ledgerId);
        req.onsuccess = () => {
          const prev = (req.result as NsRecord | undefined) ?? null;
          if (!sameRecordVersion(prev, expected)) return done(null);
          s.put(stored, ledgerId);
          done({ ledger_id: ledgerId, kind: changeKind(prev, stored), record: stored });
        };
      });
    } catch (e) {
      throw idbFail(`cannot update nameservice record ${ledgerId}`, e);
    }
    if (change) this.publish(change);
    return change !== null;
  }

  /** Purge a record; true when it existed. */
  async delete(ledgerId: string): Promise<boolean> {
    const existed = await deleteExisting(this.store, ledgerId).catch((e) => { throw idbFail(`cannot delete nameservice record ${ledgerId}`, e); });
    if (existed) this.publish({ ledger_id: ledgerId, kind: 'delete', record: null });
    return existed;
  }

  /** Every record, sorted by ledger id. */
  async list(): Promise<NsRecord[]> {
    try {
      return (await values<NsRecord>(this.store)).sort(byLedgerId);
    } catch (e) {
      throw idbFail('cannot list nameservice records', e);
    }
  }

  /** Hear changes made through this instance and, via BroadcastChannel, by other tabs/instances on this database. */
  subscribe(listener: (change: NsChange) => void): () => void {
    return this.feed.subscribe(listener);
  }

  /** Drop subscribers and close the channel. */
  async close(): Promise<void> {
    this.feed.clear();
    this.channel?.close();
  }

  private publish(change: NsChange): void {
    this.feed.emit({ ...change, record: change.record && cloneRecord(change.record) });
    try {
      this.channel?.postMessage(change);
    } catch {
      // Closed channel: other tabs will still see the record on their next read.
    }
  }

  private listen(active: boolean): void {
    if (!this.channel) return;
    this.channel.onmessage = active ? (ev: MessageEvent<NsChange>) => this.feed.emit(ev.data) : null;
  }
}

/** IndexedDB storage under the database name prefix `name` (`<name>-objects`, `<name>-ns`). */
export function openIndexedDbStorage(name = 'ledgraph'): Storage & { content: IdbContentStore; ns: IdbNameService } {
  return { content: new IdbContentStore(name), ns: new IdbNameService(name) };
}
