/** Small helpers shared by the HTTP server tests (not a test file itself). */
import { expect } from 'vitest';
import type { TestServer } from '../support/server.js';

export const EX = 'http://example.org/';
export const CTX = { ex: EX, schema: 'http://schema.org/' };

/** The graph's N-Triples lines (sorted) through the graph store; `graph` undefined = default graph. */
export async function triples(srv: TestServer, ledger: string, graph?: string): Promise<string[]> {
  const sel = graph === undefined ? 'default' : `graph=${encodeURIComponent(graph)}`;
  const r = await fetch(`${srv.api}/data/${ledger}?${sel}`, { headers: { Accept: 'application/n-triples' } });
  expect(r.status, await r.clone().text()).toBe(200);
  return (await r.text()).split('\n').filter((l) => l !== '').sort();
}

/** Assert an error response: status, `@type`, and (when given) a message substring. */
export async function expectError(r: Response, status: number, type: string, message?: string): Promise<Record<string, unknown>> {
  const text = await r.text();
  expect(r.status, text).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  const body = JSON.parse(text) as Record<string, unknown>;
  expect(body['@type'], text).toBe(type);
  expect(body.status).toBe(status);
  if (message !== undefined) expect(body.error as string).toContain(message);
  return body;
}

/** The JSON body of a response, after asserting its status. */
export async function json<T = Record<string, unknown>>(r: Response, status = 200): Promise<T> {
  const text = await r.text();
  expect(r.status, text).toBe(status);
  return JSON.parse(text) as T;
}

/** `<ex:local>` as an N-Triples IRI. */
export const iri = (local: string) => `<${EX}${local}>`;
/** A typed N-Triples literal. */
export const lit = (v: string, dt?: string) => (dt ? `"${v}"^^<http://www.w3.org/2001/XMLSchema#${dt}>` : `"${v}"`);

/** Wait until `cond()` holds, polling every 5 ms; throws after `ms`. */
export async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((ok) => setTimeout(ok, 5));
  }
}
