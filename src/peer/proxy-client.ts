/**
 * The peer's HTTP client of a transaction server's storage proxy and pack endpoint
 * (replication.md §§8, 11): nameservice records, single objects and one pack of missing commits.
 * Every object is verified against its CID (digest and kind) before it is handed out; a mismatch
 * is a 502 naming the object, and the bytes are dropped.
 */
import { CID } from 'multiformats/cid';
import { Codec, verifyCid } from '../core/commit/cid.js';
import { LedgraphError, notFound, storageError } from '../core/errors.js';
import { NETWORK_MAX_FRAME_BYTES, PACK_CONTENT_TYPE, PACK_PROTOCOL } from '../core/pack/frames.js';
import { readPack } from '../core/pack/reader.js';
import type { NsRecord } from '../core/store.js';

const KINDS: ReadonlySet<number> = new Set(Object.values(Codec).filter((c) => c !== Codec.gcRecord));

/** Bytes and requests fetched from the transaction server (tests and the bench read these). */
export interface FetchStats { objects: number; bytes: number; byKind: Record<string, number>; bytesByKind: Record<string, number>; records: number; packs: number }

/** Name of a Ledgraph kind codec (for counting and errors). */
export function kindName(code: number): string {
  for (const [k, v] of Object.entries(Codec)) if (v === code) return k;
  return `0x${code.toString(16)}`;
}

/**
 * The body of `GET /storage/credentials` (replication.md §11): short-lived object-store credentials
 * for reading `<prefix><CID>` objects of the bucket; `endpoint` and `force_path_style` are given
 * for S3-compatible stores.
 */
export interface VendedCredentials {
  access_key_id: string;
  secret_access_key: string;
  session_token: string;
  /** ISO 8601 instant the credentials stop working. */
  expiration: string;
  bucket: string;
  prefix: string;
  region: string;
  endpoint?: string;
  force_path_style?: boolean;
}

/** Where a peer reads from: the transaction server's API base and a storage token. */
export interface ProxyClientOptions {
  /** API base of the transaction server, e.g. http://tx:8090/v1/ledgraph. */
  api: string;
  token?: string | null;
  fetch?: typeof fetch;
}

/** Storage-proxy and pack reads of one transaction server. */
export class ProxyClient {
  readonly stats: FetchStats = { objects: 0, bytes: 0, byKind: {}, bytesByKind: {}, records: 0, packs: 0 };
  private readonly doFetch: typeof fetch;

  constructor(private readonly opts: ProxyClientOptions) {
    this.doFetch = opts.fetch ?? ((input, init) => fetch(input, init));
  }

  get api(): string { return this.opts.api; }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return this.opts.token ? { Authorization: `Bearer ${this.opts.token}`, ...extra } : extra;
  }

  private async failure(res: Response, what: string): Promise<LedgraphError> {
    const text = await res.text().catch(() => '');
    let msg = text.slice(0, 300);
    try { msg = (JSON.parse(text) as { message?: string }).message ?? msg; } catch { /* not JSON */ }
    if (res.status === 404) return notFound(`${what}: not found on the transaction server (${msg})`);
    return storageError(`${what}: HTTP ${res.status} from the transaction server${msg ? ` (${msg})` : ''}`);
  }

  /** `GET /storage/ns/<ledger>`: the current record, or null when the server does not serve it (404). */
  async record(ledgerId: string): Promise<NsRecord | null> {
    const res = await this.doFetch(`${this.opts.api}/storage/ns/${encodeURIComponent(ledgerId)}`, { headers: this.headers() });
    this.stats.records++;
    if (res.status === 404) { await res.body?.cancel(); return null; }
    if (!res.ok) throw await this.failure(res, `nameservice record of ${ledgerId}`);
    const rec = (await res.json()) as NsRecord & { serving?: string[] };
    delete rec.serving;
    return rec;
  }

  /** `GET /storage/credentials?ledger=`: credentials for reading the object store directly, or null when not vended (404). */
  async credentials(ledgerId: string): Promise<VendedCredentials | null> {
    const res = await this.doFetch(`${this.opts.api}/storage/credentials?ledger=${encodeURIComponent(ledgerId)}`, { headers: this.headers() });
    if (res.status === 404) { await res.body?.cancel(); return null; }
    if (!res.ok) throw await this.failure(res, `storage credentials for ${ledgerId}`);
    const c = (await res.json()) as VendedCredentials;
    for (const k of ['access_key_id', 'secret_access_key', 'session_token', 'expiration', 'bucket', 'region'] as const) {
      if (typeof c[k] !== 'string' || !c[k]) throw storageError(`storage credentials for ${ledgerId}: the answer lacks ${k}`);
    }
    if (typeof c.prefix !== 'string') throw storageError(`storage credentials for ${ledgerId}: the answer lacks prefix`);
    return c;
  }

  /** `GET /storage/objects/<cid>?ledger=`: the object's bytes, verified against the CID. */
  async object(cid: CID, ledgerId: string): Promise<Uint8Array> {
    const url = `${this.opts.api}/storage/objects/${cid.toString()}?ledger=${encodeURIComponent(ledgerId)}`;
    const res = await this.doFetch(url, { headers: this.headers() });
    if (!res.ok) throw await this.failure(res, `object ${cid.toString()} of ${ledgerId}`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    await verifyObject(cid, bytes);
    this.count(cid, bytes.length);
    return bytes;
  }

  /**
   * One `POST /pack/<ledger>` of the commits from `want` back to `have` (no transaction blobs, no
   * indexes); every frame is verified by the pack reader and handed to `onObject`. Returns the
   * number of commits received. Nothing counts unless the stream reached its End frame.
   */
  async pack(ledgerId: string, want: string, have: string[], onObject: (cid: CID, bytes: Uint8Array) => Promise<void>): Promise<number> {
    const res = await this.doFetch(`${this.opts.api}/pack/${encodeURIComponent(ledgerId)}`, {
      method: 'POST',
      headers: this.headers({ 'Content-Type': 'application/json', Accept: PACK_CONTENT_TYPE }),
      body: JSON.stringify({ protocol: PACK_PROTOCOL, want: [want], have, include_indexes: false, include_txns: false }),
    });
    if (!res.ok || !res.body) throw await this.failure(res, `pack of ${ledgerId}`);
    this.stats.packs++;
    const received: { cid: CID; bytes: Uint8Array }[] = [];
    let ended = false;
    for await (const f of readPack(res.body as unknown as AsyncIterable<Uint8Array>, { maxFrameBytes: NETWORK_MAX_FRAME_BYTES })) {
      if (f.type === 'data') received.push({ cid: f.cid, bytes: f.bytes });
      else if (f.type === 'error') throw storageError(`pack of ${ledgerId}: ${f.message}`);
      else if (f.type === 'end') ended = true;
    }
    if (!ended) throw storageError(`pack of ${ledgerId}: the stream ended without its End frame`);
    let commits = 0;
    for (const o of received) {
      this.count(o.cid, o.bytes.length);
      if (o.cid.code === Codec.commit) commits++;
      await onObject(o.cid, o.bytes);
    }
    return commits;
  }

  private count(cid: CID, bytes: number): void {
    this.stats.objects++;
    this.stats.bytes += bytes;
    const k = kindName(cid.code);
    this.stats.byKind[k] = (this.stats.byKind[k] ?? 0) + 1;
    this.stats.bytesByKind[k] = (this.stats.bytesByKind[k] ?? 0) + bytes;
  }
}

/** Throw a clear 502 unless the bytes are a Ledgraph object of the CID's kind hashing to its digest. */
export async function verifyObject(cid: CID, bytes: Uint8Array): Promise<void> {
  if (!KINDS.has(cid.code)) throw storageError(`object ${cid.toString()} is not of a Ledgraph kind (codec ${kindName(cid.code)})`);
  if (!(await verifyCid(cid, bytes))) {
    throw storageError(`object ${cid.toString()} (${kindName(cid.code)}) from the transaction server does not match its CID: tampered or corrupted; it was not used or cached`);
  }
}
