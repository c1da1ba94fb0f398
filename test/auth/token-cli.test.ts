/** `ledgraph token keygen | create | inspect`, through the real CLI entry. */
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/server/cli.js';
import { tokenMain, parseDuration } from '../../src/server/token-cli.js';
import { verifyBearer } from '../../src/server/auth/verify.js';

const SEED = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
const DID = 'did:key:z6MkehRgf7yJbgaGfYsdoAsKdBPE3dj2CYhowQdcjqSJgvVd';

async function run(argv: string[], now?: number): Promise<{ code: number | null; out: string; err: string }> {
  let out = '', err = '';
  const io = { out: (t: string) => { out += t; }, err: (t: string) => { err += t; } };
  const code = now === undefined ? await main(argv, {}, io) : await tokenMain(argv.slice(1), io, () => now);
  return { code, out, err };
}

describe('ledgraph token', () => {
  it('keygen prints a did:key, the public key and the seed, consistent with each other', async () => {
    const r = await run(['token', 'keygen']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as { did: string; public_key: string; private_key: string };
    expect(Object.keys(doc)).toEqual(['did', 'public_key', 'private_key']);
    expect(doc.did).toMatch(/^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]+$/);
    const again = await run(['token', 'create', '--key', doc.private_key, '--read-all']);
    expect(JSON.parse((await run(['token', 'inspect', again.out.trim()])).out).did).toBe(doc.did);
  });

  it('keygen --out writes the seed to a private file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'lg-token-')), 'key');
    const r = await run(['token', 'keygen', '--out', file]);
    const doc = JSON.parse(r.out) as Record<string, string>;
    expect(Object.keys(doc)).toEqual(['did', 'public_key']);
    expect(readFileSync(file, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const created = await run(['token', 'create', '--key', '@' + file, '--read', 'hr']);
    expect(JSON.parse((await run(['token', 'inspect', created.out.trim()])).out).did).toBe(doc['did']);
  });

  it('create mints the auth.md §10 token from the example seed and claims', async () => {
    const r = await run(['token', 'create', '--key', SEED, '--sub', 'alice@example.com', '--aud', 'https://db.example.com',
      '--identity', 'https://example.com/id/alice', '--read', 'hr:main', '--expires-in', '1h'], 1767225600);
    expect(r.code).toBe(0);
    expect(r.out).toBe('eyJhbGciOiJFZERTQSIsImp3ayI6eyJrdHkiOiJPS1AiLCJjcnYiOiJFZDI1NTE5IiwieCI6IkE2RUh2X1BPRUw0ZGNOMFk1MHZBbVdmazFqQ2JwUTFmSGR5R1pCSlZNYmcifX0'
      + '.eyJpc3MiOiJkaWQ6a2V5Ono2TWtlaFJnZjd5SmJnYUdmWXNkb0FzS2RCUEUzZGoyQ1lob3dRZGNqcVNKZ3ZWZCIsInN1YiI6ImFsaWNlQGV4YW1wbGUuY29tIiwiYXVkIjoiaHR0cHM6Ly9kYi5leGFtcGxlLmNvbSIsImlhdCI6MTc2NzIyNTYwMCwiZXhwIjoxNzY3MjI5MjAwLCJsZWRncmFwaC5pZGVudGl0eSI6Imh0dHBzOi8vZXhhbXBsZS5jb20vaWQvYWxpY2UiLCJsZWRncmFwaC5sZWRnZXIucmVhZC5sZWRnZXJzIjpbImhyOm1haW4iXX0'
      + '.0DUAmHzHPFSSDl_qN8zy0ZBFJeiLfpaaN5akcWuI_8CPQwBZALKFcQL3DhvTdYMOPCGV8kOyuqq8CKEDjwU2CA\n');
  });

  it('create: every scope flag, normalised ledgers, extra claims; the result verifies', async () => {
    const r = await run(['token', 'create', '--key', SEED, '--write', 'hr', '--storage-all', '--events', 'a/b:dev', '--events-all',
      '--read-all', '--write-all', '--storage', 'x', '--claims', '{"custom":1}', '--expires-in', '30s'], 1000);
    const claims = JSON.parse((await run(['token', 'inspect', r.out.trim()], 1000)).out).claims;
    expect(claims).toEqual({
      iss: DID, iat: 1000, exp: 1030, 'ledgraph.ledger.read.all': true, 'ledgraph.ledger.write.all': true, 'ledgraph.ledger.write.ledgers': ['hr:main'],
      'ledgraph.storage.all': true, 'ledgraph.storage.ledgers': ['x:main'], 'ledgraph.events.all': true, 'ledgraph.events.ledgers': ['a/b:dev'], custom: 1,
    });
    const p = await verifyBearer(r.out.trim(), { group: 'data', mode: 'required', trustedIssuers: [DID], audience: null, acceptAnyIssuer: false }, null, 1000);
    expect(p.scopes.writeLedgers).toEqual(['hr:main']);
  });

  it('inspect reports signature, issuer match and expiry', async () => {
    const r = await run(['token', 'create', '--key', SEED, '--read-all', '--expires-in', '10'], 1000);
    const doc = JSON.parse((await run(['token', 'inspect', r.out.trim()], 2000)).out);
    expect({ ...doc, header: undefined, claims: undefined }).toEqual({
      did: DID, signature_valid: true, issuer_matches_key: true, expires_at: '1970-01-01T00:16:50.000Z', expired: true,
      header: undefined, claims: undefined,
    });
    const parts = r.out.trim().split('.');
    const forged = JSON.parse((await run(['token', 'inspect', `${parts[0]}.${parts[1]}.${parts[2]!.slice(0, -4)}AAAA`], 1000)).out);
    expect(forged.signature_valid).toBe(false);
  });

  it('usage and errors', async () => {
    expect((await run(['token'])).code).toBe(2);
    expect((await run(['token', '--help'])).out).toContain('ledgraph token <command>');
    expect(await run(['token', 'create', '--read-all'])).toEqual({ code: 2, out: '', err: 'ledgraph: token create needs --key <hex-seed|@file> (make one with ledgraph token keygen)\n' });
    expect(await run(['token', 'create', '--key', 'abcd'])).toEqual({ code: 2, out: '', err: 'ledgraph: --key must be a 32-byte Ed25519 seed in hex (64 characters), or @file holding one\n' });
    expect((await run(['token', 'frob'])).code).toBe(2);
    expect([parseDuration('90'), parseDuration('15m'), parseDuration('7d')]).toEqual([90, 900, 604800]);
    expect(() => parseDuration('1y')).toThrow('invalid duration "1y" (use seconds or 30s, 15m, 1h, 7d)');
  });
});
