/**
 * auth.md §6 over real HTTP: for every endpoint group and auth mode, the five credentials (none,
 * expired, untrusted issuer, scope on another ledger, valid) with exact status and @type.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DID_A, outcome, signerA, signerB, startAuthServer, token, type AuthServer } from './helpers.js';
import type { AuthMode } from '../../src/server/config.js';

type Case = 'none' | 'expired' | 'untrusted' | 'otherLedger' | 'valid';
const CASES: Case[] = ['none', 'expired', 'untrusted', 'otherLedger', 'valid'];
const OK: [number, null] = [200, null];
const U: [number, string] = [401, 'err:db/Unauthorized'];
const NF: [number, string] = [404, 'err:db/LedgerNotFound'];

/** Tokens per group: the valid grant, and a grant on another ledger only. */
async function tokens(grant: Record<string, unknown>, other: Record<string, unknown>): Promise<Record<Case, string | null>> {
  const a = await signerA(), b = await signerB();
  return {
    none: null,
    expired: await token(a, { ...grant, iat: 1000, exp: 2000 }),
    untrusted: await token(b, grant),
    otherLedger: await token(a, other),
    valid: await token(a, grant),
  };
}

async function call(srv: AuthServer, method: string, path: string, tok: string | null, body?: unknown): Promise<[number, string | null]> {
  const headers: Record<string, string> = {};
  if (tok) headers['Authorization'] = `Bearer ${tok}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return outcome(await fetch(srv.api + path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }));
}

const MODES: AuthMode[] = ['none', 'optional', 'required'];

describe.each(MODES)('data group, mode %s', (mode) => {
  let srv: AuthServer;
  let tok: Record<Case, string | null>;
  beforeAll(async () => {
    srv = await startAuthServer({ dataAuthMode: mode, dataAuthTrustedIssuers: [DID_A] });
    tok = await tokens(
      { 'ledgraph.ledger.read.ledgers': ['hr'], 'ledgraph.ledger.write.ledgers': ['hr'] },
      { 'ledgraph.ledger.read.ledgers': ['payroll'] },
    );
  });
  afterAll(() => srv.close());

  const expected: Record<AuthMode, Record<Case, [number, string | null]>> = {
    none: { none: OK, expired: OK, untrusted: OK, otherLedger: OK, valid: OK },
    optional: { none: OK, expired: U, untrusted: U, otherLedger: NF, valid: OK },
    required: { none: U, expired: U, untrusted: U, otherLedger: NF, valid: OK },
  };

  it.each(CASES)('query hr:main with %s', async (c) => {
    expect(await call(srv, 'POST', '/query/hr:main', tok[c], { select: ['?s'], where: {} })).toEqual(expected[mode][c]);
  });
  it.each(CASES)('update hr:main with %s', async (c) => {
    expect(await call(srv, 'POST', '/update/hr:main', tok[c], { insert: {} })).toEqual(expected[mode][c]);
  });
  it.each(CASES)('info hr:main@t:1 with %s', async (c) => {
    expect(await call(srv, 'GET', '/info/hr:main@t:1', tok[c])).toEqual(expected[mode][c]);
  });
});

describe.each(MODES)('admin group, mode %s', (mode) => {
  let srv: AuthServer;
  let tok: Record<Case, string | null>;
  beforeAll(async () => {
    srv = await startAuthServer({ adminAuthMode: mode, adminAuthTrustedIssuers: [DID_A] });
    tok = await tokens({}, { 'ledgraph.ledger.read.ledgers': ['payroll'] });
  });
  afterAll(() => srv.close());
  // Admin grants come from issuer trust alone: a token scoped to another ledger is still an admin token.
  const expected: Record<AuthMode, Record<Case, [number, string | null]>> = {
    none: { none: OK, expired: OK, untrusted: OK, otherLedger: OK, valid: OK },
    optional: { none: OK, expired: U, untrusted: U, otherLedger: OK, valid: OK },
    required: { none: U, expired: U, untrusted: U, otherLedger: OK, valid: OK },
  };
  it.each(CASES)('create with %s', async (c) => {
    expect(await call(srv, 'POST', '/create', tok[c], { ledger: 'x' })).toEqual(expected[mode][c]);
  });
});

describe.each(MODES)('events group, mode %s', (mode) => {
  let srv: AuthServer;
  let tok: Record<Case, string | null>;
  beforeAll(async () => {
    srv = await startAuthServer({ eventsAuthMode: mode, eventsAuthTrustedIssuers: [DID_A] });
    tok = await tokens({ 'ledgraph.events.ledgers': ['hr'] }, { 'ledgraph.ledger.read.ledgers': ['hr'] });
  });
  afterAll(() => srv.close());
  // A token without any events claim authorizes nothing on this group (auth.md §3 step 8).
  const expected: Record<AuthMode, Record<Case, [number, string | null]>> = {
    none: { none: OK, expired: OK, untrusted: OK, otherLedger: OK, valid: OK },
    optional: { none: OK, expired: U, untrusted: U, otherLedger: U, valid: OK },
    required: { none: U, expired: U, untrusted: U, otherLedger: U, valid: OK },
  };
  it.each(CASES)('events with %s', async (c) => {
    expect(await call(srv, 'GET', '/events?ledger=hr:main', tok[c])).toEqual(expected[mode][c]);
  });
});

describe('storage group (always required once the proxy is enabled)', () => {
  let srv: AuthServer;
  let off: AuthServer;
  let tok: Record<Case, string | null>;
  beforeAll(async () => {
    srv = await startAuthServer({ storageProxyEnabled: true, storageProxyTrustedIssuers: [DID_A] });
    off = await startAuthServer({ storageProxyTrustedIssuers: [DID_A] });
    tok = await tokens({ 'ledgraph.storage.ledgers': ['hr'] }, { 'ledgraph.storage.ledgers': ['payroll'] });
  });
  afterAll(async () => { await srv.close(); await off.close(); });

  it.each(CASES)('/storage/ns/hr:main with %s: any failure is 404', async (c) => {
    expect(await call(srv, 'GET', '/storage/ns/hr:main', tok[c])).toEqual(c === 'valid' ? OK : NF);
  });
  it.each(CASES)('/storage/block for hr:main with %s', async (c) => {
    expect(await call(srv, 'POST', '/storage/block', tok[c], { cid: 'bafy', ledger: 'hr:main' })).toEqual(c === 'valid' ? OK : NF);
  });
  it.each(CASES)('/commits/hr:main with %s: token problems are 401, scope 404', async (c) => {
    expect(await call(srv, 'GET', '/commits/hr:main', tok[c])).toEqual({ none: U, expired: U, untrusted: U, otherLedger: NF, valid: OK }[c]);
  });
  it.each(CASES)('/pack/hr:main with %s', async (c) => {
    expect(await call(srv, 'POST', '/pack/hr:main', tok[c], {})).toEqual({ none: U, expired: U, untrusted: U, otherLedger: NF, valid: OK }[c]);
  });
  it.each(CASES)('proxy disabled: /storage/ns and /commits are 404 with %s', async (c) => {
    expect(await call(off, 'GET', '/storage/ns/hr:main', tok[c])).toEqual(NF);
    expect(await call(off, 'GET', '/commits/hr:main', tok[c])).toEqual(NF);
  });
});
