/**
 * Direct object-store reads over plain `fetch` with vended credentials: what a browser peer's
 * DirectReader opens (Node peers use the S3 SDK store; Node tests run this same code against
 * s3rver). Each GET goes to a SigV4 presigned URL (@smithy/signature-v4, the AWS SDK's own signer,
 * with SHA-256 and HMAC from WebCrypto), so a browser sends a simple CORS request with no custom
 * headers and therefore no preflight; the bucket only needs a CORS rule allowing GET from the
 * page's origin. Every object is verified against its CID; anything else (404, 403, a CORS or
 * network failure, a corrupt object) is an error the DirectReader answers from the proxy.
 */
import { SignatureV4 } from '@smithy/signature-v4';
import type { CID } from 'multiformats/cid';
import { verifyCid } from '../core/commit/cid.js';
import { forbidden, notFound, storageError } from '../core/errors.js';
import type { DirectStore } from './direct-reader.js';
import type { VendedCredentials } from './proxy-client.js';

type SourceData = string | ArrayBuffer | ArrayBufferView;
const utf8 = new TextEncoder();

/** A copy of the data in a fresh ArrayBuffer (what WebCrypto's typings accept). */
function bytesOf(data: SourceData): Uint8Array<ArrayBuffer> {
  if (typeof data === 'string') return utf8.encode(data);
  if (data instanceof ArrayBuffer) return new Uint8Array(data.slice(0));
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
}

/** SHA-256 (or HMAC-SHA-256 with a secret) over WebCrypto, in the shape the signer asks for. */
export class WebCryptoSha256 {
  private chunks: Uint8Array[] = [];
  constructor(private readonly secret?: SourceData) {}
  update(data: SourceData): void { this.chunks.push(bytesOf(data)); }
  reset(): void { this.chunks = []; }
  async digest(): Promise<Uint8Array> {
    const total = this.chunks.reduce((n, c) => n + c.length, 0);
    const data = new Uint8Array(total);
    let at = 0;
    for (const c of this.chunks) { data.set(c, at); at += c.length; }
    if (this.secret === undefined) return new Uint8Array(await crypto.subtle.digest('SHA-256', data));
    const key = await crypto.subtle.importKey('raw', bytesOf(this.secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    return new Uint8Array(await crypto.subtle.sign('HMAC', key, data));
  }
}

/** RFC 3986 escaping as SigV4 wants it (encodeURIComponent leaves !'()* alone). */
const escape = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());

/** The URL of an object: path style (`endpoint/bucket/key`) or virtual-hosted (`bucket.host/key`). */
export function objectUrl(c: Pick<VendedCredentials, 'bucket' | 'region' | 'endpoint' | 'force_path_style'>, key: string): URL {
  const base = new URL(c.endpoint ?? `https://s3.${c.region}.amazonaws.com`);
  const path = key.split('/').map(escape).join('/');
  const prefix = base.pathname.replace(/\/$/, '');
  if (c.force_path_style) return new URL(`${base.protocol}//${base.host}${prefix}/${escape(c.bucket)}/${path}`);
  return new URL(`${base.protocol}//${c.bucket}.${base.host}${prefix}/${path}`);
}

/** Options of the fetch reader. */
export interface FetchS3ReaderOptions {
  fetch?: typeof fetch;
  /** A GET with no answer in this long fails (and the proxy serves); default 30 s. */
  timeoutMs?: number;
  /** Lifetime of each presigned URL (seconds); default 300. */
  urlTtlSecs?: number;
}

/** Verified object reads from a bucket with vended credentials, over fetch. */
export class FetchS3Reader implements DirectStore {
  private readonly signer: SignatureV4;
  private readonly prefix: string;
  private readonly doFetch: typeof fetch;

  constructor(private readonly creds: VendedCredentials, private readonly opts: FetchS3ReaderOptions = {}) {
    this.signer = new SignatureV4({
      service: 's3', region: creds.region, sha256: WebCryptoSha256,
      credentials: { accessKeyId: creds.access_key_id, secretAccessKey: creds.secret_access_key, sessionToken: creds.session_token },
      // S3 signs the path as sent (escaped once), unlike other services.
      uriEscapePath: false,
    });
    this.prefix = creds.prefix && !creds.prefix.endsWith('/') ? creds.prefix + '/' : creds.prefix;
    this.doFetch = opts.fetch ?? ((input, init) => fetch(input, init));
  }

  /** A presigned GET URL for the object of a CID. */
  async presignedUrl(cid: CID): Promise<string> {
    const url = objectUrl(this.creds, this.prefix + cid.toString());
    const signed = await this.signer.presign({
      method: 'GET', protocol: url.protocol, hostname: url.hostname, port: url.port ? Number(url.port) : undefined,
      path: url.pathname, query: {}, headers: { host: url.host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
    }, { expiresIn: this.opts.urlTtlSecs ?? 300 });
    const query = Object.entries(signed.query ?? {}).map(([k, v]) => `${escape(k)}=${escape(String(v))}`).join('&');
    return `${url.origin}${url.pathname}?${query}`;
  }

  /** The object's bytes, verified against the CID; 404 when the bucket has no such object. */
  async get(cid: CID): Promise<Uint8Array> {
    const where = `s3://${this.creds.bucket}/${this.prefix}`;
    let res: Response;
    try {
      // no-store: the peer keeps objects in its own verified cache (IndexedDB, files); a browser HTTP
      // cache copy would be a second one, and would answer a URL signed in the same second without
      // asking the bucket (so a bucket that stopped allowing this origin would go unnoticed).
      res = await this.doFetch(await this.presignedUrl(cid), { cache: 'no-store', signal: AbortSignal.timeout(this.opts.timeoutMs ?? 30_000) });
    } catch (e) {
      throw storageError(`object store ${where}: GET ${cid.toString()} failed: ${(e as Error).message}`);
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      if (res.status === 404) throw notFound(`object ${cid.toString()} not found in ${where}`);
      if (res.status === 403) throw forbidden(`object store ${where}: GET ${cid.toString()} denied`);
      throw storageError(`object store ${where}: GET ${cid.toString()}: HTTP ${res.status}`);
    }
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (!(await verifyCid(cid, bytes))) throw storageError(`object ${cid.toString()} in ${where} does not match its CID (corrupt or tampered)`);
    return bytes;
  }

  /** Nothing to release: fetch holds no client. */
  async close(): Promise<void> {}
}
