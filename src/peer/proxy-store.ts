/**
 * The ContentStore of a peer in proxy mode: reads through to the transaction server's storage
 * proxy (or straight from the object store with vended credentials, see direct-reader.ts) and keeps what it fetched in a local ContentStore (files in Node, IndexedDB in browsers),
 * so every object crosses the network once. Fetched objects are verified against their CID before
 * use (ProxyClient); a tampered object fails that read and is never cached.
 *
 * `GET /storage/objects` needs the ledger an object belongs to. The peer learns it top-down: a
 * record names its heads, and every object fetched for a ledger names its children (commit parents
 * and transaction blob, root dictionaries and top nodes, branch children, leaf history), which are
 * noted as that ledger's. An object never seen that way is tried against each known ledger.
 */
import { CID } from 'multiformats/cid';
import { Codec } from '../core/commit/cid.js';
import { decodeEnvelope } from '../core/commit/commit-codec.js';
import { isLedgraphError, LedgraphError } from '../core/errors.js';
import { leafHistory } from '../core/index/leaf-codec.js';
import { dictObjects, parseJsonNode, type BranchNode, type IndexRoot } from '../core/index/root-codec.js';
import type { ContentStore, NsRecord } from '../core/store.js';
import type { DirectReader } from './direct-reader.js';
import type { ProxyClient } from './proxy-client.js';

const readOnly = () => new LedgraphError(403, 'err:db/Forbidden', 'this peer is read-only: writes go to the transaction server');

/** CIDs an object refers to (so they can be fetched for the same ledger). */
export function childCids(cid: CID, bytes: Uint8Array): string[] {
  switch (cid.code) {
    case Codec.commit: {
      const env = decodeEnvelope(bytes);
      return [...env.parents.map((p) => p.toString()), ...(env.txn ? [env.txn.toString()] : [])];
    }
    case Codec.indexRoot: {
      const root = parseJsonNode<IndexRoot>(bytes, 'index root');
      const tops = Object.values(root.orders).filter((c): c is string => !!c);
      return [...dictObjects(root.dict), ...tops, ...(root.prev_root ? [root.prev_root] : []), ...(root.class_summary ? [root.class_summary] : [])];
    }
    case Codec.indexBranch: return parseJsonNode<BranchNode>(bytes, 'index branch').children.map((c) => c.cid);
    case Codec.indexLeaf: {
      const h = leafHistory(bytes);
      return h ? [h.toString()] : [];
    }
    default: return [];
  }
}

/** A read-through, verifying, caching ContentStore over a transaction server's storage proxy. */
export class ProxyContentStore implements ContentStore {
  /** Ledger each known CID was reached from. */
  private readonly owner = new Map<string, string>();
  private readonly pending = new Map<string, Promise<Uint8Array>>();
  /** Cache writes still running. */
  private readonly writes = new Set<Promise<void>>();

  /**
   * `local` caches verified objects; `ledgers` lists the ledgers to try for an object of unknown
   * owner (the peer's followed ledgers); `direct`, when given, is tried first for every object
   * (vended object-store credentials) and the proxy serves whatever it cannot.
   */
  constructor(
    readonly local: ContentStore, readonly client: ProxyClient, private readonly ledgers: () => Iterable<string>,
    readonly direct: DirectReader | null = null,
  ) {}

  /** Note the objects a nameservice record points at as that ledger's. */
  noteRecord(rec: NsRecord): void {
    for (const c of [rec.commit_head_id, rec.index_head_id, rec.config_id, rec.default_context]) {
      if (c) this.owner.set(c, rec.ledger_id);
    }
  }

  /** Note an object as belonging to a ledger. */
  note(cid: string, ledgerId: string): void {
    if (!this.owner.has(cid)) this.owner.set(cid, ledgerId);
  }

  async get(cid: CID): Promise<Uint8Array> {
    const k = cid.toString();
    // An object being fetched (or still being written to the cache) is served from that fetch:
    // the cache file may exist half-written meanwhile.
    const inflight = this.pending.get(k);
    if (inflight) return inflight;
    // One read, not `has` then `get`: a missing object is the cache's 404 (half the IndexedDB
    // transactions of a reopen).
    const cached = await this.local.get(cid).catch((e: unknown) => {
      if (isLedgraphError(e) && e.status === 404) return null;
      throw e;
    });
    if (cached) {
      this.noteChildren(cid, cached);
      return cached;
    }
    let p = this.pending.get(k);
    if (!p) {
      const fetched = this.fetchRemote(cid);
      p = fetched.then((r) => r.bytes);
      this.pending.set(k, p);
      // Forgotten once the cache holds it (or the fetch failed); the caller need not wait for the write.
      const done = fetched.then((r) => r.written, () => undefined).finally(() => { this.pending.delete(k); this.writes.delete(done); });
      this.writes.add(done);
    }
    return p;
  }

  private async fetchRemote(cid: CID): Promise<{ bytes: Uint8Array; written: Promise<void> }> {
    const k = cid.toString();
    const known = this.owner.get(k);
    const candidates = known ? [known] : [...new Set(this.ledgers())];
    let last: unknown = null;
    for (const ledger of candidates) {
      try {
        // Verified either way (the object store's get, or the proxy client), or throws.
        const bytes = (await this.direct?.read(cid, ledger)) ?? await this.client.object(cid, ledger);
        this.owner.set(k, ledger);
        this.noteChildren(cid, bytes);
        // A failed cache write only means the object is fetched again next time.
        const written = this.local.putWithCid(cid, bytes).catch(() => undefined);
        return { bytes, written };
      } catch (e) {
        if (!(isLedgraphError(e) && e.status === 404)) throw e;
        last = e;
      }
    }
    if (last) throw last;
    throw new LedgraphError(404, 'err:db/LedgerNotFound', `object ${k} not found: this peer follows no ledger that holds it`);
  }

  private noteChildren(cid: CID, bytes: Uint8Array): void {
    const ledger = this.owner.get(cid.toString());
    if (!ledger) return;
    try {
      for (const c of childCids(cid, bytes)) this.note(c, ledger);
    } catch { /* a malformed object fails where it is decoded for use */ }
  }

  /** Store an object received from the transaction server (pack frames, already verified). */
  async putFetched(cid: CID, bytes: Uint8Array, ledgerId: string): Promise<void> {
    this.owner.set(cid.toString(), ledgerId);
    await this.local.putWithCid(cid, bytes);
    this.noteChildren(cid, bytes);
  }

  async has(cid: CID): Promise<boolean> {
    return this.local.has(cid);
  }

  put(_codec: number, _bytes: Uint8Array): Promise<CID> { return Promise.reject(readOnly()); }
  putWithCid(_cid: CID, _bytes: Uint8Array): Promise<void> { return Promise.reject(readOnly()); }
  delete(cid: CID): Promise<boolean> { return this.local.delete(cid); }
  /** Resolves when every cache write started so far has finished. */
  async idle(): Promise<void> {
    while (this.writes.size > 0) await Promise.all([...this.writes]);
  }

  async close(): Promise<void> {
    await this.idle();
    await this.direct?.close();
    await this.local.close();
  }
}
