/**
 * Counts are facts too (policy.md §5): `GET /info` and `GET /log` of a restricted identity count
 * only what it may view, so neither statistics nor commit summaries reveal hidden facts. alice may
 * not see Bob's salary (policy.md §7), Carol, the identities or the policies; hana sees everything
 * (her policy allows every view), so her restricted answers equal the root ones; mia may view only
 * commit messages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, postText, startTestServer, type TestServer } from '../support/server.js';
import { HR_DATA } from '../policy/fixtures.js';
import { DID_A, signerA, token } from './helpers.js';

const CTX = { ex: 'http://example.org/', f: 'https://ns.ledgraph.dev/' };
const EX = 'http://example.org/';
const F = 'https://ns.ledgraph.dev/';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const XSD = 'http://www.w3.org/2001/XMLSchema#';
const ALICE = 'https://example.com/id/alice';
const HANA = 'https://example.com/id/hana';
const MIA = 'https://example.com/id/mia';
const PREFIX = 'PREFIX ex: <http://example.org/> ';

/** mia's identity and a policy that lets her view commit messages (txn-meta `f:message`) only. */
const MIA_DATA = [
  { '@id': MIA, 'f:policyClass': { '@id': 'ex:MetaPolicy' } },
  { '@id': 'ex:metaView', '@type': ['f:AccessPolicy', 'ex:MetaPolicy'], 'f:action': { '@id': 'f:view' }, 'f:onProperty': { '@id': 'f:message' }, 'f:allow': true },
];

interface Summary { t: number; commit_id: string; time: string; asserts: number; retracts: number; flake_count: number; message: string | null }
interface LogBody { ledger_id: string; commits: Summary[]; count: number; truncated: boolean }
interface PropertyInfo { count: number; 'last-modified-t': number; datatypes?: Record<string, number>; 'ndv-values'?: number; 'ndv-subjects'?: number; selectivity?: number }
interface ClassInfo { count: number; properties?: Record<string, { count: number; refs: number; 'ref-classes': Record<string, number> }>; 'property-list'?: string[] }
interface Info { ledger: string; t: number; commitId: string; stats: { flakes: number; size: number; indexed: number; properties: Record<string, PropertyInfo>; classes: Record<string, ClassInfo> } }

describe('/info and /log count only what the caller may view', () => {
  let srv: TestServer;
  let alice: string, hana: string, mia: string, admin: string;
  const as = (tok: string) => ({ Authorization: `Bearer ${tok}` });

  async function get<T>(path: string, tok: string): Promise<T> {
    const r = await fetch(`${srv.api}${path}`, { headers: as(tok) });
    const text = await r.text();
    expect(r.status, text).toBe(200);
    return JSON.parse(text) as T;
  }

  /** SPARQL SELECT rows of alice as {var: lexical value}. */
  async function select(tok: string, text: string): Promise<Record<string, string>[]> {
    const r = await postText(`${srv.api}/query/hr:main`, 'application/sparql-query', PREFIX + text, { ...as(tok), Accept: 'application/sparql-results+json' });
    const body = await r.text();
    expect(r.status, body).toBe(200);
    const rows = (JSON.parse(body) as { results: { bindings: Record<string, { value: string }>[] } }).results.bindings;
    return rows.map((b) => Object.fromEntries(Object.entries(b).map(([k, v]) => [k, v.value])));
  }

  beforeAll(async () => {
    srv = await startTestServer({ config: { dataAuthMode: 'required', dataAuthTrustedIssuers: [DID_A] } });
    const a = await signerA();
    const read = { 'ledgraph.ledger.read.ledgers': ['hr'] };
    alice = await token(a, { 'ledgraph.identity': ALICE, ...read });
    hana = await token(a, { 'ledgraph.identity': HANA, ...read });
    mia = await token(a, { 'ledgraph.identity': MIA, ...read });
    admin = await token(a, { 'ledgraph.ledger.read.all': true, 'ledgraph.ledger.write.all': true });
    const ah = as(admin);
    expect((await postJson(`${srv.api}/create`, { ledger: 'hr' })).status).toBe(201);
    // t 1: the §7 data and mia; t 2: Bob's raise (hidden from alice); indexed at t 2;
    // t 3: nicknames in a named graph (alice's visible to her, Carol's not).
    expect((await postJson(`${srv.api}/insert/hr`, { '@context': CTX, '@graph': [...HR_DATA, ...MIA_DATA], 'f:message': 'load' }, ah)).status).toBe(200);
    expect((await postJson(`${srv.api}/update/hr`, { '@context': CTX, delete: { '@id': 'ex:bob', 'ex:salary': 95000 }, insert: { '@id': 'ex:bob', 'ex:salary': 99000 } }, ah)).status).toBe(200);
    await srv.conn.reindex('hr:main');
    const trig = `@prefix ex: <${EX}> . @prefix f: <${F}> .
      GRAPH ex:g { ex:alice ex:nick "Al" . ex:carol ex:nick "Caz" } <#txn-meta> { <#txn-meta> f:message "nicknames" }`;
    const w = await postText(`${srv.api}/insert/hr`, 'application/trig', trig, ah);
    expect(w.status, await w.text()).toBe(200);
  });
  afterAll(() => srv.close());

  it('root: /info is the unrestricted statistics, unchanged', async () => {
    const opts = { realtimePropertyDetails: true, includePropertyDatatypes: true, includePropertyEstimates: true };
    const info = await get<Info>('/info/hr:main?include_property_estimates=true', admin);
    expect(info).toEqual(JSON.parse(JSON.stringify(await srv.conn.info('hr:main', opts))));
    // 39 facts at t 1 (people 8, identities 4, policies 27), Bob's raise at t 2 (one out, one in),
    // two nicknames at t 3.
    expect(info.stats.flakes).toBe(41);
    expect(info.stats.properties[EX + 'salary']).toEqual({ count: 2, 'last-modified-t': 2, datatypes: { [XSD + 'integer']: 2 }, 'ndv-values': 2, 'ndv-subjects': 2, selectivity: 1 });
    expect(info.stats.properties[EX + 'nick']).toMatchObject({ count: 2, 'last-modified-t': 3 });
    expect(info.stats.classes[EX + 'Employee']!.count).toBe(2);
    expect(info.stats.classes[EX + 'Contractor']!.count).toBe(1);
  });

  it('alice: /info counts exactly her visible facts', async () => {
    const root = await get<Info>('/info/hr:main', admin);
    const info = await get<Info>('/info/hr:main?include_property_estimates=true', alice);
    expect(info.t).toBe(3);
    expect(info.commitId).toBe(root.commitId);
    // Her type, name, salary and nickname; Bob's type and name.
    expect(info.stats.flakes).toBe(6);
    expect(info.stats.size).toBe(Math.round(root.stats.size * 6 / root.stats.flakes));
    expect(info.stats.size).toBeLessThan(root.stats.size);
    expect(info.stats.properties).toEqual({
      [RDF_TYPE]: { count: 2, 'last-modified-t': 1, datatypes: { '@id': 2 }, 'ndv-values': 1, 'ndv-subjects': 2, selectivity: 2 },
      [EX + 'name']: { count: 2, 'last-modified-t': 1, datatypes: { [XSD + 'string']: 2 }, 'ndv-values': 2, 'ndv-subjects': 2, selectivity: 1 },
      // Bob's raise at t 2 is hidden: the property last changed, as far as alice can tell, at t 1.
      [EX + 'salary']: { count: 1, 'last-modified-t': 1, datatypes: { [XSD + 'integer']: 1 }, 'ndv-values': 1, 'ndv-subjects': 1, selectivity: 1 },
      // Named-graph facts count; datatypes and estimates read the default graph (and the index at t 2).
      [EX + 'nick']: { count: 1, 'last-modified-t': 3, datatypes: {}, 'ndv-values': 0, 'ndv-subjects': 0, selectivity: 0 },
    });
    expect(info.stats.classes).toEqual({
      [EX + 'Employee']: {
        count: 2,
        properties: {
          [RDF_TYPE]: { count: 2, refs: 2, 'ref-classes': {} },
          [EX + 'name']: { count: 2, refs: 0, 'ref-classes': {} },
          [EX + 'salary']: { count: 1, refs: 0, 'ref-classes': {} },
        },
        'property-list': [EX + 'name', EX + 'salary', RDF_TYPE].sort(),
      },
    });
    const text = JSON.stringify(info);
    for (const hidden of ['Contractor', 'AccessPolicy', 'policyClass', 'person', 'StaffPolicy']) expect(text).not.toContain(hidden);
  });

  it('alice: /info equals what her queries count', async () => {
    const info = await get<Info>('/info/hr:main', alice);
    const all = '{ { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }';
    expect(Number((await select(alice, `SELECT (COUNT(*) AS ?n) WHERE ${all}`))[0]!['n'])).toBe(info.stats.flakes);
    const perProperty = Object.fromEntries((await select(alice, `SELECT ?p (COUNT(*) AS ?n) WHERE ${all} GROUP BY ?p`)).map((r) => [r['p'], Number(r['n'])]));
    expect(perProperty).toEqual(Object.fromEntries(Object.entries(info.stats.properties).map(([p, v]) => [p, v.count])));
    const perClass = Object.fromEntries((await select(alice, 'SELECT ?c (COUNT(*) AS ?n) WHERE { { ?s a ?c } UNION { GRAPH ?g { ?s a ?c } } } GROUP BY ?c')).map((r) => [r['c'], Number(r['n'])]));
    expect(perClass).toEqual(Object.fromEntries(Object.entries(info.stats.classes).map(([c, v]) => [c, v.count])));
    const dts: Record<string, Record<string, number>> = {};
    for (const r of await select(alice, 'SELECT ?p ?dt (COUNT(*) AS ?n) WHERE { ?s ?p ?o BIND(IF(isLiteral(?o), STR(DATATYPE(?o)), "@id") AS ?dt) } GROUP BY ?p ?dt')) {
      (dts[r['p']!] ??= {})[r['dt']!] = Number(r['n']);
    }
    for (const [p, v] of Object.entries(info.stats.properties)) expect(v.datatypes, p).toEqual(dts[p] ?? {});
    const employeeProps = Object.fromEntries((await select(alice, 'SELECT ?p (COUNT(*) AS ?n) WHERE { ?s a ex:Employee ; ?p ?o } GROUP BY ?p')).map((r) => [r['p'], Number(r['n'])]));
    expect(employeeProps).toEqual(Object.fromEntries(Object.entries(info.stats.classes[EX + 'Employee']!.properties!).map(([p, v]) => [p, v.count])));
  });

  it('hana sees everything: her restricted /info equals the root one', async () => {
    const q = '/info/hr:main?include_property_estimates=true';
    expect(await get<Info>(q, hana)).toEqual(await get<Info>(q, admin));
  });

  it('the light /info under a policy, and zeros for an identity that views no data fact', async () => {
    const light = await get<Info>('/info/hr:main?realtime_property_details=false&include_property_datatypes=false', alice);
    expect(light.stats.flakes).toBe(6);
    expect(light.stats.classes).toEqual({ [EX + 'Employee']: { count: 2 } });
    expect(light.stats.properties[EX + 'salary']).toEqual({ count: 1, 'last-modified-t': 1 });
    // mia may view commit messages only: no data fact, so every count is zero and the size too.
    const none = await get<Info>('/info/hr:main', mia);
    expect(none.stats).toEqual({ flakes: 0, size: 0, indexed: 2, properties: {}, classes: {} });
  });

  it('root /log: every flake and every message', async () => {
    const log = await get<LogBody>('/log/hr:main', admin);
    expect(log.commits.map((c) => [c.t, c.asserts, c.retracts, c.flake_count, c.message])).toEqual([
      [3, 2, 0, 2, 'nicknames'], [2, 1, 1, 2, null], [1, 39, 0, 39, 'load'], [0, 0, 0, 0, null],
    ]);
    expect(await get<LogBody>('/log/hr:main', hana)).toEqual(log);
  });

  it('alice /log: counts exclude hidden flakes, equal /show, and hidden messages are null', async () => {
    const root = await get<LogBody>('/log/hr:main', admin);
    const log = await get<LogBody>('/log/hr:main', alice);
    expect(log.commits.map((c) => [c.t, c.asserts, c.retracts, c.flake_count, c.message])).toEqual([
      [3, 1, 0, 1, null], [2, 0, 0, 0, null], [1, 5, 0, 5, null], [0, 0, 0, 0, null],
    ]);
    // Heads, times and paging are not facts: they match the root log.
    expect(log.commits.map((c) => [c.commit_id, c.time])).toEqual(root.commits.map((c) => [c.commit_id, c.time]));
    expect([log.ledger_id, log.count, log.truncated]).toEqual([root.ledger_id, root.count, root.truncated]);
    for (const c of log.commits) {
      const show = await get<{ asserts: number; retracts: number; flakes: unknown[] }>(`/show/hr:main?commit=t:${c.t}`, alice);
      expect([c.asserts, c.retracts, c.flake_count], `t ${c.t}`).toEqual([show.asserts, show.retracts, show.flakes.length]);
    }
    const limited = await get<LogBody>('/log/hr:main?limit=2', alice);
    expect(limited.commits.map((c) => c.flake_count)).toEqual([1, 0]);
    expect([limited.count, limited.truncated]).toEqual([4, true]);
  });

  it('mia /log: no data flake, but the messages she may view', async () => {
    const log = await get<LogBody>('/log/hr:main', mia);
    expect(log.commits.map((c) => [c.t, c.asserts, c.retracts, c.flake_count, c.message])).toEqual([
      [3, 0, 0, 0, 'nicknames'], [2, 0, 0, 0, null], [1, 0, 0, 0, 'load'], [0, 0, 0, 0, null],
    ]);
  });
});
