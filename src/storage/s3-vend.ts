/**
 * Credential vending for object-store peers (`GET /storage/credentials`, replication.md §11): STS
 * `AssumeRole` on the configured role with a session policy that narrows the role to reading
 * (`s3:GetObject`) the objects under the server's content prefix, for `--storage-vend-ttl-secs`.
 *
 * Scope: under the shared layout content is content-addressed and shared by every ledger of a
 * server (objects are keyed `<prefix><CID>`, one object stored by two ledgers exists once), so the
 * narrowest prefix a policy can name is the server's content prefix, and the route vends only to
 * callers whose storage scope covers every ledger. Under the per-ledger layout
 * (--s3-ledger-prefixes, per-ledger-store.ts) a ledger's objects are `<prefix><ledger>/<CID>`,
 * and the policy names that prefix alone (see routes/storage-credentials.ts).
 */
import { Agent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { AssumeRoleCommand, STSClient, type STSClientConfig } from '@aws-sdk/client-sts';
import { storageError } from '../core/errors.js';
import type { VendedCredentials } from '../peer/proxy-client.js';
import { splitLedgerId } from '../core/ledger/ledger-id.js';
import { ledgerSegment } from './per-ledger-store.js';
import { S3ContentStore } from './s3-store.js';

export type { VendedCredentials } from '../peer/proxy-client.js';

/** What the vendor needs. */
export interface CredentialVendorOptions {
  bucket: string;
  /** Content prefix as the S3 store uses it (with its trailing `/`, or empty). */
  prefix: string;
  /** Content laid out per ledger (--s3-ledger-prefixes): credentials then read one ledger's prefix. */
  ledgerPrefixes?: boolean;
  region: string;
  roleArn: string;
  /** Lifetime of vended credentials (STS accepts 900 to 43200 seconds). */
  ttlSecs: number;
  /** STS endpoint (an S3-compatible store's, or a test server's); default the SDK's for the region. */
  stsEndpoint?: string;
  /** The S3 endpoint and addressing peers should use. */
  s3Endpoint?: string;
  forcePathStyle?: boolean;
  /** Credentials for calling STS; default the SDK's provider chain. */
  credentials?: STSClientConfig['credentials'];
  /** Current time, for tests of the reuse window. */
  now?: () => number;
}

/** The IAM partition of a region (`aws`, `aws-cn`, `aws-us-gov`), for resource ARNs. */
export function partitionOf(region: string): string {
  if (region.startsWith('cn-')) return 'aws-cn';
  if (region.startsWith('us-gov-')) return 'aws-us-gov';
  return 'aws';
}

/**
 * The session policy: read-only access to the objects under the prefix. Deterministic text, so a
 * test (or an auditor reading CloudTrail) can compare it byte for byte.
 */
export function sessionPolicy(bucket: string, prefix: string, region: string): string {
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: [{ Sid: 'LedgraphReadContent', Effect: 'Allow', Action: ['s3:GetObject'], Resource: [`arn:${partitionOf(region)}:s3:::${bucket}/${prefix}*`] }],
  });
}

/** A session name STS accepts ([\w+=,.@-], 2–64 characters) that says who asked. */
export function sessionName(ledgerId: string): string {
  return `ledgraph-${ledgerId.replace(/[^\w+=,.@-]/g, '-')}`.slice(0, 64);
}

/** Mints scoped, short-lived credentials with STS AssumeRole; reuses a set while more than half its lifetime is left. */
export class CredentialVendor {
  readonly client: STSClient;
  /** Credentials by the prefix they read: one for the server under the shared layout, one per ledger under the per-ledger one. */
  private readonly cached = new Map<string, { creds: VendedCredentials; until: number }>();
  private readonly inflight = new Map<string, Promise<VendedCredentials>>();
  private readonly now: () => number;

  constructor(private readonly opts: CredentialVendorOptions) {
    this.now = opts.now ?? Date.now;
    // No keep-alive: STS is called about once per half lifetime, and an idle socket would hold a closing server open.
    this.client = new STSClient({
      region: opts.region, endpoint: opts.stsEndpoint, credentials: opts.credentials, maxAttempts: 3,
      requestHandler: { httpAgent: new Agent({ keepAlive: false }), httpsAgent: new HttpsAgent({ keepAlive: false }), connectionTimeout: 5000, requestTimeout: 30_000 },
    });
  }

  /** The key prefix credentials for `ledgerId` read: the ledger's own under the per-ledger layout, else the server's. */
  prefixFor(ledgerId: string): string {
    return this.opts.ledgerPrefixes ? `${this.opts.prefix}${ledgerSegment(splitLedgerId(ledgerId).name)}/` : this.opts.prefix;
  }

  /** The session policy of credentials for `ledgerId` (exact text sent to STS). */
  policyFor(ledgerId: string): string {
    return sessionPolicy(this.opts.bucket, this.prefixFor(ledgerId), this.opts.region);
  }

  /**
   * Credentials for a caller reading `ledgerId`. Every ledger (shared layout) or every branch of a
   * ledger (per-ledger layout) with the same prefix shares one set; a new one is minted when less
   * than half of the last one's lifetime is left.
   */
  async vend(ledgerId: string): Promise<VendedCredentials> {
    const prefix = this.prefixFor(ledgerId);
    const hit = this.cached.get(prefix);
    if (hit && this.now() < hit.until) return hit.creds;
    let p = this.inflight.get(prefix);
    if (!p) {
      p = this.assume(ledgerId, prefix).finally(() => { this.inflight.delete(prefix); });
      this.inflight.set(prefix, p);
    }
    return p;
  }

  private async assume(ledgerId: string, prefix: string): Promise<VendedCredentials> {
    const o = this.opts;
    let out;
    try {
      out = await this.client.send(new AssumeRoleCommand({
        RoleArn: o.roleArn, RoleSessionName: sessionName(ledgerId), DurationSeconds: o.ttlSecs, Policy: sessionPolicy(o.bucket, prefix, o.region),
      }));
    } catch (e) {
      throw storageError(`credential vending: STS AssumeRole on ${o.roleArn} failed: ${(e as Error).name ?? ''} ${(e as Error).message}`.trim());
    }
    const c = out.Credentials;
    if (!c?.AccessKeyId || !c.SecretAccessKey || !c.SessionToken || !c.Expiration) {
      throw storageError('credential vending: STS AssumeRole answered without credentials');
    }
    const creds: VendedCredentials = {
      access_key_id: c.AccessKeyId, secret_access_key: c.SecretAccessKey, session_token: c.SessionToken,
      expiration: c.Expiration.toISOString(), bucket: o.bucket, prefix, region: o.region,
      ...(o.s3Endpoint ? { endpoint: o.s3Endpoint } : {}), ...(o.forcePathStyle ? { force_path_style: true } : {}),
    };
    const issued = this.now();
    this.cached.set(prefix, { creds, until: issued + (c.Expiration.getTime() - issued) / 2 });
    return creds;
  }

  /** Release the STS client's connections. */
  close(): void {
    this.client.destroy();
  }
}

/** An S3 ContentStore reading with vended credentials (what a proxy-mode peer's DirectReader opens). */
export function storeWithVendedCredentials(c: VendedCredentials): S3ContentStore {
  return new S3ContentStore({
    bucket: c.bucket, prefix: c.prefix, region: c.region, endpoint: c.endpoint, forcePathStyle: c.force_path_style,
    credentials: { accessKeyId: c.access_key_id, secretAccessKey: c.secret_access_key, sessionToken: c.session_token, expiration: new Date(c.expiration) },
    // A read the bucket cannot serve quickly is better served by the proxy than retried at length.
    maxAttempts: 2,
  });
}
