/**
 * Auth groups of the branch endpoints (branches.md §2, auth.md §1): the POSTs are admin commands;
 * listing branches and the previews are data reads, scoped to the ledger (outside the scope: 404).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DID_A, outcome, signerA, token } from '../auth/helpers.js';
import { startTestServer, type TestServer } from '../support/server.js';

let srv: TestServer;
let admin: string, readInv: string, readOther: string, write: string;
const call = async (method: string, path: string, tok: string | null, body?: unknown) => outcome(await fetch(srv.api + path, {
  method, headers: { ...(tok ? { Authorization: `Bearer ${tok}` } : {}), ...(body ? { 'Content-Type': 'application/json' } : {}) },
  ...(body ? { body: JSON.stringify(body) } : {}),
}));

beforeAll(async () => {
  srv = await startTestServer({ config: { adminAuthMode: 'required', adminAuthTrustedIssuers: [DID_A], dataAuthMode: 'required', dataAuthTrustedIssuers: [DID_A] } });
  const a = await signerA();
  admin = await token(a, {});
  readInv = await token(a, { 'ledgraph.ledger.read.ledgers': ['inv'] });
  readOther = await token(a, { 'ledgraph.ledger.read.ledgers': ['other'] });
  write = await token(a, { 'ledgraph.ledger.write.ledgers': ['inv'], 'ledgraph.ledger.read.ledgers': ['inv'] });
  expect(await call('POST', '/create', admin, { ledger: 'inv' })).toEqual([201, null]);
  const r = await fetch(`${srv.api}/insert/inv`, { method: 'POST', headers: { Authorization: `Bearer ${write}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ '@id': 'http://example.org/a', 'http://example.org/n': 1 }) });
  expect(r.status).toBe(200);
});
afterAll(async () => { await srv.close(); });

describe('branch endpoints and auth', () => {
  it('POSTs need an admin token', async () => {
    expect(await call('POST', '/branch', null, { ledger: 'inv', branch: 'dev' })).toEqual([401, 'err:db/Unauthorized']);
    expect(await call('POST', '/branch', admin, { ledger: 'inv', branch: 'dev' })).toEqual([201, null]);
    expect(await call('POST', '/merge', null, { ledger: 'inv', source: 'dev' })).toEqual([401, 'err:db/Unauthorized']);
    expect(await call('POST', '/merge', admin, { ledger: 'inv', source: 'dev' })).toEqual([200, null]);
    expect(await call('POST', '/rebase', null, { ledger: 'inv', branch: 'dev' })).toEqual([401, 'err:db/Unauthorized']);
    expect(await call('POST', '/revert', null, { ledger: 'inv', branch: 'main', commit: 't:1' })).toEqual([401, 'err:db/Unauthorized']);
    expect(await call('POST', '/drop-branch', null, { ledger: 'inv', branch: 'dev' })).toEqual([401, 'err:db/Unauthorized']);
  });

  it('the list and previews are data reads in the ledger\'s scope', async () => {
    expect(await call('GET', '/branch/inv', null)).toEqual([401, 'err:db/Unauthorized']);
    expect(await call('GET', '/branch/inv', readInv)).toEqual([200, null]);
    expect(await call('GET', '/branch/inv', readOther)).toEqual([404, 'err:db/LedgerNotFound']);
    expect(await call('GET', '/merge-preview/inv?source=dev', readInv)).toEqual([200, null]);
    expect(await call('GET', '/merge-preview/inv?source=dev', readOther)).toEqual([404, 'err:db/LedgerNotFound']);
    expect(await call('GET', '/revert-preview/inv?branch=main&commit=t:1', readInv)).toEqual([200, null]);
    expect(await call('GET', '/revert-preview/inv?branch=main&commit=t:1', readOther)).toEqual([404, 'err:db/LedgerNotFound']);
  });
});
