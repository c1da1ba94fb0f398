import { describe, expect, it } from 'vitest';
import { LedgraphError, busy } from '../../errors.js';
import type { DbView, FactBatch, ScanPattern } from '../../index/view.js';
import { querySparql, type QueryContext } from '../engine.js';
import { collect } from '../results/types.js';
import { setHeapCheck } from './runtime.js';

const FIXTURE = '../../../../test/support/fixture-view.js';
const { viewFromRdf } = (await import(/* @vite-ignore */ FIXTURE)) as { viewFromRdf(text: string): DbView };

const N = 50;
const view = viewFromRdf('@prefix : <http://ex/> .\n' + Array.from({ length: N }, (_, i) => `:s${i} :p ${i} .`).join('\n'));

/** The same data, but every scan batch takes `ms` to arrive (an index fetching from far away). */
function slowView(ms: number): DbView {
  return new Proxy(view, {
    get(target, prop, recv) {
      if (prop !== 'scan') return Reflect.get(target, prop, recv) as unknown;
      return async function* (pt: ScanPattern, opts?: { signal?: AbortSignal }): AsyncIterable<FactBatch> {
        for await (const b of target.scan(pt, opts)) {
          await new Promise((r) => setTimeout(r, ms));
          yield b;
        }
      };
    },
  });
}

async function run(q: string, ctx: Partial<QueryContext>): Promise<number> {
  const r = await querySparql('PREFIX : <http://ex/>\n' + q, { view, ...ctx });
  if (r.type !== 'bindings') throw new Error('not bindings');
  return (await collect(r.rows)).length;
}

async function failure(p: Promise<unknown>): Promise<LedgraphError> {
  try { await p; } catch (e) { expect(e).toBeInstanceOf(LedgraphError); return e as LedgraphError; }
  throw new Error('expected a failure');
}

describe('fuel', () => {
  it('counts facts scanned and reports them at the end', async () => {
    let fuel = -1;
    expect(await run('SELECT * { ?s :p ?o }', { onFinish: (s) => { fuel = s.fuel; } })).toBe(N);
    expect(fuel).toBe(N);
  });
  it('fails with fuel_exhausted past max-fuel', async () => {
    const e = await failure(run('SELECT * { ?s :p ?o }', { maxFuel: 10 }));
    expect([e.status, e.type]).toEqual([400, 'err:db/BadRequest']);
    expect(e.message).toBe('fuel limit exceeded (fuel_exhausted): the query needed more than max-fuel 10');
  });
  it('takes the tighter of the caller budget and PRAGMA max-fuel', async () => {
    const e = await failure(run('# PRAGMA max-fuel 20\nSELECT * { ?s :p ?o }', { maxFuel: 1000 }));
    expect(e.message).toMatch(/max-fuel 20/);
    expect(await run('# PRAGMA max-fuel 100\nSELECT * { ?s :p ?o } LIMIT 3', {})).toBe(3);
  });
  it('charges a lookup that finds nothing (a query of many empty lookups runs out of fuel)', async () => {
    // 50 facts scanned, then one NOT EXISTS lookup per row, each finding nothing (:q is known, but
    // not on these subjects): 50 + 50.
    const withQ = viewFromRdf('@prefix : <http://ex/> .\n:a :q :b .\n' + Array.from({ length: N }, (_, i) => `:s${i} :p ${i} .`).join('\n'));
    const q = 'SELECT * { ?s :p ?o FILTER NOT EXISTS { ?s :q ?x } }';
    let fuel = -1;
    expect(await run(q, { view: withQ, onFinish: (s) => { fuel = s.fuel; } })).toBe(N);
    expect(fuel).toBe(2 * N);
    const e = await failure(run(q, { view: withQ, maxFuel: 2 * N - 1 }));
    expect(e.message).toBe(`fuel limit exceeded (fuel_exhausted): the query needed more than max-fuel ${2 * N - 1}`);
    expect(await run(q, { view: withQ, maxFuel: 2 * N })).toBe(N);
  });
});

describe('time and cancellation', () => {
  it('times out with 408 err:db/Timeout', async () => {
    const e = await failure(run('SELECT * { ?s :p ?o }', { view: slowView(40), timeoutMs: 5 }));
    expect([e.status, e.type, e.message]).toEqual([408, 'err:db/Timeout', 'query timeout exceeded']);
  });
  it('stops when the signal aborts, mid-stream', async () => {
    const ac = new AbortController();
    const r = await querySparql('PREFIX : <http://ex/> SELECT * { ?s :p ?o . ?s :p ?o2 }', { view: slowView(1), signal: ac.signal });
    if (r.type !== 'bindings') throw new Error('not bindings');
    const it = r.rows[Symbol.asyncIterator]();
    await it.next();
    ac.abort();
    const e = await failure((async () => { for (;;) { const x = await it.next(); if (x.done) return; } })());
    expect([e.status, e.type]).toEqual([499, 'err:db/Cancelled']);
  });
  it('rethrows an abort reason that is a LedgraphError', async () => {
    const ac = new AbortController();
    ac.abort(new LedgraphError(503, 'err:db/Shutdown', 'server shutting down'));
    const e = await failure(run('SELECT * { ?s :p ?o }', { signal: ac.signal }));
    expect([e.status, e.type]).toEqual([503, 'err:db/Shutdown']);
  });
  it('a LIMIT stops pulling from upstream early', async () => {
    const big = viewFromRdf('@prefix : <http://ex/> .\n' + Array.from({ length: 5000 }, (_, i) => `:s${i} :p ${i} .`).join('\n'));
    let fuel = 0;
    expect(await run('SELECT * { ?s :p ?o } LIMIT 2', { view: big, onFinish: (s) => { fuel = s.fuel; } })).toBe(2);
    expect(fuel).toBe(1024); // one executor batch (four fixture batches), not all 5000 facts
  });
});

describe('joins whose probes produce nothing', () => {
  // Found by the HTTP fuzzer (an update's WHERE froze the server for 35 s): a hash join with no
  // keys over a UNION build side probes every build row for each input row, and when `?a` is
  // incompatible every time no output ever fills, so the probe loop used to run 60M steps
  // without a turn of the event loop or a look at the deadline.
  const lines = ['@prefix : <http://ex/> .'];
  for (let i = 0; i < 5000; i++) for (let j = 0; j < 4; j++) lines.push(`:x${i} :p2 :s${j} .`);
  for (let i = 0; i < 3000; i++) lines.push(`:s${i % 4} :p1 :x${i} .`);
  const grid = viewFromRdf(lines.join('\n'));
  it('yield the event loop and stop at the deadline', async () => {
    let last = performance.now(), stall = 0;
    const iv = setInterval(() => { const now = performance.now(); stall = Math.max(stall, now - last); last = now; }, 5);
    const t0 = performance.now();
    try {
      const e = await failure(run('SELECT * WHERE { { ?c :p2 ?a } UNION { :s3 ?b 1 . BIND(1 AS ?x0) ?d :p2 ?c } ?b :p1 ?a }', { view: grid, timeoutMs: 300 }));
      expect([e.status, e.message]).toEqual([408, 'query timeout exceeded']);
    } finally {
      clearInterval(iv);
    }
    const elapsed = performance.now() - t0;
    // Before the fix: one stall of several seconds (8 s on the shared test machine), and the
    // timeout only after it.
    expect(stall, `stall ${stall} ms`).toBeLessThan(1000);
    expect(elapsed).toBeLessThan(3000);
  }, 60_000);
});

describe('the process heap check (setHeapCheck: the server memory guard)', () => {
  it('runs at every pause, and a query whose signal it aborts stops with the abort reason', async () => {
    const ac = new AbortController();
    let calls = 0;
    setHeapCheck(() => { if (++calls === 3) ac.abort(busy('the server is short of memory')); });
    try {
      // 125,000 rows: several slices of work, so several pauses.
      const e = await failure(run('SELECT * { ?a :p ?x . ?b :p ?y . ?c :p ?z }', { signal: ac.signal }));
      expect([e.status, e.message]).toEqual([503, 'the server is short of memory']);
      expect(calls).toBe(3);
    } finally {
      setHeapCheck(null);
    }
  }, 60_000);
  it('is asked for the heap a full ORDER BY sort is about to need, before it is allocated', async () => {
    const extras: number[] = [];
    setHeapCheck((extra) => { if (extra > 0) extras.push(extra); });
    try {
      expect(await run('SELECT * { ?a :p ?x . ?b :p ?y . ?c :p ?z } ORDER BY ?x ?y ?z', {})).toBe(N * N * N);
      expect(extras).toEqual([N * N * N * 24]);
    } finally {
      setHeapCheck(null);
    }
  }, 60_000);
});
