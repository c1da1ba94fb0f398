/**
 * A Turtle body that made n3 throw from inside its parser (a TypeError in _readPrefixIRI) instead of
 * reporting a syntax error: the 30-minute fuzz run of 2026-11-27 16:14 UTC (seed 492521132) got 500
 * for it on the graph store; it is a 400 invalid Turtle.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ config: { dataAuthMode: 'none' } });
  expect((await fetch(`${srv.api}/create`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ledger: 'fzw' }) })).status).toBe(201);
});
afterAll(() => srv.close());

describe('a body n3 throws on', () => {
  for (const n of [100, 65_690]) {
    it(`@prefix ex: <'${'x'} × ${n}'http://…> . is a 400 invalid Turtle, not a 500`, async () => {
      const body = "@prefix ex: <'" + 'x'.repeat(n) + "'http://example.org/fz/> .\nex:a ex:p 1 .\n";
      const r = await fetch(`${srv.api}/data/fzw?graph=${encodeURIComponent('http://example.org/fz/g')}`, { method: 'POST', headers: { 'Content-Type': 'text/turtle' }, body });
      const text = await r.text();
      expect(r.status, text).toBe(400);
      expect(JSON.parse(text)).toEqual({ status: 400, '@type': 'err:db/BadRequest', error: 'invalid Turtle: Invalid IRI (line 1, column 13)' });
    });
  }
});
