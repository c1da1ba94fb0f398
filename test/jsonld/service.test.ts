/**
 * The JSON-LD query service API the HTTP endpoints build on: streaming SELECT rows, history
 * detection, policy inputs and the view hook (with the real policy layer), agent JSON, request
 * time pinning (multi-query asOf) and cancellation.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { DbView } from '../../src/core/index/view.js';
import type { Connection } from '../../src/core/ledger/connection.js';
import { policyView } from '../../src/core/policy/index.js';
import { isHistoryQuery, policyInputsOf, runJsonLdQuery, streamJsonLdSelect } from '../../src/core/query/jsonld/service.js';
import { collect } from '../../src/core/query/results/types.js';
import { literal, namedNode } from '../../src/core/rdf/terms.js';
import { parseJsonLdTxn } from '../../src/core/transact/parse-jsonld.js';
import { C, sampleConnection } from './sample.js';

let conn: Connection;
beforeAll(async () => { conn = await sampleConnection(); });
const demo = { ledger: 'demo:main', defaultContext: C };
const XSD = 'http://www.w3.org/2001/XMLSchema#';

describe('streamJsonLdSelect', () => {
  it('streams the projected bindings as terms', async () => {
    const s = await streamJsonLdSelect(conn, { select: ['?n', '?a'], where: { '@id': '?p', 'schema:name': '?n', 'schema:age': '?a' }, orderBy: '?n' }, demo);
    expect(s.vars).toEqual(['n', 'a']);
    expect(s.ledgers).toEqual({ 'demo:main': 5 });
    expect(await collect(s.rows)).toEqual([
      { n: literal('Ana'), a: literal('34', namedNode(XSD + 'integer')) },
      { n: literal('Ben'), a: literal('27', namedNode(XSD + 'integer')) },
      { n: literal('Caro'), a: literal('41', namedNode(XSD + 'integer')) },
    ]);
    // Fuel is the engine's count for this execution, the same figure tracking reports.
    const tracked = await runJsonLdQuery(conn, { select: ['?n', '?a'], where: { '@id': '?p', 'schema:name': '?n', 'schema:age': '?a' }, orderBy: '?n', opts: { meta: { fuel: true } } }, demo);
    expect(s.fuel()).toBeGreaterThan(0);
    expect(s.fuel()).toBe(tracked.tracking!.fuel);
  });

  it('"*" and aggregates stream too', async () => {
    const s = await streamJsonLdSelect(conn, { select: '*', where: { '@id': '?p', 'ex:nick': '?k' } }, demo);
    expect(s.vars).toEqual(['p', 'k']);
    expect(await collect(s.rows)).toEqual([{ p: namedNode('http://example.org/ben'), k: literal('Benny') }]);
    const c = await streamJsonLdSelect(conn, { select: ['?c', '(count ?p)'], where: { '@id': '?p', 'ex:city': '?c' }, groupBy: '?c' }, demo);
    expect(c.vars).toEqual(['c', 'count']);
    expect((await collect(c.rows)).map((r) => [r['c']!.value, r['count']!.value])).toEqual([['Lisbon', '2'], ['Porto', '1']]);
  });

  it('rejects what is not SELECT-shaped before any row', async () => {
    const reject = async (body: unknown) => {
      try { await streamJsonLdSelect(conn, body, demo); } catch (e) { expect(e).toMatchObject({ status: 400 }); return (e as Error).message; }
      throw new Error('expected a 400');
    };
    const w = { '@id': '?p', 'schema:name': '?n' };
    expect(await reject({ selectOne: '?n', where: w })).toBe('selectOne queries cannot be streamed; only select and selectDistinct');
    expect(await reject({ ask: w })).toBe('ask queries cannot be streamed; only select and selectDistinct');
    expect(await reject({ construct: w, where: w })).toBe('construct queries cannot be streamed; only select and selectDistinct');
    expect(await reject({ select: { '?p': ['*'] }, where: w })).toBe('graph crawl (hydration) queries cannot be streamed; select variables instead');
    expect(await reject({ select: ['?c', '?n'], where: { ...w, 'ex:city': '?c' }, groupBy: '?c' })).toBe('grouped value arrays and median/variance/stddev cannot be streamed; aggregate every non-grouped variable');
    expect(await reject({ from: 'demo:main@t:1', to: 'demo:main@t:2', select: '?n', where: w })).toBe('history queries (to) cannot be streamed');
  });
});

describe('isHistoryQuery and policyInputsOf', () => {
  it('detects to in the body or in opts', () => {
    expect(isHistoryQuery({ from: 'a@t:1', to: 'a@t:2', select: '?x' })).toBe(true);
    expect(isHistoryQuery({ select: '?x', opts: { to: 'a@t:2' } })).toBe(true);
    expect(isHistoryQuery({ from: 'a@t:1', select: '?x' })).toBe(false);
    expect(isHistoryQuery('nope')).toBe(false);
  });

  it('parses the policy opts against the query context, plus per-source policies', () => {
    expect(policyInputsOf({
      '@context': { ex: 'http://example.org/' }, select: '?x',
      from: [{ '@id': 'demo:main', policy: { '@id': 'ex:p1' } }, 'other:main'],
      opts: { identity: 'ex:alice', 'policy-class': ['ex:Staff'], policyValues: { '?$dept': 'ex:hr' }, default_allow: true, policy: [{ '@id': 'ex:inline' }] },
    })).toEqual({
      identity: 'http://example.org/alice', policyClass: ['http://example.org/Staff'], policyValues: { '?$dept': 'ex:hr' },
      defaultAllow: true, policy: [{ '@id': 'ex:inline' }], sources: [{ ledger: 'demo:main', policy: { '@id': 'ex:p1' } }],
    });
    expect(policyInputsOf({ select: '?x' })).toEqual({});
    expect(policyInputsOf({ select: '?x', opts: { identity: 'ex:bob' } }, C)).toEqual({ identity: 'http://example.org/bob' });
    expect(() => policyInputsOf({ select: '?x', opts: { 'default-allow': 'yes' } })).toThrow('opts.default-allow must be a boolean');
  });
});

describe('the view hook (policy)', () => {
  it('is called with the resolved view and ledgers; where, crawl and history read through it', async () => {
    const seen: Record<string, number>[] = [];
    const age = (await conn.db('demo:main')).dict.idOf(namedNode('http://schema.org/age'))!;
    // Hide every schema:age fact.
    const wrapView = async (view: DbView, ledgers: Record<string, number>): Promise<DbView> => {
      seen.push(ledgers);
      return new Proxy(view, {
        get(target, prop, receiver) {
          // No synchronous fast path: every read goes through the filtering scan below.
          if (prop === 'scanSync') return undefined;
          if (prop === 'scan') {
            return async function* (pattern: Parameters<DbView['scan']>[0], opts?: { signal?: AbortSignal }) {
              if (pattern.p === age) return;
              for await (const b of target.scan(pattern, opts)) {
                let k = 0;
                for (let i = 0; i < b.n; i++) if (b.p[i] !== age) { b.s[k] = b.s[i]!; b.p[k] = b.p[i]!; b.o[k] = b.o[i]!; b.g[k] = b.g[i]!; b.m[k] = b.m[i]!; k++; }
                yield { ...b, n: k };
              }
            };
          }
          const v = Reflect.get(target, prop, receiver) as unknown;
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      });
    };
    const r = await runJsonLdQuery(conn, { select: ['?n', '?a'], where: { '@id': '?p', 'schema:name': '?n', 'schema:age': '?a' } }, { ...demo, wrapView });
    expect(r.result).toEqual([]);
    expect(seen).toEqual([{ 'demo:main': 5 }]);
    expect((await runJsonLdQuery(conn, { select: { 'ex:ben': ['schema:name', 'schema:age'] } }, { ...demo, wrapView })).result).toEqual([{ 'schema:name': 'Ben' }]);
  });

  it('works with the policy layer: an inline policy hides a property', async () => {
    const body = {
      select: { 'ex:ben': ['schema:name', 'schema:age', 'ex:city'] },
      opts: {
        'default-allow': true,
        policy: { '@context': { f: 'https://ns.ledgraph.dev/' }, '@id': 'http://example.org/noAge', '@type': 'f:AccessPolicy', 'f:action': { '@id': 'f:view' }, 'f:onProperty': { '@id': 'http://schema.org/age' }, 'f:allow': false },
      },
    };
    const inputs = policyInputsOf(body, C);
    const wrapView = async (view: DbView) => (await policyView(conn, view, inputs)).view;
    expect((await runJsonLdQuery(conn, body, { ...demo, wrapView })).result).toEqual([{ 'ex:city': 'Porto', 'schema:name': 'Ben' }]);
    expect((await runJsonLdQuery(conn, { ...body, opts: {} }, demo)).result).toEqual([{ 'ex:city': 'Porto', 'schema:age': 27, 'schema:name': 'Ben' }]);
  });
});

describe('agent JSON', () => {
  const body = { select: ['?n', '?a'], where: { '@id': '?p', 'schema:name': '?n', 'schema:age': '?a' }, orderBy: '?n' };
  it('wraps the result with the prefixes and row counts', async () => {
    const r = await runJsonLdQuery(conn, body, { ...demo, agent: {} });
    const text = JSON.stringify(r.result);
    expect(r.result).toEqual({ '@context': C, result: [['Ana', 34], ['Ben', 27], ['Caro', 41]], rows: 3, returned: 3, truncated: false, bytes: new TextEncoder().encode(text).length });
  });

  it('drops the prefixes, then rows from the end, to fit the byte budget', async () => {
    const env = (await runJsonLdQuery(conn, { ...body, offset: 1 }, { ...demo, agent: { maxBytes: 150 } })).result;
    expect(env).toEqual({ result: [['Ben', 27], ['Caro', 41]], rows: 2, returned: 2, truncated: false, bytes: 86 });
    const cut = (await runJsonLdQuery(conn, { ...body, offset: 1 }, { ...demo, agent: { maxBytes: 90 } })).result as { bytes: number };
    expect(cut).toEqual({ result: [['Ben', 27]], rows: 2, returned: 1, truncated: true, next_offset: 2, bytes: cut.bytes });
    expect(cut.bytes).toBe(new TextEncoder().encode(JSON.stringify(cut)).length);
    expect(cut.bytes).toBeLessThanOrEqual(90);
  });

  it('a value that cannot fit becomes null, never a broken fragment', async () => {
    const r = await runJsonLdQuery(conn, { selectOne: { 'ex:ana': ['*'] } }, { ...demo, agent: { maxBytes: 60 } });
    expect(r.result).toEqual({ result: null, truncated: true, bytes: 43 });
    expect(JSON.stringify(r.result).length).toBe(43);
  });
});

describe('request options', () => {
  it('at pins references without their own time (multi-query asOf)', async () => {
    const body = { select: '?st', where: { '@id': 'ex:ben', 'ex:status': '?st' } };
    const r = await runJsonLdQuery(conn, body, { ...demo, at: { kind: 't', t: 2 } });
    expect(r.result).toEqual(['active']);
    expect(r.ledgers).toEqual({ 'demo:main': 2 });
  });

  it('an aborted signal cancels the query', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(runJsonLdQuery(conn, { select: '?n', where: { '@id': '?p', 'schema:name': '?n' } }, { ...demo, signal: ac.signal })).rejects.toMatchObject({ status: 499 });
  });

  it('tracking includes policy stats when the view reports them', async () => {
    const wrapView = async (view: DbView) => Object.assign(Object.create(view) as DbView, { policyStats: () => ({ executed: 3, allowed: 2 }) });
    const r = await runJsonLdQuery(conn, { select: '?n', where: { '@id': 'ex:ben', 'schema:name': '?n' }, opts: { meta: true } }, { ...demo, wrapView });
    expect(r.tracking).toMatchObject({ fuel: 1, policy: { executed: 3, allowed: 2 }, members: ['time', 'fuel', 'policy'] });
  });
});

describe('repeated queries', () => {
  // The service keeps parsed queries by body text and formatters by context and format; a repeat
  // must answer as a first run does under every context, format and request.
  const text = JSON.stringify({ select: ['?p', '?d'], where: { '@id': '?p', 'http://example.org/start': '?d' } });
  const trip = 'http://example.org/trip1';

  it('the same text under another default context (or none) is its own query', async () => {
    for (let i = 0; i < 2; i++) {
      expect((await runJsonLdQuery(conn, text, { ledger: 'demo:main' })).result)
        .toEqual([[trip, { '@value': '2024-05-01', '@type': XSD + 'date' }]]);
      expect((await runJsonLdQuery(conn, text, demo)).result).toEqual([['ex:trip1', { '@value': '2024-05-01', '@type': 'xsd:date' }]]);
      expect((await runJsonLdQuery(conn, text, { ledger: 'demo:main', defaultContext: { t: 'http://example.org/' } })).result)
        .toEqual([['t:trip1', { '@value': '2024-05-01', '@type': XSD + 'date' }]]);
    }
  });

  it('a stored default context replaced between calls is used by the next call; a body with its own context ignores it', async () => {
    const c2 = await sampleConnection();
    const own = JSON.stringify({ '@context': { o: 'http://example.org/' }, select: ['?p'], where: { '@id': '?p', 'o:start': '?d' } });
    const scope = { ledger: 'demo:main' };
    for (let i = 0; i < 2; i++) {
      expect((await runJsonLdQuery(c2, text, scope)).result).toEqual([[trip, { '@value': '2024-05-01', '@type': XSD + 'date' }]]);
      expect((await runJsonLdQuery(c2, own, scope)).result).toEqual(['o:trip1']);
    }
    await c2.setDefaultContext('demo:main', { s: 'http://example.org/' });
    for (let i = 0; i < 2; i++) {
      expect((await runJsonLdQuery(c2, text, scope)).result).toEqual([['s:trip1', { '@value': '2024-05-01', '@type': XSD + 'date' }]]);
      expect((await runJsonLdQuery(c2, own, scope)).result).toEqual(['o:trip1']);
    }
    await c2.setDefaultContext('demo:main', { u: 'http://example.org/', xsd: XSD });
    expect((await runJsonLdQuery(c2, text, scope)).result).toEqual([['u:trip1', { '@value': '2024-05-01', '@type': 'xsd:date' }]]);
    await c2.setDefaultContext('demo:main', null);
    expect((await runJsonLdQuery(c2, text, scope)).result).toEqual([[trip, { '@value': '2024-05-01', '@type': XSD + 'date' }]]);
    // A new commit is read by the next run of a cached query.
    await c2.transact('demo:main', await parseJsonLdTxn({ '@context': { o: 'http://example.org/' }, '@graph': [{ '@id': 'o:trip2', 'o:start': '2024-06-01' }] }, 'insert'));
    expect(((await runJsonLdQuery(c2, own, scope)).result as string[]).sort()).toEqual(['o:trip1', 'o:trip2']);
  });

  it('the same text in json and typed-json, and as text or object', async () => {
    for (let i = 0; i < 2; i++) {
      expect((await runJsonLdQuery(conn, text, { ...demo, outputFormat: 'typed-json' })).result)
        .toEqual([{ '?d': { '@value': '2024-05-01', '@type': 'xsd:date' }, '?p': { '@id': 'ex:trip1' } }]);
      expect((await runJsonLdQuery(conn, JSON.parse(text), demo)).result).toEqual([['ex:trip1', { '@value': '2024-05-01', '@type': 'xsd:date' }]]);
    }
  });

  it('a ledger scope with a time specifier reads that time', async () => {
    const r = await runJsonLdQuery(conn, { select: '?st', where: { '@id': 'ex:ben', 'ex:status': '?st' } }, { ...demo, ledger: 'demo:main@t:2' });
    expect(r.result).toEqual(['active']);
    expect(r.ledgers).toEqual({ 'demo:main': 2 });
  });
});

describe('repeated query text', () => {
  it('a text with its own context answers alike when repeated, after the parse cache is emptied, and when another text came between', async () => {
    const { setParseCacheBytes, parseCacheBytes } = await import('../../src/core/query/jsonld/service.js');
    const text = JSON.stringify({ '@context': C, select: ['?n'], where: { '@id': '?p', 'schema:name': '?n' }, orderBy: '?n' });
    const other = JSON.stringify({ '@context': C, select: ['?k'], where: { '@id': '?p', 'ex:nick': '?k' } });
    const want = ['Ana', 'Ben', 'Caro', 'Dan'];
    expect((await runJsonLdQuery(conn, text, { ledger: 'demo:main' })).result).toEqual(want);
    expect((await runJsonLdQuery(conn, text, { ledger: 'demo:main' })).result).toEqual(want);
    const before = parseCacheBytes();
    setParseCacheBytes(0);
    expect(parseCacheBytes()).toBe(0);
    expect((await runJsonLdQuery(conn, text, { ledger: 'demo:main' })).result).toEqual(want);
    setParseCacheBytes(24 * 1024 * 1024);
    expect((await runJsonLdQuery(conn, text, { ledger: 'demo:main' })).result).toEqual(want);
    expect((await runJsonLdQuery(conn, other, { ledger: 'demo:main' })).result).toEqual(['Benny']);
    expect((await runJsonLdQuery(conn, text, { ledger: 'demo:main' })).result).toEqual(want);
    expect(parseCacheBytes()).toBeGreaterThan(0);
    expect(before).toBeGreaterThan(0);
  });
});
