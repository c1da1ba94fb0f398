/**
 * Comunica (@comunica/query-sparql) as a client of Ledgraph: a Ledgraph dataset endpoint as a
 * SPARQL source (Comunica pushes the whole query down), a query whose SERVICE Ledgraph then
 * federates to a second Ledgraph server, and an update through the same URL.
 */
import { QueryEngine } from '@comunica/query-sparql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger, postText, startTestServer, type TestServer } from '../support/server.js';

const EX = 'http://example.org/';
let a: TestServer;
let b: TestServer;
const engine = new QueryEngine();

beforeAll(async () => {
  b = await startTestServer();
  await createLedger(b, 'names');
  expect((await postText(`${b.api}/insert/names`, 'text/turtle', `<${EX}ana> <${EX}name> "Ana" . <${EX}ben> <${EX}name> "Ben" .`)).status).toBe(200);
  a = await startTestServer({ config: { federationAllow: [`${b.url}/v1/ledgraph/sparql/`] } });
  await createLedger(a, 'teams');
  expect((await postText(`${a.api}/insert/teams`, 'text/turtle', `<${EX}ana> <${EX}team> "blue" . <${EX}ben> <${EX}team> "red" .`)).status).toBe(200);
});
afterAll(async () => { await Promise.all([a?.close(), b?.close()]); });

const source = (srv: TestServer, ledger: string) => ({ type: 'sparql' as const, value: `${srv.api}/sparql/${ledger}` });

async function select(query: string, srv: TestServer, ledger: string, vars: string[]): Promise<string[]> {
  const stream = await engine.queryBindings(query, { sources: [source(srv, ledger)] });
  const out = (await stream.toArray()).map((bd) => vars.map((v) => bd.get(v)?.value ?? '-').join(' '));
  return out.sort();
}

describe('Comunica against Ledgraph', () => {
  it('queries a dataset endpoint as a SPARQL source', async () => {
    expect(await select(`SELECT ?s ?t WHERE { ?s <${EX}team> ?t }`, a, 'teams', ['s', 't'])).toEqual([`${EX}ana blue`, `${EX}ben red`]);
    const ask = await engine.queryBoolean(`ASK { <${EX}ana> <${EX}team> "blue" }`, { sources: [source(a, 'teams')] });
    expect(ask).toBe(true);
    const quads = await (await engine.queryQuads(`CONSTRUCT { ?s <${EX}label> ?t } WHERE { ?s <${EX}team> ?t }`, { sources: [source(a, 'teams')] })).toArray();
    expect(quads.map((q) => q.object.value).sort()).toEqual(['blue', 'red']);
  });

  it('pushes a SERVICE down to Ledgraph, which federates it to a second server', async () => {
    // Count the calls Ledgraph itself makes to the SERVICE endpoint (its federation fetch).
    const seen: string[] = [];
    const fed = a.conn.federation!;
    Object.defineProperty(a.conn, 'federation', {
      value: { ...fed, fetch: (url: string, init: RequestInit) => { seen.push(url); return fetch(url, init); } },
    });
    const q = `SELECT ?t ?n WHERE { ?s <${EX}team> ?t SERVICE <${b.api}/sparql/names> { ?s <${EX}name> ?n } }`;
    expect(await select(q, a, 'teams', ['t', 'n'])).toEqual(['blue Ana', 'red Ben']);
    expect(seen).toEqual([`${b.api}/sparql/names`]);
  });

  it('updates through the same URL', async () => {
    await engine.queryVoid(`INSERT DATA { <${EX}cy> <${EX}team> "green" }`, { sources: [{ type: 'sparql', value: `${a.api}/sparql/teams` }], destination: { type: 'sparql', value: `${a.api}/sparql/teams` } } as never);
    expect(await select(`SELECT ?t WHERE { <${EX}cy> <${EX}team> ?t }`, a, 'teams', ['t'])).toEqual(['green']);
  });
});
