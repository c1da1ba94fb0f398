/**
 * The STS credential vendor against a loopback STS endpoint that verifies the SigV4 signature of
 * each AssumeRole independently (test/storage/sts-server.ts): the exact request (role, session
 * name, duration, session policy text), reuse of a set for half its lifetime, and STS failures as
 * clear 502s. When moto's server is installed (pip's `moto[server]`), the same vendor also runs
 * against moto's STS implementation.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLedgraphError } from '../../src/core/errors.js';
import { CredentialVendor, partitionOf, sessionName, sessionPolicy } from '../../src/storage/s3-vend.js';
import { startSts, type TestSts } from './sts-server.js';

const CALLER = { accessKeyId: 'AKIATXSERVER', secretAccessKey: 'tx-server-secret' };
const ROLE = 'arn:aws:iam::123456789012:role/ledgraph-peer-read';
const POLICY = '{"Version":"2012-10-17","Statement":[{"Sid":"LedgraphReadContent","Effect":"Allow","Action":["s3:GetObject"],'
  + '"Resource":["arn:aws:s3:::content/prod/ledgers/*"]}]}';

describe('CredentialVendor against a loopback STS', () => {
  let sts: TestSts;
  beforeAll(async () => { sts = await startSts({ caller: CALLER, issue: { accessKeyId: 'ASIAVENDED', secretAccessKey: 'vended-secret' } }); });
  afterAll(async () => { await sts?.close(); });

  const vendor = (over: Partial<ConstructorParameters<typeof CredentialVendor>[0]> = {}) => new CredentialVendor({
    bucket: 'content', prefix: 'prod/ledgers/', region: 'us-east-1', roleArn: ROLE, ttlSecs: 900,
    stsEndpoint: sts.endpoint, s3Endpoint: 'http://127.0.0.1:9', forcePathStyle: true, credentials: CALLER, ...over,
  });

  it('signs AssumeRole with the server\'s keys and sends exactly the session policy for the content prefix', async () => {
    const v = vendor();
    const before = Date.now();
    const c = await v.vend('hr:main');
    v.close();
    expect(sts.rejected).toEqual([]);
    expect(sts.calls).toEqual([{ RoleArn: ROLE, RoleSessionName: 'ledgraph-hr-main', DurationSeconds: 900, Policy: POLICY, accessKeyId: CALLER.accessKeyId }]);
    expect(c).toEqual({
      access_key_id: 'ASIAVENDED', secret_access_key: 'vended-secret', session_token: 'session-token-1', expiration: c.expiration,
      bucket: 'content', prefix: 'prod/ledgers/', region: 'us-east-1', endpoint: 'http://127.0.0.1:9', force_path_style: true,
    });
    const ttl = Date.parse(c.expiration) - before;
    expect(ttl).toBeGreaterThan(898_000);
    expect(ttl).toBeLessThanOrEqual(901_000);
  });

  it('reuses a set while more than half its lifetime is left, then mints a new one', async () => {
    let now = Date.now();
    const v = vendor({ ttlSecs: 3600, now: () => now });
    const calls = sts.calls.length;
    const a = await v.vend('hr:main');
    const [b, c] = await Promise.all([v.vend('ops:main'), v.vend('hr:main')]);
    expect(sts.calls.length).toBe(calls + 1);
    expect(b).toBe(a);
    expect(c).toBe(a);
    now += 1801_000; // past half of 3600 s
    const d = await v.vend('ops:main');
    v.close();
    expect(sts.calls.length).toBe(calls + 2);
    expect(d.session_token).not.toBe(a.session_token);
    expect(sts.calls.at(-1)).toMatchObject({ RoleSessionName: 'ledgraph-ops-main', DurationSeconds: 3600 });
  });

  it('per-ledger layout: one prefix and policy per ledger, shared by its branches, one set per prefix', async () => {
    let now = Date.now();
    const v = vendor({ ledgerPrefixes: true, ttlSecs: 3600, now: () => now });
    expect(v.prefixFor('team/hr:dev')).toBe('prod/ledgers/team~hr/');
    expect(v.policyFor('team/hr')).toBe(POLICY.replace('prod/ledgers/*', 'prod/ledgers/team~hr/*'));
    const calls = sts.calls.length;
    const [a, b, c] = await Promise.all([v.vend('team/hr:main'), v.vend('team/hr:dev'), v.vend('team:main')]);
    expect(sts.calls.length).toBe(calls + 2);
    expect(b).toBe(a);
    expect(a.prefix).toBe('prod/ledgers/team~hr/');
    expect(c.prefix).toBe('prod/ledgers/team/');
    expect(sts.calls.slice(calls).map((x) => x.Policy).sort()).toEqual([
      POLICY.replace('prod/ledgers/*', 'prod/ledgers/team/*'), POLICY.replace('prod/ledgers/*', 'prod/ledgers/team~hr/*'),
    ]);
    now += 1801_000; // past half of 3600 s: each prefix is minted again on its own
    const d = await v.vend('team/hr:dev');
    v.close();
    expect(sts.calls.length).toBe(calls + 3);
    expect(d.session_token).not.toBe(a.session_token);
    expect(d.prefix).toBe('prod/ledgers/team~hr/');
  });

  it('reports a refused signature or an STS error as a 502 naming the role', async () => {
    const bad = vendor({ credentials: { accessKeyId: CALLER.accessKeyId, secretAccessKey: 'wrong' } });
    const e1 = await bad.vend('hr:main').catch((e: unknown) => e);
    bad.close();
    expect(isLedgraphError(e1) && e1.status).toBe(502);
    expect((e1 as Error).message).toContain(`STS AssumeRole on ${ROLE} failed: SignatureDoesNotMatch`);
    expect(sts.rejected).toEqual(['signature does not match']);
    sts.failWith = { status: 403, code: 'AccessDenied', message: 'not authorized to perform sts:AssumeRole' };
    const v = vendor();
    const e2 = await v.vend('hr:main').catch((e: unknown) => e);
    v.close();
    sts.failWith = null;
    expect(isLedgraphError(e2) && e2.status).toBe(502);
    expect((e2 as Error).message).toContain('AccessDenied');
  });

  it('names resources in the region\'s partition and sessions in STS\'s alphabet', () => {
    expect(partitionOf('cn-north-1')).toBe('aws-cn');
    expect(partitionOf('us-gov-west-1')).toBe('aws-us-gov');
    expect(JSON.parse(sessionPolicy('b', '', 'cn-north-1')).Statement[0].Resource).toEqual(['arn:aws-cn:s3:::b/*']);
    expect(sessionName('people/eu:dev branch')).toBe('ledgraph-people-eu-dev-branch');
    expect(sessionName('x'.repeat(100))).toHaveLength(64);
  });
});

async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => ok(p)); });
  });
}

/** moto's server (pip `moto[server]`), when installed. */
async function startMoto(): Promise<{ endpoint: string; stop(): void } | null> {
  const port = await freePort();
  let child: ChildProcess;
  try {
    child = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  } catch {
    return null;
  }
  const failed = new Promise<null>((ok) => { child.once('error', () => ok(null)); child.once('exit', () => ok(null)); });
  const endpoint = `http://127.0.0.1:${port}`;
  const up = (async () => {
    for (let i = 0; i < 100; i++) {
      try { if ((await fetch(`${endpoint}/moto-api/`)).status < 500) return { endpoint, stop: () => { child.kill(); } }; } catch { /* not yet */ }
      await new Promise((r) => setTimeout(r, 100));
    }
    child.kill();
    return null;
  })();
  return Promise.race([up, failed]);
}

describe('CredentialVendor against moto\'s STS (when moto_server is installed)', () => {
  let moto: Awaited<ReturnType<typeof startMoto>> = null;
  beforeAll(async () => { moto = await startMoto(); }, 30_000);
  afterAll(() => { moto?.stop(); });

  it('gets temporary credentials for the requested lifetime', async (ctx) => {
    if (!moto) { console.warn('moto_server not installed: skipping the moto STS check'); ctx.skip(); return; }
    const v = new CredentialVendor({
      bucket: 'content', prefix: 'p/', region: 'us-east-1', roleArn: 'arn:aws:iam::123456789012:role/peer-read', ttlSecs: 1200,
      stsEndpoint: moto.endpoint, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
    });
    const before = Date.now();
    const c = await v.vend('hr:main');
    v.close();
    expect(c.access_key_id).toMatch(/^ASIA[A-Z0-9]{12,}$/);
    expect(c.secret_access_key.length).toBeGreaterThan(20);
    expect(c.session_token.length).toBeGreaterThan(20);
    const ttl = Date.parse(c.expiration) - before;
    expect(ttl).toBeGreaterThan(1195_000);
    expect(ttl).toBeLessThan(1205_000);
  });

  it('per-ledger layout: moto accepts each ledger\'s session policy and mints a set per ledger', async (ctx) => {
    if (!moto) { console.warn('moto_server not installed: skipping the moto STS check'); ctx.skip(); return; }
    const v = new CredentialVendor({
      bucket: 'content', prefix: 'p/', region: 'us-east-1', roleArn: 'arn:aws:iam::123456789012:role/peer-read', ttlSecs: 900, ledgerPrefixes: true,
      stsEndpoint: moto.endpoint, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
    });
    const [hr, dev, ops] = [await v.vend('team/hr:main'), await v.vend('team/hr:dev'), await v.vend('ops')];
    v.close();
    expect([hr.prefix, dev.prefix, ops.prefix]).toEqual(['p/team~hr/', 'p/team~hr/', 'p/ops/']);
    expect(dev).toBe(hr);
    expect(ops.access_key_id).toMatch(/^ASIA[A-Z0-9]{12,}$/);
    expect(ops.access_key_id).not.toBe(hr.access_key_id);
  });
});
