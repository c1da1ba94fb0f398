/**
 * The browser peer's API in Node (issue 15): the worker module (src/browser-peer/worker.ts) runs
 * in this process over fake-indexeddb, wired to the page-side client through a message channel
 * that structured-clones like a Worker's, against a real transaction server on loopback with the
 * storage proxy on. Every language and time specifier is compared with the server's own answer to
 * the same request; streams are paced by the page and stop in the worker on cancel; the peer
 * refuses writes; after the server is gone a fresh worker reopens from IndexedDB and answers the same.
 */
import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openBrowserPeer, type BrowserPeer, BrowserPeerError } from '../../src/browser-peer/client.js';
import type { WorkerMessage, WorkerRequest } from '../../src/browser-peer/protocol.js';
import { signerA, token } from '../auth/helpers.js';
import { startTx, tempDir, type Node } from './helpers.js';

const EX = 'http://example.org/';
const F = 'https://ns.ledgraph.dev/';
const DB = `ledgraph-browser-peer-api-${process.pid}`;

/** A worker in this process: a fresh instance of worker.ts, messages cloned both ways; `sent` counts chunks per request. */
async function inProcessWorker(): Promise<{ worker: Worker; sent: Map<number, number>; finished: Set<number> }> {
  const sent = new Map<number, number>();
  const finished = new Set<number>();
  const page = { onmessage: null as ((ev: { data: WorkerMessage }) => void) | null };
  const scope = {
    onmessage: null as ((ev: { data: WorkerRequest }) => void) | null,
    postMessage(m: WorkerMessage) {
      if (m.kind === 'chunk') sent.set(m.id, (sent.get(m.id) ?? 0) + 1);
      if (m.kind === 'done' || m.kind === 'error') finished.add(m.id);
      const copy = structuredClone(m);
      setTimeout(() => page.onmessage?.({ data: copy }), 0);
    },
  };
  (globalThis as { self?: unknown }).self = scope;
  vi.resetModules();
  await import('../../src/browser-peer/worker.js');
  const worker = {
    set onmessage(f: ((ev: { data: WorkerMessage }) => void) | null) { page.onmessage = f; },
    get onmessage() { return page.onmessage; },
    postMessage(m: WorkerRequest) { const copy = structuredClone(m); setTimeout(() => scope.onmessage?.({ data: copy }), 0); },
    terminate() {},
  } as unknown as Worker;
  return { worker, sent, finished };
}

async function post(api: string, path: string, body: string, type: string, accept = 'application/json'): Promise<Response> {
  const r = await fetch(`${api}${path}`, { method: 'POST', headers: { 'Content-Type': type, Accept: accept }, body });
  expect(r.ok, await r.clone().text()).toBe(true);
  return r;
}

const SELECT = `SELECT ?s ?name WHERE { ?s <${EX}name> ?name } ORDER BY ?name`;
const JSONLD = { '@context': { ex: EX }, select: ['?s', '?name'], where: { '@id': '?s', 'ex:name': '?name' }, orderBy: ['?name'] };
const GRAPHQL = '{ persons(orderBy: {field: id}) { id name age } }';
const CYPHER = { cypher: 'MATCH (p:Person) RETURN p.name AS name, p.age AS age ORDER BY name', '@context': { Person: `${EX}Person`, name: `${EX}name`, age: `${EX}age` } };

/** NDJSON text as records without the run-dependent `time` (and heartbeats, which only the server sends). */
const records = (text: string) => text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, unknown>)
  .filter((r) => r.type !== 'heartbeat').map(({ time, ...r }) => { expect(typeof time === 'string' || r.type !== 'end').toBe(true); return r; });

describe('browser peer API: four languages, every time specifier, streams, offline', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let tx: Node;
  let peer: BrowserPeer;
  let harness: Awaited<ReturnType<typeof inProcessWorker>>;
  let tok: string;
  const commits: { t: number; commit_id: string; time: string }[] = [];

  beforeAll(async () => {
    dir = await tempDir();
    tx = await startTx(dir.dir);
    tok = await token(await signerA(), { 'ledgraph.storage.all': true, 'ledgraph.events.all': true });
    await post(tx.api, '/create', JSON.stringify({ ledger: 'people' }), 'application/json');
    const turtle = (s: string) => post(tx.api, '/insert/people:main', `@prefix ex: <${EX}> .\n${s}`, 'text/turtle');
    await turtle('ex:alice a ex:Person ; ex:name "Alice" ; ex:age 41 .');
    await new Promise((r) => setTimeout(r, 20));
    await turtle('ex:bob a ex:Person ; ex:name "Bob" ; ex:age 29 . ex:alice ex:knows ex:bob .');
    await new Promise((r) => setTimeout(r, 20));
    await post(tx.api, '/update/people:main', `PREFIX ex: <${EX}> DELETE DATA { ex:alice ex:name "Alice" } ; INSERT DATA { ex:alice ex:name "Alicia" }`, 'application/sparql-update');
    // Enough numbers for a stream of many chunks (40 × 40 rows of a cross product).
    await turtle(Array.from({ length: 40 }, (_, i) => `ex:n${i} ex:value ${i} .`).join('\n'));
    const log = await (await fetch(`${tx.api}/log/people:main`)).json() as { commits: typeof commits } | typeof commits;
    commits.push(...(Array.isArray(log) ? log : log.commits));
    harness = await inProcessWorker();
    peer = await openBrowserPeer({ worker: harness.worker, url: tx.url, token: tok, ledger: 'people', database: DB });
  });
  afterAll(async () => {
    await peer?.close().catch(() => {});
    await tx?.close().catch(() => {});
    await dir?.remove();
  });

  const byT = (t: number) => commits.find((c) => c.t === t)!;

  it('opens at the head', () => {
    expect(peer.opened).toEqual({ ledger: 'people:main', t: 4 });
    expect(commits.map((c) => c.t).sort()).toEqual([0, 1, 2, 3, 4]);
  });

  const specs = () => [
    { name: 'head', at: {}, suffix: '' },
    { name: '@t:1', at: { t: 1 }, suffix: '@t:1' },
    { name: '@time: of t 2', at: { time: byT(2).time }, suffix: `@time:${byT(2).time}` },
    { name: '@commit: of t 1 (CID)', at: { commit: byT(1).commit_id }, suffix: `@commit:${byT(1).commit_id}` },
  ];

  it('SPARQL and JSON-LD answer as the server does, at the head and at t, time and commit', async () => {
    for (const s of specs()) {
      const server = await (await post(tx.api, `/query/people:main${s.suffix}`, SELECT, 'application/sparql-query', 'application/sparql-results+json')).json();
      expect(await peer.query(SELECT, s.at), s.name).toEqual(server);
      expect(await peer.query({ sparql: SELECT }, s.at), s.name).toEqual(server);
      const ld = await (await post(tx.api, `/query/people:main${s.suffix}`, JSON.stringify(JSONLD), 'application/json')).json();
      expect(await peer.query(JSONLD, s.at), s.name).toEqual(ld);
      expect(await peer.query({ jsonld: JSONLD }, s.at), s.name).toEqual(ld);
      expect(await peer.query({ jsonld: JSON.stringify(JSONLD) }, s.at), s.name).toEqual(ld);
    }
    const names = (r: unknown) => (r as { results: { bindings: { name: { value: string } }[] } }).results.bindings.map((b) => b.name.value);
    expect(names(await peer.query(SELECT))).toEqual(['Alicia', 'Bob']);
    expect(names(await peer.query(SELECT, { t: 1 }))).toEqual(['Alice']);
    expect(names(await peer.query(SELECT, { time: byT(2).time }))).toEqual(['Alice', 'Bob']);
  });

  it('a SPARQL history range (FROM <a@t:1> TO <a@t:latest>) answers as the server does', async () => {
    const HISTORY = `PREFIX ex: <${EX}> SELECT ?name ?e WHERE { GRAPH ?e { ?s ex:name ?name } } ORDER BY ?e ?name FROM <people:main@t:1> TO <people:main@t:latest>`;
    const server = await (await post(tx.api, '/query/people:main', HISTORY, 'application/sparql-query', 'application/sparql-results+json')).json();
    expect(await peer.query({ sparql: HISTORY })).toEqual(server);
    const rows = (server as { results: { bindings: { name: { value: string }; e: { value: string } }[] } }).results.bindings.map((b) => `${b.e.value.replace('urn:ledgraph:event:', '')} ${b.name.value}`);
    expect(rows).toEqual(['1:assert:0 Alice', '2:assert:0 Bob', '3:assert:0 Alicia', '3:retract:0 Alice']);
  });

  it('GraphQL answers and its SDL equal the server\'s, at every time specifier', async () => {
    for (const s of specs()) {
      const server = await (await post(tx.api, `/graphql/people:main${s.suffix}`, JSON.stringify({ query: GRAPHQL }), 'application/json')).json();
      expect(await peer.query({ graphql: GRAPHQL }, s.at), s.name).toEqual(server);
      const sdl = await (await fetch(`${tx.api}/graphql-schema/people:main${s.suffix}`)).text();
      expect(await peer.schema(s.at), s.name).toBe(sdl);
    }
    // Inferred tier (no shapes): every property is a list.
    expect(await peer.query({ graphql: GRAPHQL })).toEqual({ data: { persons: [
      { id: `${EX}alice`, name: ['Alicia'], age: [41] }, { id: `${EX}bob`, name: ['Bob'], age: [29] }] } });
    expect(await peer.query({ graphql: GRAPHQL }, { t: 1 })).toEqual({ data: { persons: [{ id: `${EX}alice`, name: ['Alice'], age: [41] }] } });
    expect(await peer.query({ graphql: 'query Q($n: Int) { persons(limit: $n, orderBy: {field: id}) { name } }', variables: { n: 1 }, operationName: 'Q' }))
      .toEqual({ data: { persons: [{ name: ['Alicia'] }] } });
  });

  it('Cypher answers the §8 envelope as the server does, at every time specifier', async () => {
    for (const s of specs()) {
      const server = await (await post(tx.api, `/query/people:main${s.suffix}`, JSON.stringify(CYPHER), 'application/cypher')).json();
      expect(await peer.query(CYPHER, s.at), s.name).toEqual(server);
    }
    const rows = (r: unknown) => (r as { results: { data: { row: unknown[] }[] }[] }).results[0]!.data.map((d) => d.row);
    expect(rows(await peer.query(CYPHER))).toEqual([['Alicia', 41], ['Bob', 29]]);
    expect(rows(await peer.query(CYPHER, { commit: byT(1).commit_id }))).toEqual([['Alice', 41]]);
    expect(rows(await peer.query({ cypher: 'MATCH (p:Person) WHERE p.age > $min RETURN p.name AS name', params: { min: 30 }, '@context': CYPHER['@context'] }, { t: 2 }))).toEqual([['Alice']]);
  });

  it('the info document carries the classes and properties (examples and Cypher names offline)', async () => {
    const info = await peer.info() as { t: number; stats: { classes: Record<string, unknown>; properties: Record<string, unknown> } };
    expect(info.t).toBe(4);
    expect(Object.keys(info.stats.classes)).toContain(`${EX}Person`);
    expect(Object.keys(info.stats.properties)).toEqual(expect.arrayContaining([`${EX}name`, `${EX}age`, `${EX}knows`, `${EX}value`]));
  });

  it('refuses writes: Cypher CREATE and GraphQL mutations are 403 on the read-only replica, nothing written', async () => {
    const e = await peer.query({ cypher: 'CREATE (p:Person {name: "Zed"})', '@context': CYPHER['@context'] }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(BrowserPeerError);
    expect([(e as BrowserPeerError).status, (e as BrowserPeerError).type]).toEqual([403, 'err:db/Forbidden']);
    expect((e as Error).message).toMatch(/^the local replica is read-only: Cypher writes/);
    // A curated schema publishes createMember; on the peer the mutation fails in the commit step.
    await post(tx.api, '/insert/people:main', `@prefix ex: <${EX}> . @prefix f: <${F}> .
ex:gql a f:GraphQLSchema ; f:graphqlType ex:gqlMember .
ex:gqlMember a f:GraphQLType ; f:graphqlClass ex:Person ; f:graphqlName "Member" ; f:graphqlPlural "members" ; f:graphqlMutation "create" .`, 'text/turtle');
    await vi.waitFor(async () => expect(((await peer.info()) as { t: number }).t).toBe(5), { timeout: 10_000, interval: 50 });
    const m = await peer.query({ graphql: 'mutation { createMember(input: {id: "ex:zed", name: "Zed"}) { id } }' }) as { data: unknown; errors: { message: string; extensions: { code: string } }[] };
    expect(m.data).toEqual({ createMember: null });
    expect(m.errors.map((x) => x.extensions.code)).toEqual(['EXECUTION_ERROR']);
    expect(m.errors[0]!.message).toMatch(/the local replica is read-only: GraphQL mutations run on the transaction server/);
    const server = await (await post(tx.api, '/query/people:main', `ASK { <${EX}zed> ?p ?o }`, 'application/sparql-query', 'application/sparql-results+json')).json();
    expect(server).toEqual({ head: {}, boolean: false });
  });

  it('streams the records of /stream/query (SPARQL and JSON-LD, at a t), refusing what the server refuses', async () => {
    for (const [q, body, type, at, suffix] of [
      [SELECT, SELECT, 'application/sparql-query', {}, ''],
      [{ sparql: SELECT }, SELECT, 'application/sparql-query', { t: 1 }, '@t:1'],
      [JSONLD, JSON.stringify(JSONLD), 'application/json', { time: byT(2).time }, `@time:${byT(2).time}`],
    ] as const) {
      const server = records(await (await post(tx.api, `/stream/query/people:main${suffix}`, body, type, 'application/x-ndjson')).text());
      let text = '';
      for await (const chunk of peer.stream(q, at)) {
        expect(chunk.endsWith('\n')).toBe(true);
        text += chunk;
      }
      const local = records(text);
      expect(local.map(({ fuel, ...r }) => r)).toEqual(server.map(({ fuel, ...r }) => r));
      expect(typeof local.at(-1)!.fuel).toBe('number');
    }
    for (const [q, message] of [
      [`ASK { ?s ?p ?o }`, /^streaming supports SELECT queries only/],
      [{ graphql: GRAPHQL }, /^GraphQL does not stream/],
      [{ '@context': { ex: EX }, selectOne: ['?s'], where: { '@id': '?s', 'ex:name': '?n' } }, /selectOne queries cannot be streamed/],
    ] as const) {
      const e = await (async () => { for await (const _ of peer.stream(q)) { /* nothing */ } })().catch((x: unknown) => x);
      expect(e, String(message)).toBeInstanceOf(BrowserPeerError);
      expect((e as Error).message).toMatch(message);
      expect((e as BrowserPeerError).status).toBe(400);
    }
  });

  it('a stream is paced by the page and leaving the loop stops it in the worker', async () => {
    const cross = `SELECT ?a ?b WHERE { ?a <${EX}value> ?x . ?b <${EX}value> ?y . ?c <${EX}value> ?z }`; // 64,000 rows
    const before = new Set(harness.sent.keys());
    let chunks = 0;
    for await (const chunk of peer.stream(cross)) {
      expect(chunk.length).toBeGreaterThan(0);
      if (++chunks === 2) {
        // The page stalls: the worker may run at most its window ahead.
        await new Promise((r) => setTimeout(r, 300));
        break;
      }
    }
    await new Promise((r) => setTimeout(r, 300));
    const id = [...harness.sent.keys()].find((k) => !before.has(k))!;
    // Two consumed + at most four ahead (+1 in flight), of the ≈200 chunks the whole result takes.
    expect(harness.sent.get(id)).toBeGreaterThanOrEqual(2);
    expect(harness.sent.get(id)).toBeLessThanOrEqual(7);
    expect(harness.finished.has(id)).toBe(false);
    // The worker still answers (nothing left running in its way).
    expect(((await peer.query(`SELECT (COUNT(*) AS ?n) WHERE { ?a <${EX}value> ?x }`)) as { results: { bindings: { n: { value: string } }[] } }).results.bindings[0]!.n.value).toBe('40');
  });

  it('a query cancelled by its signal rejects at once; the worker sends nothing more for it', async () => {
    const ac = new AbortController();
    const cross = `SELECT (COUNT(*) AS ?n) WHERE { ?a <${EX}value> ?x . ?b <${EX}value> ?y . ?c <${EX}value> ?z . ?d <${EX}value> ?w }`;
    const p = peer.query(cross, { signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    const e = await p.catch((x: unknown) => x);
    expect((e as DOMException).name).toBe('AbortError');
    const ids = [...harness.finished];
    await new Promise((r) => setTimeout(r, 200));
    expect([...harness.finished].length).toBe(ids.length);
  });

  it('offline: a fresh worker reopens from IndexedDB with the server gone and answers every language at every time specifier', async () => {
    const online: unknown[] = [];
    const ask = async (p: BrowserPeer) => {
      const out: unknown[] = [];
      for (const s of specs()) {
        out.push(await p.query(SELECT, s.at), await p.query(JSONLD, s.at), await p.query({ graphql: GRAPHQL }, s.at), await p.query(CYPHER, s.at), await p.schema(s.at));
      }
      let text = '';
      for await (const c of p.stream(SELECT, { t: 2 })) text += c;
      out.push(records(text).map(({ fuel, ...r }) => r));
      return out;
    };
    online.push(...await ask(peer));
    await peer.close();
    // A second ledger, fully indexed (the peer then reads no commit at open): opened lazily and
    // asked one head query, and opened with `full` and asked nothing.
    await post(tx.api, '/create', JSON.stringify({ ledger: 'chain' }), 'application/json');
    for (const n of ['one', 'two', 'three']) {
      await post(tx.api, '/insert/chain:main', `<${EX}${n}> <${EX}name> "${n}" .`, 'text/turtle');
      await new Promise((r) => setTimeout(r, 20));
    }
    await post(tx.api, '/reindex', JSON.stringify({ ledger: 'chain:main' }), 'application/json');
    const chainLog = await (await fetch(`${tx.api}/log/chain:main`)).json() as { commits: typeof commits } | typeof commits;
    const chain = Array.isArray(chainLog) ? chainLog : chainLog.commits;
    const NAMES = `SELECT ?n WHERE { ?s <${EX}name> ?n } ORDER BY ?n`;
    const names = async (p: BrowserPeer, at: Record<string, unknown>) => ((await p.query(NAMES, at)) as { results: { bindings: { n: { value: string } }[] } }).results.bindings.map((b) => b.n.value);
    for (const replicate of ['lazy', 'full'] as const) {
      harness = await inProcessWorker();
      peer = await openBrowserPeer({ worker: harness.worker, url: tx.url, token: tok, ledger: 'chain', database: `${DB}-${replicate}`, replicate });
      expect(peer.opened).toEqual({ ledger: 'chain:main', t: 3 });
      if (replicate === 'lazy') expect(await names(peer, {})).toEqual(['one', 'three', 'two']);
      await new Promise((r) => setTimeout(r, 2000));
      await peer.close();
    }

    await tx.close();
    harness = await inProcessWorker();
    peer = await openBrowserPeer({ worker: harness.worker, url: tx.url, token: tok, ledger: 'people', database: DB });
    expect(peer.opened).toEqual({ ledger: 'people:main', t: 5 });
    expect(await ask(peer)).toEqual(online);
    await peer.close();

    // Lazy: what the head query read, and the commit chain, so `time` and `commit` of the head resolve offline.
    harness = await inProcessWorker();
    peer = await openBrowserPeer({ worker: harness.worker, url: tx.url, token: tok, ledger: 'chain', database: `${DB}-lazy` });
    const head = chain.find((c) => c.t === 3)!;
    expect(await names(peer, { time: new Date(Date.parse(head.time) + 60_000).toISOString() })).toEqual(['one', 'three', 'two']);
    expect(await names(peer, { commit: head.commit_id })).toEqual(['one', 'three', 'two']);
    await peer.close();
    // Full: every state, never queried before.
    harness = await inProcessWorker();
    peer = await openBrowserPeer({ worker: harness.worker, url: tx.url, token: tok, ledger: 'chain', database: `${DB}-full`, replicate: 'full' });
    expect(await names(peer, {})).toEqual(['one', 'three', 'two']);
    expect(await names(peer, { t: 1 })).toEqual(['one']);
    expect(await names(peer, { time: chain.find((c) => c.t === 2)!.time })).toEqual(['one', 'two']);
    expect(await names(peer, { commit: chain.find((c) => c.t === 1)!.commit_id })).toEqual(['one']);
  });
});
