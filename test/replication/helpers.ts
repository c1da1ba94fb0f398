/** Servers, tokens and comparisons shared by the replication tests (not a test file itself). */
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { startTestServer, postJson, type TestServer } from '../support/server.js';
import { DID_A, signerA, token } from '../auth/helpers.js';
import type { RemoteTarget } from '../../src/server/replication/remote-client.js';
import type { ServerConfig } from '../../src/server/config.js';

export const CTX = { ex: 'http://example.org/' };

/** A server with the storage proxy on (so /commits and /pack answer), trusting DID_A for storage tokens. */
export function startReplServer(config: Partial<ServerConfig> = {}): Promise<TestServer> {
  return startTestServer({ config: { storageProxyEnabled: true, storageProxyTrustedIssuers: [DID_A], ...config } });
}

/** A storage token for every ledger. */
export async function storageToken(): Promise<string> {
  return token(await signerA(), { 'ledgraph.storage.all': true });
}

/** The remote-client view of a test server. */
export async function target(srv: TestServer, name = srv.url): Promise<RemoteTarget> {
  return { name, api: srv.api, token: await storageToken() };
}

/** Copy every object and nameservice record of `from`'s storage into `to`'s (shared history). */
export async function copyStorage(from: TestServer, to: TestServer): Promise<void> {
  for (const d of ['objects', 'ns']) await cp(join(from.dir, d), join(to.dir, d), { recursive: true, force: true });
}

/** Insert a JSON-LD document; returns the receipt. */
export async function insert(srv: TestServer, ledger: string, doc: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await postJson(`${srv.api}/insert/${ledger}`, { '@context': CTX, ...doc });
  expect(r.status, await r.clone().text()).toBe(200);
  return (await r.json()) as Record<string, unknown>;
}

/** A SPARQL update. */
export async function update(srv: TestServer, ledger: string, text: string): Promise<void> {
  const r = await fetch(`${srv.api}/update/${ledger}`, { method: 'POST', headers: { 'Content-Type': 'application/sparql-update' }, body: text });
  expect(r.status, await r.clone().text()).toBe(200);
}

/** `/log` of a ledger. */
export async function log(srv: TestServer, ledger: string): Promise<unknown> {
  const r = await fetch(`${srv.api}/log/${ledger}?limit=5000`);
  expect(r.status, await r.clone().text()).toBe(200);
  const body = (await r.json()) as { ledger_id: string };
  return { ...body, ledger_id: undefined };
}

const SPARQL = [
  'SELECT ?s ?p ?o WHERE { ?s ?p ?o } ORDER BY ?s ?p ?o',
  'SELECT ?s (COUNT(?o) AS ?n) WHERE { ?s <http://example.org/knows> ?o } GROUP BY ?s ORDER BY ?s',
];
const JSONLD = { '@context': CTX, select: ['?s', '?name'], where: [{ '@id': '?s', 'ex:name': '?name' }], orderBy: ['?s', '?name'] };

/** Answers to fixed SPARQL and JSON-LD queries at `ledger@t:N` for each t. */
export async function answers(srv: TestServer, ledger: string, ts: number[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const t of ts) {
    const ref = `${ledger}@t:${t}`;
    for (const q of SPARQL) {
      const r = await fetch(`${srv.api}/query/${ref}`, { method: 'POST', headers: { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+json' }, body: q });
      expect(r.status, await r.clone().text()).toBe(200);
      out.push(await r.json());
    }
    const r = await postJson(`${srv.api}/query`, { ...JSONLD, from: ref });
    expect(r.status, await r.clone().text()).toBe(200);
    out.push(await r.json());
  }
  return out;
}
