/**
 * A content store laid out per ledger (docs/deploy.md, "Per-ledger prefixes"): each ledger's
 * objects live in a store of their own (S3: under `<prefix><segment>/`), shared by the ledger's
 * branches, so access can be granted to one ledger's objects alone (vended credentials). The core
 * reaches a ledger's objects through `forLedger(name)` (core/ledger/content-scope.ts); a call on
 * the store itself has no ledger and is refused, so no write path can put an object where its
 * ledger's credentials cannot read it.
 *
 * Objects written before the layout was switched on (the shared layout, `<prefix><CID>`) stay
 * readable: a ledger's view reads its own store first and the shared one when its own lacks the
 * object. The shared store is never written or deleted through a view.
 */
import type { CID } from 'multiformats/cid';
import { internalError, isLedgraphError } from '../core/errors.js';
import type { ContentStore, PutAllOptions } from '../core/store.js';

/**
 * The key segment of a ledger name. Names may hold `/` between segments, so `a` and `a/b` would
 * nest (`a/` would cover `a/b/`); `/` becomes `~`, which names cannot contain: no ledger's prefix
 * is then a prefix of another's, and no segment is a CID of the shared layout's flat keys.
 */
export function ledgerSegment(name: string): string {
  return name.replaceAll('/', '~');
}

/** How the per-ledger store opens its parts. */
export interface PerLedgerStoreOptions {
  /** The store of one ledger's objects, by its segment (ledgerSegment). Called once per ledger. */
  open(segment: string): ContentStore;
  /** The shared layout's store, read for objects a ledger's own store lacks; null when there is none. */
  shared: ContentStore | null;
  /** What the store is, for messages (`s3://bucket/prefix`). */
  where: string;
  /** Release what the parts share (a client) after they are closed. */
  close?(): Promise<void>;
}

/** A content store with one part per ledger (see the file comment). */
export class PerLedgerContentStore implements ContentStore {
  private readonly views = new Map<string, LedgerContentView>();

  constructor(private readonly opts: PerLedgerStoreOptions) {}

  /** The view of one ledger's objects (every branch of `name` shares it). */
  forLedger(name: string): ContentStore {
    const segment = ledgerSegment(name);
    let v = this.views.get(segment);
    if (!v) this.views.set(segment, v = new LedgerContentView(this.opts.open(segment), this.opts.shared, this));
    return v;
  }

  private unscoped(op: string): Error {
    return internalError(`content store ${this.opts.where} is laid out per ledger: ${op} must name its ledger (ContentStore.forLedger)`);
  }

  put(): Promise<CID> { return Promise.reject(this.unscoped('put')); }
  putWithCid(): Promise<void> { return Promise.reject(this.unscoped('put')); }
  get(): Promise<Uint8Array> { return Promise.reject(this.unscoped('get')); }
  has(): Promise<boolean> { return Promise.reject(this.unscoped('has')); }
  delete(): Promise<boolean> { return Promise.reject(this.unscoped('delete')); }

  /** Close every ledger's store, the shared one, then what they share. */
  async close(): Promise<void> {
    const parts = [...this.views.values()].map((v) => v.own);
    this.views.clear();
    await Promise.all(parts.map((p) => p.close()));
    await this.opts.shared?.close();
    await this.opts.close?.();
  }
}

const isMissing = (e: unknown) => isLedgraphError(e) && e.status === 404;

/** One ledger's objects: written to its own store, read from it and then from the shared layout. */
class LedgerContentView implements ContentStore {
  /** Offered only when the ledger's own store offers it (callers otherwise write in parallel themselves). */
  readonly putAllWithCid?: (objects: readonly { cid: CID; bytes: Uint8Array }[], opts?: PutAllOptions) => Promise<void>;
  readonly prepare?: (codec: number, bytes: Uint8Array) => void;

  constructor(readonly own: ContentStore, private readonly shared: ContentStore | null, private readonly parent: PerLedgerContentStore) {
    if (own.putAllWithCid) this.putAllWithCid = (objects, opts) => own.putAllWithCid!(objects, opts);
    if (own.prepare) this.prepare = (codec, bytes) => own.prepare!(codec, bytes);
  }

  put(codec: number, bytes: Uint8Array): Promise<CID> { return this.own.put(codec, bytes); }
  putWithCid(cid: CID, bytes: Uint8Array): Promise<void> { return this.own.putWithCid(cid, bytes); }

  async get(cid: CID): Promise<Uint8Array> {
    try {
      return await this.own.get(cid);
    } catch (e) {
      if (!this.shared || !isMissing(e)) throw e;
      return this.shared.get(cid);
    }
  }

  async has(cid: CID): Promise<boolean> {
    return (await this.own.has(cid)) || (!!this.shared && (await this.shared.has(cid)));
  }

  /** Deletes the ledger's own copy; an object of the shared layout may be another ledger's too, and stays. */
  delete(cid: CID): Promise<boolean> { return this.own.delete(cid); }

  /** Another ledger's view (code holding a view may resolve again). */
  forLedger(name: string): ContentStore { return this.parent.forLedger(name); }

  /** The parent store closes the parts. */
  async close(): Promise<void> {}
}
