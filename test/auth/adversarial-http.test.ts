/**
 * Adversarial reads over HTTP: alice holds a bearer token whose identity may not see Bob's salary
 * (95000, policy.md §7). Every endpoint that returns facts must leave it out — buffered and
 * streamed queries in both languages, history and time travel, multi-query aliases, /show, /log,
 * /info, the graph store and txn-meta — exactly as if it had never been asserted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, postJson, postText, type TestServer } from '../support/server.js';
import { HR_DATA } from '../policy/fixtures.js';
import { DID_A, signerA, token } from './helpers.js';

const CTX = { ex: 'http://example.org/', f: 'https://ns.ledgraph.dev/' };
const EXC = { ex: 'http://example.org/' };
const ALICE = 'https://example.com/id/alice';
const SECRET = '95000';
const PREFIX = 'PREFIX ex: <http://example.org/> ';

describe('hidden facts stay hidden on every endpoint', () => {
  let srv: TestServer;
  let alice: string, admin: string;
  const h = () => ({ Authorization: `Bearer ${alice}` });

  beforeAll(async () => {
    srv = await startTestServer({ config: { dataAuthMode: 'required', dataAuthTrustedIssuers: [DID_A] } });
    const a = await signerA();
    alice = await token(a, { 'ledgraph.identity': ALICE, 'ledgraph.ledger.read.ledgers': ['hr'] });
    admin = await token(a, { 'ledgraph.ledger.read.all': true, 'ledgraph.ledger.write.all': true });
    const ah = { Authorization: `Bearer ${admin}` };
    expect((await postJson(`${srv.api}/create`, { ledger: 'hr' })).status).toBe(201);
    // t 1: the §7 data; t 2: Bob's raise (a retraction and an assertion alice may not see).
    expect((await postJson(`${srv.api}/insert/hr`, { '@context': CTX, '@graph': HR_DATA }, ah)).status).toBe(200);
    expect((await postJson(`${srv.api}/update/hr`, { '@context': CTX, delete: { '@id': 'ex:bob', 'ex:salary': 95000 }, insert: { '@id': 'ex:bob', 'ex:salary': 99000 } }, ah)).status).toBe(200);
  });
  afterAll(() => srv.close());

  const noSecret = (text: string) => { expect(text).not.toContain(SECRET); expect(text).not.toContain('99000'); };
  /** The root view does contain the secret: the checks below are not vacuous. */
  it('control: the admin token (scope-only, root view) sees both salaries of Bob', async () => {
    const r = await postJson(`${srv.api}/query/hr:main`, { '@context': EXC, from: 'hr:main@t:1', select: '?s', where: { '@id': 'ex:bob', 'ex:salary': '?s' } }, { Authorization: `Bearer ${admin}` });
    expect(await r.json()).toEqual([95000]);
  });

  it('SPARQL FILTER / COUNT / OPTIONAL / paths on /query', async () => {
    const q = async (text: string) => {
      const r = await postText(`${srv.api}/query/hr:main`, 'application/sparql-query', PREFIX + text, { ...h(), Accept: 'application/sparql-results+json' });
      expect(r.status).toBe(200);
      const body = await r.text();
      noSecret(body);
      return (JSON.parse(body) as { results?: { bindings: Record<string, { value: string }>[] }; boolean?: boolean });
    };
    expect((await q('SELECT ?p WHERE { ?p ex:salary ?s FILTER(?s > 90000 && ?s < 100000) }')).results!.bindings).toEqual([]);
    expect((await q('SELECT (COUNT(*) AS ?n) WHERE { ?p ex:salary ?s }')).results!.bindings.map((b) => b['n']!.value)).toEqual(['1']);
    // One solution, ?s unbound.
    expect((await q('SELECT ?s WHERE { ex:bob ex:name ?n OPTIONAL { ex:bob ex:salary ?s } }')).results!.bindings).toEqual([{}]);
    expect((await q('ASK { ex:bob ex:salary|^ex:salary ?x }')).boolean).toBe(false);
  });

  it('JSON-LD query at past t and a history range (from/to)', async () => {
    const past = await postJson(`${srv.api}/query/hr:main`, { '@context': EXC, from: 'hr:main@t:1', select: ['?p', '?s'], where: { '@id': '?p', 'ex:salary': '?s' } }, h());
    const text = await past.text();
    noSecret(text);
    expect(JSON.parse(text)).toEqual([['ex:alice', 120000]]);
    const hist = await postJson(`${srv.api}/query`, {
      '@context': EXC, from: 'hr:main@t:1', to: 'hr:main@t:latest', select: ['?p', '?s', '?t', '?op'],
      where: { '@id': '?p', 'ex:salary': { '@value': '?s', '@t': '?t', '@op': '?op' } }, orderBy: ['?t', '?op'],
    }, h());
    const ht = await hist.text();
    expect(hist.status, ht).toBe(200);
    noSecret(ht);
    expect(JSON.parse(ht)).toEqual([['ex:alice', 120000, 1, 'assert']]);
  });

  it('NDJSON streaming, JSON-LD and SPARQL', async () => {
    const a = await postJson(`${srv.api}/stream/query/hr:main`, { '@context': EXC, select: ['?p', '?s'], where: { '@id': '?p', 'ex:salary': '?s' } }, h());
    const at = await a.text();
    expect(a.status, at).toBe(200);
    noSecret(at);
    expect(at.trim().split('\n').map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(['head', 'row', 'end']);
    const b = await postText(`${srv.api}/stream/query/hr:main`, 'application/sparql-query', PREFIX + 'SELECT ?p ?s WHERE { ?p ex:salary ?s }', h());
    const bt = await b.text();
    expect(b.status, bt).toBe(200);
    noSecret(bt);
    expect(bt.trim().split('\n').map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(['head', 'row', 'end']);
  });

  it('multi-query: JSON-LD and SPARQL aliases', async () => {
    const r = await postJson(`${srv.api}/multi-query`, {
      queries: {
        j: { language: 'jsonld', query: { '@context': EXC, from: 'hr:main', select: ['?s'], where: { '@id': 'ex:bob', 'ex:salary': '?s' } } },
        s: { language: 'sparql', query: PREFIX + 'SELECT ?s FROM <hr:main> WHERE { ex:bob ex:salary ?s }' },
      },
    }, h());
    const text = await r.text();
    expect(r.status, text).toBe(200);
    noSecret(text);
    const body = JSON.parse(text) as { status: string; results: Record<string, unknown> };
    expect(body.status).toBe('ok');
    expect(body.results['j']).toEqual([]);
    expect(body.results['s']).toEqual({ head: { vars: ['s'] }, results: { bindings: [] } });
  });

  it('/show lists only visible flakes and counts only them', async () => {
    const t1 = await fetch(`${srv.api}/show/hr:main?commit=t:1`, { headers: h() });
    const t1Text = await t1.text();
    expect(t1.status, t1Text).toBe(200);
    noSecret(t1Text);
    const show1 = JSON.parse(t1Text) as { asserts: number; retracts: number; flakes: unknown[] };
    // alice: her type, name, salary; Bob's type and name.
    expect([show1.asserts, show1.retracts, show1.flakes.length]).toEqual([5, 0, 5]);
    const t2 = await fetch(`${srv.api}/show/hr:main?commit=t:2`, { headers: h() });
    const t2Text = await t2.text();
    noSecret(t2Text);
    expect(JSON.parse(t2Text)).toMatchObject({ t: 2, asserts: 0, retracts: 0, flakes: [] });
  });

  it('/log carries no fact values and counts only visible flakes', async () => {
    const r = await fetch(`${srv.api}/log/hr:main`, { headers: h() });
    const text = await r.text();
    expect(r.status, text).toBe(200);
    noSecret(text);
    const log = JSON.parse(text) as { commits: { t: number; asserts: number; retracts: number; flake_count: number }[] };
    // Bob's raise (t 2) leaves no trace; t 1 counts what /show lists.
    expect(log.commits.map((c) => [c.t, c.asserts, c.retracts, c.flake_count])).toEqual([[2, 0, 0, 0], [1, 5, 0, 5], [0, 0, 0, 0]]);
  });

  it('/info statistics count only visible facts', async () => {
    const r = await fetch(`${srv.api}/info/hr:main`, { headers: h() });
    const text = await r.text();
    expect(r.status, text).toBe(200);
    const stats = (JSON.parse(text) as { stats: { flakes: number; properties: Record<string, { count: number; 'last-modified-t': number }>; classes: Record<string, { count: number }> } }).stats;
    expect(stats.flakes).toBe(5);
    // One salary (her own), last changed at t 1 as far as she can tell: the raise at t 2 is hidden.
    expect(stats.properties['http://example.org/salary']).toMatchObject({ count: 1, 'last-modified-t': 1 });
    expect(Object.keys(stats.classes)).toEqual(['http://example.org/Employee']);
  });

  it('graph store GET of the default graph', async () => {
    const r = await fetch(`${srv.api}/data/hr:main?default`, { headers: { ...h(), Accept: 'application/n-triples' } });
    const text = await r.text();
    expect(r.status, text).toBe(200);
    noSecret(text);
    expect(text.trim().split('\n').length).toBe(5);
  });

  it('txn-meta: commit facts are not a side door', async () => {
    const r = await postJson(`${srv.api}/query`, { '@context': { f: 'https://ns.ledgraph.dev/' }, from: 'hr:main#txn-meta', select: ['?c', '?p', '?o'], where: { '@id': '?c', '?p': '?o' } }, h());
    const text = await r.text();
    expect(r.status, text).toBe(200);
    noSecret(text);
    // Commit metadata is data too: nothing targets it, so default-allow (false) hides it.
    expect(JSON.parse(text)).toEqual([]);
  });
});
