/**
 * In-memory ContentStore and NameService (tests, ephemeral peers), plus the small helpers every
 * store shares: CID verification with the right errors, change kinds and the change feed.
 */
import type { CID } from 'multiformats/cid';
import { cidOf, verifyCid } from '../core/commit/cid.js';
import { badRequest, notFound, storageError, type LedgraphError } from '../core/errors.js';
import type { Storage } from '../core/ledger/connection.js';
import { sameRecordVersion, type ContentStore, type NameService, type NsChange, type NsRecord } from '../core/store.js';

/** The 404 for an object a store does not hold. */
export function missingObject(cid: CID, where: string): LedgraphError {
  return notFound(`object ${cid.toString()} not found in ${where}`);
}

/** Return bytes read from a backend only when they hash to the CID; otherwise 502 (never the data). */
export async function verifiedBytes(cid: CID, bytes: Uint8Array, where: string): Promise<Uint8Array> {
  if (!(await verifyCid(cid, bytes))) {
    throw storageError(`object ${cid.toString()} in ${where} does not match its CID (corrupt or tampered)`);
  }
  return bytes;
}

/** Throw 502 unless bytes handed to putWithCid hash to the CID (they usually came from a remote). */
export async function checkPutCid(cid: CID, bytes: Uint8Array): Promise<void> {
  if (!(bytes instanceof Uint8Array)) throw badRequest('object bytes must be a Uint8Array');
  if (!(await verifyCid(cid, bytes))) throw storageError(`bytes do not match CID ${cid.toString()}`);
}

/** Reject a compare-and-set whose record names another ledger than the key it is stored under. */
export function checkRecord(ledgerId: string, next: NsRecord): void {
  if (typeof ledgerId !== 'string' || ledgerId === '') throw badRequest('ledger id must be a non-empty string');
  if (next.ledger_id !== ledgerId) {
    throw badRequest(`nameservice record for "${next.ledger_id}" cannot be stored under "${ledgerId}"`);
  }
}

/** The change-feed kind of a successful compare-and-set from `prev` (null = created) to `next`. */
export function changeKind(prev: NsRecord | null, next: NsRecord): NsChange['kind'] {
  if (prev === null) return 'create';
  if (next.retracted && !prev.retracted) return 'retract';
  if (prev.commit_head_id !== next.commit_head_id || prev.commit_t !== next.commit_t) return 'commit';
  if (prev.index_head_id !== next.index_head_id || prev.index_t !== next.index_t) return 'index';
  return 'update';
}

/** A deep copy, so callers can never mutate stored state through a returned or passed-in record. */
export function cloneRecord(r: NsRecord): NsRecord {
  return structuredClone(r);
}

/** Compare ledger ids for list(): plain code-unit order, stable across runtimes and locales. */
export function byLedgerId(a: NsRecord, b: NsRecord): number {
  return a.ledger_id < b.ledger_id ? -1 : a.ledger_id > b.ledger_id ? 1 : 0;
}

/** Listener set of a nameservice; `onActive` hears when the first subscriber arrives or the last leaves. */
export class ChangeFeed {
  private readonly listeners = new Set<(change: NsChange) => void>();

  constructor(private readonly onActive?: (active: boolean) => void) {}

  /** Number of current subscribers. */
  get size(): number { return this.listeners.size; }

  /** Add a listener; returns its idempotent unsubscribe. */
  subscribe(listener: (change: NsChange) => void): () => void {
    // Wrap so the same function subscribed twice gets two independent subscriptions.
    const entry = (c: NsChange) => listener(c);
    this.listeners.add(entry);
    if (this.listeners.size === 1) this.onActive?.(true);
    return () => {
      if (this.listeners.delete(entry) && this.listeners.size === 0) this.onActive?.(false);
    };
  }

  /** Deliver a change to every listener; a throwing listener must not undo a change that already happened. */
  emit(change: NsChange): void {
    for (const l of [...this.listeners]) {
      try {
        l(change);
      } catch (e) {
        console.error('ledgraph: nameservice change listener failed', e);
      }
    }
  }

  /** Drop every listener (close). */
  clear(): void {
    const had = this.listeners.size > 0;
    this.listeners.clear();
    if (had) this.onActive?.(false);
  }
}

/**
 * Content store held in a Map of CID string -> bytes. Pass a Map to share objects between
 * instances (a "reopen" in tests, or to inspect/corrupt what is stored).
 */
export class MemoryContentStore implements ContentStore {
  constructor(readonly objects: Map<string, Uint8Array> = new Map()) {}

  /** Store a copy of bytes under their CID. */
  async put(codec: number, bytes: Uint8Array): Promise<CID> {
    if (!(bytes instanceof Uint8Array)) throw badRequest('object bytes must be a Uint8Array');
    const copy = bytes.slice();
    const cid = await cidOf(codec, copy);
    this.objects.set(cid.toString(), copy);
    return cid;
  }

  /** Store a copy of bytes under a caller-computed CID after verifying it. */
  async putWithCid(cid: CID, bytes: Uint8Array): Promise<void> {
    const copy = bytes instanceof Uint8Array ? bytes.slice() : bytes;
    await checkPutCid(cid, copy);
    this.objects.set(cid.toString(), copy);
  }

  /** A fresh copy of the object's bytes, verified on every read. */
  async get(cid: CID): Promise<Uint8Array> {
    const stored = this.objects.get(cid.toString());
    if (stored === undefined) throw missingObject(cid, 'the memory store');
    const copy = stored.slice();
    return verifiedBytes(cid, copy, 'the memory store');
  }

  /** True when the object is stored (not verified). */
  async has(cid: CID): Promise<boolean> {
    return this.objects.has(cid.toString());
  }

  /** Remove the object; true when it existed. */
  async delete(cid: CID): Promise<boolean> {
    return this.objects.delete(cid.toString());
  }

  /** Nothing to release. */
  async close(): Promise<void> {}
}

/** NameService held in a Map; compare-and-set is atomic because each call runs without awaiting in between. */
export class MemoryNameService implements NameService {
  private readonly feed = new ChangeFeed();
  private readonly records = new Map<string, NsRecord>();

  /** A copy of the record, or null. */
  async get(ledgerId: string): Promise<NsRecord | null> {
    const r = this.records.get(ledgerId);
    return r === undefined ? null : cloneRecord(r);
  }

  /** Replace the record when the stored version equals `expected`. */
  async compareAndSet(ledgerId: string, expected: NsRecord | null, next: NsRecord): Promise<boolean> {
    checkRecord(ledgerId, next);
    const prev = this.records.get(ledgerId) ?? null;
    if (!sameRecordVersion(prev, expected)) return false;
    const stored = cloneRecord(next);
    this.records.set(ledgerId, stored);
    this.feed.emit({ ledger_id: ledgerId, kind: changeKind(prev, stored), record: cloneRecord(stored) });
    return true;
  }

  /** Purge a record; true when it existed. */
  async delete(ledgerId: string): Promise<boolean> {
    if (!this.records.delete(ledgerId)) return false;
    this.feed.emit({ ledger_id: ledgerId, kind: 'delete', record: null });
    return true;
  }

  /** Copies of every record, sorted by ledger id. */
  async list(): Promise<NsRecord[]> {
    return [...this.records.values()].map(cloneRecord).sort(byLedgerId);
  }

  /** Hear every successful change made through this instance. */
  subscribe(listener: (change: NsChange) => void): () => void {
    return this.feed.subscribe(listener);
  }

  /** Drop subscribers. */
  async close(): Promise<void> {
    this.feed.clear();
  }
}

/** Fresh, empty in-memory storage. */
export function openMemoryStorage(): Storage & { content: MemoryContentStore; ns: MemoryNameService } {
  return { content: new MemoryContentStore(), ns: new MemoryNameService() };
}
