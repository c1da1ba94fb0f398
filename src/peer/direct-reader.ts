/**
 * Direct object-store reads for a proxy-mode peer (replication.md §11): the peer asks the
 * transaction server for short-lived credentials (`GET /storage/credentials`) and reads objects
 * straight from the bucket with them; anything the bucket cannot give (credentials not vended —
 * a 404 —, an object missing there, access denied, an unreachable endpoint) is answered by the
 * storage proxy instead. Platform-neutral: the object-store client is injected (`openStore`; in
 * Node an S3 ContentStore, see storage/s3-vend.ts; in browsers presigned GETs over fetch, see
 * s3-fetch-reader.ts), and every object is verified by that store.
 */
import type { CID } from 'multiformats/cid';
import type { ProxyClient, VendedCredentials } from './proxy-client.js';

/** The part of an object-store ContentStore a direct reader uses. */
export interface DirectStore {
  /** Verified bytes; a missing object throws a 404 LedgraphError. */
  get(cid: CID): Promise<Uint8Array>;
  close(): Promise<void>;
}

/** What went straight to the bucket and what fell back to the proxy. */
export interface DirectStats { objects: number; bytes: number; fallbacks: number; credentials: number }

/** How long a "not vended" answer is believed before credentials are asked for again. */
const NOT_VENDED_MS = 60_000;
/** Credentials are renewed this long before they expire. */
const RENEW_EARLY_MS = 60_000;

interface Held { creds: VendedCredentials; store: DirectStore; renewAt: number }

/** Reads objects from the object store with vended credentials, per ledger; null means "use the proxy". */
export class DirectReader {
  readonly stats: DirectStats = { objects: 0, bytes: 0, fallbacks: 0, credentials: 0 };
  private readonly held = new Map<string, Promise<Held | null>>();
  private readonly refused = new Map<string, number>();
  private readonly opened = new Set<DirectStore>();

  constructor(
    private readonly client: ProxyClient,
    private readonly openStore: (creds: VendedCredentials) => DirectStore | Promise<DirectStore>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The object's verified bytes from the bucket, or null when the proxy must serve it. */
  async read(cid: CID, ledgerId: string): Promise<Uint8Array | null> {
    let h = await this.credentialsFor(ledgerId);
    if (!h) { this.stats.fallbacks++; return null; }
    for (let attempt = 0; ; attempt++) {
      try {
        const bytes = await h.store.get(cid);
        this.stats.objects++;
        this.stats.bytes += bytes.length;
        return bytes;
      } catch (e) {
        const status = (e as { status?: number }).status;
        // Denied or failed on the first try: the credentials may have been revoked early; renew once.
        if (attempt === 0 && status !== 404) {
          this.forget(ledgerId, h);
          const renewed = await this.credentialsFor(ledgerId);
          if (renewed) { h = renewed; continue; }
        }
        this.stats.fallbacks++;
        return null;
      }
    }
  }

  /** Held credentials for the ledger, asked for when missing or about to expire; null when not vended. */
  private async credentialsFor(ledgerId: string): Promise<Held | null> {
    const refusedAt = this.refused.get(ledgerId);
    if (refusedAt !== undefined && this.now() - refusedAt < NOT_VENDED_MS) return null;
    const p = this.held.get(ledgerId);
    if (p) {
      const h = await p;
      if (h && this.now() < h.renewAt) return h;
      // Expired: the first caller to notice renews; the others wait for its answer.
      if (this.held.get(ledgerId) !== p) return this.credentialsFor(ledgerId);
      if (h) this.forget(ledgerId, h);
      else this.held.delete(ledgerId);
    }
    const q = this.fetchCredentials(ledgerId);
    this.held.set(ledgerId, q);
    const h = await q;
    if (!h) {
      if (this.held.get(ledgerId) === q) this.held.delete(ledgerId);
      this.refused.set(ledgerId, this.now());
    }
    return h;
  }

  private async fetchCredentials(ledgerId: string): Promise<Held | null> {
    let creds: VendedCredentials | null;
    try {
      creds = await this.client.credentials(ledgerId);
    } catch {
      creds = null; // a failing credentials endpoint is the same as none: the proxy serves
    }
    if (!creds) return null;
    this.stats.credentials++;
    let store: DirectStore;
    try {
      store = await this.openStore(creds);
    } catch {
      return null; // the client could not be loaded or built: the proxy serves
    }
    this.opened.add(store);
    const expires = Date.parse(creds.expiration);
    return { creds, store, renewAt: Number.isFinite(expires) ? expires - RENEW_EARLY_MS : this.now() + NOT_VENDED_MS };
  }

  private forget(ledgerId: string, h: Held): void {
    this.held.delete(ledgerId);
    this.opened.delete(h.store);
    void h.store.close().catch(() => undefined);
  }

  /** Close every object-store client opened. */
  async close(): Promise<void> {
    this.held.clear();
    await Promise.all([...this.opened].map((s) => s.close().catch(() => undefined)));
    this.opened.clear();
  }
}
