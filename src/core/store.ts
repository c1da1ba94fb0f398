/**
 * The two storage interfaces injected into the core (DESIGN.md): an immutable content-addressed
 * ContentStore and the mutable NameService. Implementations live in src/storage.
 */
import type { CID } from 'multiformats/cid';

/** Immutable, content-addressed blob storage. `get` must verify bytes against the CID. */
export interface ContentStore {
  /** Store bytes under the CID of the given kind codec (see commit/cid.ts); returns that CID. */
  put(codec: number, bytes: Uint8Array): Promise<CID>;
  /** Store bytes under a CID the caller computed; the store re-verifies it. */
  putWithCid(cid: CID, bytes: Uint8Array): Promise<void>;
  /**
   * Optional: store many objects under caller-computed CIDs (each re-verified) as one group, durable
   * together when it returns — one barrier for the group instead of one per object (a push of many
   * commits). Without it, callers put the objects one by one. `opts.hashed`: the caller computed
   * every CID from these very bytes itself, in this process (the write pipeline's own blobs), so
   * the store need not hash them again; bytes from anywhere else (a push) are always re-verified.
   */
  putAllWithCid?(objects: readonly { cid: CID; bytes: Uint8Array }[], opts?: PutAllOptions): Promise<void>;
  /**
   * Optional hint: `bytes` of this codec will be put soon (the write pipeline's transaction blob,
   * known before its request has staged). The store may start the part of that put which depends
   * on nothing else (a file store deflates the bytes), so the put itself returns sooner. Nothing
   * is written; bytes never put cost only the work started.
   */
  prepare?(codec: number, bytes: Uint8Array): void;
  /** Bytes of a CID, verified; a missing object is a 404 LedgraphError, a digest mismatch a 502. */
  get(cid: CID): Promise<Uint8Array>;
  has(cid: CID): Promise<boolean>;
  /** Remove an object (hard drop); missing objects are ignored. Returns true when something was deleted. */
  delete(cid: CID): Promise<boolean>;
  /** Release resources. */
  close(): Promise<void>;
  /**
   * Optional: a store laid out per ledger (docs/deploy.md, "Per-ledger prefixes") answers the view
   * of one ledger's objects, shared by that ledger's branches (`name` is the ledger name, without
   * the branch). Every read and write made for a ledger goes through its view (core/ledger/content-scope.ts);
   * such a store refuses calls made outside any view.
   */
  forLedger?(name: string): ContentStore;
}

/** Options of ContentStore.putAllWithCid. */
export interface PutAllOptions {
  /** Every CID was computed by the caller from exactly these bytes (skip re-verifying them). */
  hashed?: boolean;
}

/** The nameservice record of one `name:branch` (replication.md §5). CIDs as base32 strings. */
export interface NsRecord {
  ledger_id: string;
  name: string;
  branch: string;
  commit_head_id: string | null;
  commit_t: number;
  index_head_id: string | null;
  index_t: number;
  default_context: string | null;
  config_id: string | null;
  retracted: boolean;
  source_branch?: string;
  branches?: number;
}

/** A change-feed event: the record after the change, or `deleted` when purged. */
export interface NsChange {
  ledger_id: string;
  kind: 'commit' | 'index' | 'retract' | 'delete' | 'create' | 'update';
  record: NsRecord | null;
}

/** The mutable state: one record per `name:branch`, compare-and-set, list, change feed. */
export interface NameService {
  /** The record, or null when absent. */
  get(ledgerId: string): Promise<NsRecord | null>;
  /**
   * Replace the record when the stored one still equals `expected` (compared by commit_head_id,
   * commit_t, index_head_id, index_t, retracted, branches and default_context; `null` = must not exist). Returns true on success.
   */
  compareAndSet(ledgerId: string, expected: NsRecord | null, next: NsRecord, staged?: StagedRecord): Promise<boolean>;
  /**
   * Optional: start making `next` durable ahead of its compare-and-set (a file store writes and
   * fsyncs a copy beside the record while the caller writes the objects it points at). Nothing is
   * visible until a compareAndSet given the staged record sets it; a store uses the copy only when
   * the record to set is exactly the staged one. Callers discard what they did not hand over.
   */
  stage?(ledgerId: string, next: NsRecord): StagedRecord;
  /** Delete a record (hard drop). Returns true when one existed. */
  delete(ledgerId: string): Promise<boolean>;
  /** Every record. */
  list(): Promise<NsRecord[]>;
  /** Subscribe to changes (from this process and, where the store supports it, others). Returns unsubscribe. */
  subscribe(listener: (change: NsChange) => void): () => void;
  close(): Promise<void>;
}

/** A record written ahead by NameService.stage, not yet visible. */
export interface StagedRecord {
  /** The record it holds. */
  readonly record: NsRecord;
  /** Drop it (its temporary copy is removed); nothing once a compareAndSet has taken it. */
  discard(): void;
}

/** True when two records agree on the fields compare-and-set checks. */
export function sameRecordVersion(a: NsRecord | null, b: NsRecord | null): boolean {
  if (a === null || b === null) return a === b;
  return a.commit_head_id === b.commit_head_id && a.commit_t === b.commit_t &&
    a.index_head_id === b.index_head_id && a.index_t === b.index_t && a.retracted === b.retracted &&
    (a.branches ?? 0) === (b.branches ?? 0) && (a.default_context ?? null) === (b.default_context ?? null);
}
