/** auth.md §3, §5, §10: did:key vectors, minting byte for byte, and every verification step's message. */
import { describe, expect, it } from 'vitest';
import {
  b64uDecode, b64uEncode, bytesHex, didKeyFromPublicKey, ed25519FromSeed, hexBytes, mintToken, parseCompactJws, publicKeyFromDidKey, signCompact,
} from '../../src/server/auth/jws.js';
import { normalizeLedgerList, verifyBearer } from '../../src/server/auth/verify.js';
import type { GroupSettings } from '../../src/server/auth/settings.js';

const SEED = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
const DID = 'did:key:z6MkehRgf7yJbgaGfYsdoAsKdBPE3dj2CYhowQdcjqSJgvVd';
const PART1 = 'eyJhbGciOiJFZERTQSIsImp3ayI6eyJrdHkiOiJPS1AiLCJjcnYiOiJFZDI1NTE5IiwieCI6IkE2RUh2X1BPRUw0ZGNOMFk1MHZBbVdmazFqQ2JwUTFmSGR5R1pCSlZNYmcifX0';
const PART2 = 'eyJpc3MiOiJkaWQ6a2V5Ono2TWtlaFJnZjd5SmJnYUdmWXNkb0FzS2RCUEUzZGoyQ1lob3dRZGNqcVNKZ3ZWZCIsInN1YiI6ImFsaWNlQGV4YW1wbGUuY29tIiwiYXVkIjoiaHR0cHM6Ly9kYi5leGFtcGxlLmNvbSIsImlhdCI6MTc2NzIyNTYwMCwiZXhwIjoxNzY3MjI5MjAwLCJsZWRncmFwaC5pZGVudGl0eSI6Imh0dHBzOi8vZXhhbXBsZS5jb20vaWQvYWxpY2UiLCJsZWRncmFwaC5sZWRnZXIucmVhZC5sZWRnZXJzIjpbImhyOm1haW4iXX0';
const PART3 = '0DUAmHzHPFSSDl_qN8zy0ZBFJeiLfpaaN5akcWuI_8CPQwBZALKFcQL3DhvTdYMOPCGV8kOyuqq8CKEDjwU2CA';
const CLAIMS = {
  iss: DID, sub: 'alice@example.com', aud: 'https://db.example.com', iat: 1767225600, exp: 1767229200,
  'ledgraph.identity': 'https://example.com/id/alice', 'ledgraph.ledger.read.ledgers': ['hr:main'],
};
const DATA: GroupSettings = { group: 'data', mode: 'required', trustedIssuers: [DID], audience: 'https://db.example.com', acceptAnyIssuer: false };
const AT_0030 = Date.parse('2026-01-01T00:30:00Z') / 1000;

async function failure(p: Promise<unknown>): Promise<string> {
  try { await p; } catch (e) { return (e as Error).message; }
  return 'verified';
}

describe('did:key (§3)', () => {
  it('matches the spec test vector both ways', () => {
    const key = hexBytes('a8def12ad736f8840f836a46c66c9f3e2015d1ea2c69d546c050fef746bd63b3')!;
    expect(didKeyFromPublicKey(key)).toBe('did:key:z6MkqpTi7zUDy5nnSfpLf7SPGsepMNJAxRiH1jbCZbuaZoEz');
    expect(bytesHex(publicKeyFromDidKey('did:key:z6MkqpTi7zUDy5nnSfpLf7SPGsepMNJAxRiH1jbCZbuaZoEz')!)).toBe(bytesHex(key));
  });

  it('rejects other multicodecs, lengths and encodings', () => {
    expect(publicKeyFromDidKey('did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme')).toBeNull();
    expect(publicKeyFromDidKey('did:web:example.com')).toBeNull();
    expect(publicKeyFromDidKey('did:key:z0OIl')).toBeNull();
  });

  it('base64url round-trips without padding', () => {
    for (const n of [0, 1, 2, 3, 31, 32, 64]) {
      const b = new Uint8Array(n).map((_, i) => (i * 37 + 11) & 255);
      expect(b64uEncode(b)).not.toContain('=');
      expect([...b64uDecode(b64uEncode(b))!]).toEqual([...b]);
    }
    expect(b64uDecode('a+b/')).toBeNull();
  });
});

describe('§10 worked example: minting', () => {
  it('derives the public key, did:key and JWK x from the seed', async () => {
    const s = await ed25519FromSeed(hexBytes(SEED)!);
    expect(bytesHex(s.publicKey)).toBe('03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8');
    expect(s.did).toBe(DID);
    expect(s.jwk).toEqual({ kty: 'OKP', crv: 'Ed25519', x: 'A6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg' });
  });

  it('produces the exact token of the spec', async () => {
    const token = await mintToken(await ed25519FromSeed(hexBytes(SEED)!), CLAIMS);
    expect(token).toBe(`${PART1}.${PART2}.${PART3}`);
  });
});

describe('§10 worked example: verifying at 2026-01-01T00:30:00Z', () => {
  const token = `${PART1}.${PART2}.${PART3}`;

  it('yields alice with read on hr:main and no write', async () => {
    expect(await verifyBearer(token, DATA, null, AT_0030)).toEqual({
      kind: 'bearer', authMethod: 'embedded_jwk', issuer: DID, subject: 'alice@example.com', identity: 'https://example.com/id/alice', expiresAt: 1767229200,
      scopes: { readAll: false, readLedgers: ['hr:main'], writeAll: false, writeLedgers: [], storageAll: false, storageLedgers: [], eventsAll: false, eventsLedgers: [], eventsGraphSources: [] },
    });
  });

  it('is expired at 2026-01-01T01:01:01Z (past exp + 60 s), still valid at exp + 60', async () => {
    expect(await failure(verifyBearer(token, DATA, null, Date.parse('2026-01-01T01:01:01Z') / 1000))).toBe('Token expired');
    expect(await failure(verifyBearer(token, DATA, null, 1767229200 + 60))).toBe('verified');
  });
});

describe('verification steps and messages (§3)', () => {
  const signer = () => ed25519FromSeed(hexBytes(SEED)!);
  const now = AT_0030;
  const base = { iss: DID, exp: now + 3600, 'ledgraph.ledger.read.all': true };
  const verify = (t: string, rules: Partial<GroupSettings> = {}) => failure(verifyBearer(t, { ...DATA, audience: null, ...rules }, null, now));

  it('step 1: structure', async () => {
    expect(await verify('abc')).toBe('Invalid token: expected three dot-separated parts');
    expect(await verify('YWJj.YWJj.YWJj')).toBe('Invalid token: header is not JSON');
    expect(await verify('!!.b.c')).toBe('Invalid token: parts must be base64url');
  });

  it('dispatch: neither jwk nor kid', async () => {
    const t = `${b64uEncode(new TextEncoder().encode('{"alg":"EdDSA"}'))}.${PART2}.${PART3}`;
    expect(await verify(t)).toBe('Token has neither embedded JWK nor kid');
  });

  it('step 2: alg must be EdDSA (none included); crit refused', async () => {
    const s = await signer();
    expect(await verify(await signCompact(s, new TextEncoder().encode(JSON.stringify(base)), { alg: 'none' }))).toBe('Invalid token: alg must be EdDSA');
    expect(await verify(await signCompact(s, new TextEncoder().encode(JSON.stringify(base)), { crit: ['exp'] }))).toBe('Invalid token: crit is not supported');
  });

  it('step 3: signature', async () => {
    const t = (await mintToken(await signer(), base)).split('.');
    const tampered = `${t[0]}.${b64uEncode(new TextEncoder().encode(JSON.stringify({ ...base, 'ledgraph.ledger.write.all': true })))}.${t[2]}`;
    expect(await verify(tampered)).toBe('Invalid token: bad signature');
  });

  it('step 4: issuer format and match', async () => {
    const s = await signer();
    expect(await verify(await mintToken(s, { ...base, iss: 'https://issuer' }))).toBe('invalid issuer format');
    expect(await verify(await mintToken(s, { ...base, iss: 'did:key:z6MkqpTi7zUDy5nnSfpLf7SPGsepMNJAxRiH1jbCZbuaZoEz' }))).toBe('issuer mismatch');
  });

  it('step 5: exp required, nbf and iat with 60 s skew', async () => {
    const s = await signer();
    expect(await verify(await mintToken(s, { iss: DID, 'ledgraph.ledger.read.all': true }))).toBe('Invalid token: exp is required');
    expect(await verify(await mintToken(s, { ...base, nbf: now + 61 }))).toBe('token not yet valid');
    expect(await verify(await mintToken(s, { ...base, nbf: now + 60 }))).toBe('verified');
    expect(await verify(await mintToken(s, { ...base, iat: now + 61 }))).toBe('token not yet valid (issued in the future)');
  });

  it('step 6: audience (string or array) when configured', async () => {
    const s = await signer();
    const rules = { audience: 'https://db.example.com' };
    expect(await verify(await mintToken(s, base), rules)).toBe('Invalid token: audience mismatch');
    expect(await verify(await mintToken(s, { ...base, aud: ['x', 'https://db.example.com'] }), rules)).toBe('verified');
    expect(await verify(await mintToken(s, { ...base, aud: 'https://other' }), rules)).toBe('Invalid token: audience mismatch');
  });

  it('step 7: trust', async () => {
    const t = await mintToken(await signer(), base);
    expect(await verify(t, { trustedIssuers: [] })).toBe('Untrusted issuer');
    expect(await verify(t, { trustedIssuers: [], acceptAnyIssuer: true })).toBe('verified');
  });

  it('step 8: the token must grant something to the group', async () => {
    const s = await signer();
    expect(await verify(await mintToken(s, { iss: DID, exp: now + 60 }))).toBe('token authorizes no resources');
    expect(await verify(await mintToken(s, { iss: DID, exp: now + 60, 'ledgraph.storage.ledgers': ['x'] }))).toBe('verified');
    expect(await verify(await mintToken(s, { iss: DID, exp: now + 60, 'ledgraph.ledger.read.all': true }), { group: 'events' })).toBe('token authorizes no resources');
    expect(await verify(await mintToken(s, { iss: DID, exp: now + 60, 'ledgraph.events.all': true }), { group: 'events' })).toBe('verified');
    expect(await verify(await mintToken(s, { iss: DID, exp: now + 60 }), { group: 'admin' })).toBe('verified');
  });

  it('claim ledger lists are normalised', () => {
    expect(normalizeLedgerList(['x', 'hr:main', 'a/b:dev', 'bad id', 7, 'hr'])).toEqual(['x:main', 'hr:main', 'a/b:dev', 'hr:main'].filter((v, i, a) => a.indexOf(v) === i));
    expect(normalizeLedgerList('hr')).toEqual([]);
  });

  it('parses a compact JWS', () => {
    const j = parseCompactJws(`${PART1}.${PART2}.${PART3}`);
    expect(j.header).toEqual({ alg: 'EdDSA', jwk: { kty: 'OKP', crv: 'Ed25519', x: 'A6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg' } });
    expect(j.signature.length).toBe(64);
  });
});
