/**
 * The quick slice of the HTTP fuzzer (docs/RELIABILITY.md): for every parser and body type, a few
 * hundred generated requests against a real server (port 0, file storage in a temp dir, data auth
 * optional with a trusted issuer, storage proxy on). Every answer must be below 500 or documented
 * back-pressure, arrive in time, and leak nothing; the server must stay healthy. Bounds are small
 * here (QUICK_BOUNDS); `npm run fuzz` runs the full range for minutes.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { FUZZ_SERVER_CONFIG, Tally, describeRequest, health, isFailure, prepare, send } from './http-harness.js';
import { targets, type TargetContext } from './http-targets.js';
import { QUICK_BOUNDS } from './mutate.js';

const RUNS = Number(process.env.LEDGRAPH_FUZZ_RUNS ?? 200);
const SEED = Number(process.env.LEDGRAPH_FUZZ_SEED ?? 20_2611);
const TIMEOUT_MS = 15_000;

let srv: TestServer;
let ctx: TargetContext;
const tally = new Tally();
const perTarget: Record<string, Record<number, number>> = {};
beforeAll(async () => {
  srv = await startTestServer({ config: FUZZ_SERVER_CONFIG });
  ctx = await prepare(srv.url, srv.config.apiBaseUrl);
});
afterAll(async () => {
  if (process.env.LEDGRAPH_FUZZ_VERBOSE) console.log(JSON.stringify({ requests: tally.requests, byStatus: tally.byStatus, slowest: tally.slowest, perTarget }, null, 1));
  await srv.close();
});

describe('HTTP fuzzing (quick slice)', () => {
  const names = ['sparql-query', 'sparql-update', 'jsonld-txn', 'jsonld-query', 'turtle', 'trig', 'ntriples', 'nquads', 'jws', 'headers', 'paths', 'replication'];
  it('covers every target the generators define', () => {
    expect(Object.keys(targets(ctx, QUICK_BOUNDS)).sort()).toEqual([...names].sort());
  });
  for (const name of names) {
    it(`${name}: no 5xx, no hang, no leak; healthy afterwards`, async () => {
      const arb = targets(ctx, QUICK_BOUNDS)[name]!;
      await fc.assert(fc.asyncProperty(arb, async (r) => {
        const s = await send(srv.url, r, TIMEOUT_MS, [srv.dir]);
        tally.add(r, s);
        const m = (perTarget[r.target] ??= {});
        m[s.status] = (m[s.status] ?? 0) + 1;
        if (isFailure(s)) throw new Error(`${s.outcome} ${s.status} after ${s.ms} ms: ${s.excerpt}\n${JSON.stringify(describeRequest(r, 600))}`);
      }), { numRuns: RUNS, seed: SEED });
      expect(await health(srv.url, srv.config.apiBaseUrl)).toBeUndefined();
    }, 180_000);
  }
});
