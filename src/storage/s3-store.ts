/**
 * The S3 ContentStore (Node, `@aws-sdk/client-s3`): objects keyed `<prefix><CID>` in one bucket,
 * verified against their CID on every read, large objects uploaded in parts and read back with
 * parallel ranged GETs, throttling (503 SlowDown) and 5xx retried with backoff by the SDK's
 * standard retry strategy. Works with AWS S3 and S3-compatible stores (endpoint + path style).
 * The decoded-node LRU of the core (--leaf-cache-bytes) sits in front, as for file storage.
 */
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateMultipartUploadCommand, DeleteObjectCommand,
  GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, UploadPartCommand, type S3ClientConfig,
} from '@aws-sdk/client-s3';
import type { CID } from 'multiformats/cid';
import { cidOf } from '../core/commit/cid.js';
import { isLedgraphError, storageError } from '../core/errors.js';
import type { ContentStore } from '../core/store.js';
import { checkPutCid, missingObject, verifiedBytes } from './memory-store.js';
import { PerLedgerContentStore } from './per-ledger-store.js';

/** Where and how to reach the bucket. */
export interface S3StoreOptions {
  bucket: string;
  /** Key prefix (a trailing `/` is added when missing); default none. */
  prefix?: string;
  endpoint?: string;
  region?: string;
  forcePathStyle?: boolean;
  /** Attempts per request, including the first (throttling and 5xx are retried with backoff); default 5. */
  maxAttempts?: number;
  /** Objects at least this large are uploaded in parts and read with parallel ranged GETs; default 16 MiB. */
  multipartThreshold?: number;
  /** Part size of multipart uploads and ranged reads (S3's minimum is 5 MiB); default 8 MiB. */
  partSize?: number;
  /** A request with no response progress for this long fails (and is retried); default 60 s. */
  requestTimeoutMs?: number;
  /** Credentials; default the SDK's provider chain (environment, profile, instance role). */
  credentials?: S3ClientConfig['credentials'];
  /** A client to share (withPrefix); the store then leaves closing it to its owner. */
  client?: S3Client;
}

const MiB = 1024 * 1024;

/** Parse `s3://bucket/prefix` into bucket and prefix. */
export function parseS3Url(url: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (!m) throw new Error(`expected s3://bucket/prefix, got ${JSON.stringify(url)}`);
  return { bucket: m[1]!, prefix: m[2] ?? '' };
}

const status = (e: unknown) => (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
const isMissing = (e: unknown) => status(e) === 404 || ['NoSuchKey', 'NotFound'].includes((e as { name?: string }).name ?? '');

/** Content-addressed objects in an S3 bucket. */
export class S3ContentStore implements ContentStore {
  readonly client: S3Client;
  readonly bucket: string;
  readonly prefix: string;
  private readonly threshold: number;
  private readonly partSize: number;
  private readonly ownsClient: boolean;

  constructor(private readonly opts: S3StoreOptions) {
    this.bucket = opts.bucket;
    this.prefix = S3ContentStore.normalPrefix(opts.prefix);
    this.partSize = Math.max(5 * MiB, opts.partSize ?? 8 * MiB);
    this.threshold = Math.max(this.partSize, opts.multipartThreshold ?? 16 * MiB);
    this.ownsClient = !opts.client;
    this.client = opts.client ?? new S3Client({
      endpoint: opts.endpoint, region: opts.region ?? 'us-east-1', forcePathStyle: opts.forcePathStyle,
      credentials: opts.credentials, maxAttempts: opts.maxAttempts ?? 5, retryMode: 'standard',
      requestHandler: { connectionTimeout: 5000, requestTimeout: opts.requestTimeoutMs ?? 60_000 },
      // Our CID already covers integrity; extra checksums (aws-chunked trailers) break many S3-compatible stores.
      requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  /** A key prefix as the store uses it: empty, or ending in `/`. */
  static normalPrefix(prefix: string | undefined): string {
    return prefix && !prefix.endsWith('/') ? prefix + '/' : (prefix ?? '');
  }

  /** The same bucket under another key prefix, over this store's client (which this store keeps owning). */
  withPrefix(prefix: string): S3ContentStore {
    return new S3ContentStore({ ...this.opts, prefix, client: this.client });
  }

  /**
   * This bucket and prefix laid out per ledger (--s3-ledger-prefixes): ledger `name` at
   * `<prefix><ledgerSegment(name)>/<CID>`, over this store's client; objects of the shared layout
   * (`<prefix><CID>`, written before) stay readable. The returned store owns this one.
   */
  perLedger(): PerLedgerContentStore {
    return new PerLedgerContentStore({ open: (segment) => this.withPrefix(`${this.prefix}${segment}/`), shared: this, where: this.where() });
  }

  /** The object key of a CID. */
  keyOf(cid: CID): string {
    return this.prefix + cid.toString();
  }

  private where(): string {
    return `s3://${this.bucket}/${this.prefix}`;
  }

  private fail(what: string, e: unknown): Error {
    if (isLedgraphError(e)) return e;
    return storageError(`object store ${this.where()}: ${what}: ${(e as Error).name ?? ''} ${(e as Error).message}`.trim());
  }

  /** Store bytes under the CID of `codec`. */
  async put(codec: number, bytes: Uint8Array): Promise<CID> {
    const cid = await cidOf(codec, bytes);
    await this.upload(cid, bytes);
    return cid;
  }

  /** Store bytes under a CID the caller computed, after checking it. */
  async putWithCid(cid: CID, bytes: Uint8Array): Promise<void> {
    await checkPutCid(cid, bytes);
    await this.upload(cid, bytes);
  }

  private async upload(cid: CID, bytes: Uint8Array): Promise<void> {
    const Key = this.keyOf(cid);
    try {
      if (bytes.length < this.threshold) {
        await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body: bytes, ContentLength: bytes.length }));
        return;
      }
      const { UploadId } = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key }));
      try {
        const parts: { ETag: string | undefined; PartNumber: number }[] = [];
        for (let off = 0, n = 1; off < bytes.length; off += this.partSize, n++) {
          const Body = bytes.subarray(off, Math.min(off + this.partSize, bytes.length));
          const r = await this.client.send(new UploadPartCommand({ Bucket: this.bucket, Key, UploadId, PartNumber: n, Body, ContentLength: Body.length }));
          parts.push({ ETag: r.ETag, PartNumber: n });
        }
        await this.client.send(new CompleteMultipartUploadCommand({ Bucket: this.bucket, Key, UploadId, MultipartUpload: { Parts: parts } }));
      } catch (e) {
        await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key, UploadId })).catch(() => {});
        throw e;
      }
    } catch (e) {
      throw this.fail(`cannot store ${cid.toString()}`, e);
    }
  }

  /**
   * The bytes of a CID, verified. A large object (Content-Length at least the multipart threshold)
   * is not streamed through one connection: its body is dropped and it is fetched as parallel ranged GETs.
   */
  async get(cid: CID): Promise<Uint8Array> {
    const Key = this.keyOf(cid);
    let bytes: Uint8Array;
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key }));
      const total = r.ContentLength ?? 0;
      if (total < this.threshold) {
        bytes = await r.Body!.transformToByteArray();
      } else {
        (r.Body as { destroy?: () => void }).destroy?.();
        bytes = new Uint8Array(total);
        const ranges: [number, number][] = [];
        for (let off = 0; off < total; off += this.partSize) ranges.push([off, Math.min(off + this.partSize, total) - 1]);
        await Promise.all(ranges.map(async ([a, b]) => bytes.set(await this.range(Key, a, b), a)));
      }
    } catch (e) {
      if (isMissing(e)) throw missingObject(cid, this.where());
      throw this.fail(`cannot read ${cid.toString()}`, e);
    }
    return verifiedBytes(cid, bytes, this.where());
  }

  /** Bytes [start, end] of an object (one ranged GET); unverified on its own, so only used to assemble a whole object. */
  private async range(Key: string, start: number, end: number): Promise<Uint8Array> {
    const r = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key, Range: `bytes=${start}-${end}` }));
    const part = await r.Body!.transformToByteArray();
    if (part.length !== end - start + 1) throw storageError(`object store ${this.where()}: short ranged read of ${Key}`);
    return part;
  }

  /** True when the object exists. */
  async has(cid: CID): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.keyOf(cid) }));
      return true;
    } catch (e) {
      if (isMissing(e)) return false;
      throw this.fail(`cannot check ${cid.toString()}`, e);
    }
  }

  /** Delete the object; true when it existed (S3's DELETE does not say, so HEAD first). */
  async delete(cid: CID): Promise<boolean> {
    if (!(await this.has(cid))) return false;
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.keyOf(cid) }));
      return true;
    } catch (e) {
      throw this.fail(`cannot delete ${cid.toString()}`, e);
    }
  }

  /** Release the HTTP connections (a store sharing another's client leaves them to it). */
  async close(): Promise<void> {
    if (this.ownsClient) this.client.destroy();
  }
}
