/**
 * A large insert staged through sorted id runs (transact/stage-runs.ts) must commit exactly what
 * the ordinary Stager commits: the same staged flakes in the same order (the commit's flake
 * section), the same receipt, the same facts at the new t and at t-1, and the same errors. Each
 * case runs one request through both paths on twin ledgers with the same history.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { collect } from '../../src/core/query/results/types.js';
import { Connection } from '../../src/core/ledger/connection.js';
import { runSparql } from '../../src/core/query/sparql-service.js';
import { blankNode, defaultGraph, literal, namedNode, termKey, type Term } from '../../src/core/rdf/terms.js';
import { xsd } from '../../src/core/rdf/vocab.js';
import { parseRdfTxn } from '../../src/core/transact/parse-rdf.js';
import { RUN_STAGING_MIN_QUADS, RunStager, setRunStagingMinQuads } from '../../src/core/transact/stage-runs.js';
import { stageRequest } from '../../src/core/transact/stage-request.js';
import type { TxnQuad, TxnRequest } from '../../src/core/transact/txn-request.js';
import { keyRowsInsert } from '../../src/core/transact/key-rows.js';
import { NTriplesBody } from '../../src/server/ntriples-body.js';
import { openMemoryStorage } from '../../src/storage/index.js';
import { CID } from 'multiformats/cid';
import { COMMIT_HEADER_SIZE, decodeEnvelope } from '../../src/core/commit/commit-codec.js';

const ex = (s: string) => namedNode('http://example.org/' + s);
const q = (s: Term, p: string, o: Term, g?: string): TxnQuad => ({ subject: s as TxnQuad['subject'], predicate: ex(p), object: o, graph: g ? ex(g) : defaultGraph });
const insert = (quads: TxnQuad[]): TxnRequest => ({ kind: 'insert', quads, meta: [], opts: {} });

/** 6,000+ quads: repeated facts, facts the ledger holds, blank nodes, a new and an old named graph, literals of several kinds. */
function bigQuads(): TxnQuad[] {
  const out: TxnQuad[] = [];
  for (let i = 0; i < 6000; i++) {
    const o = i % 499 === 0 ? literal(`d${i}`, ex(`dt${i % 3}`)) : [literal(`v ${i % 4000}`), literal(String(i % 3000), namedNode(xsd.integer)), ex(`o${i % 700}`), literal(`w${i}`, 'en'), blankNode(`n${i % 50}`)][i % 5]!;
    const s = i % 13 === 0 ? blankNode(`b${i % 40}`) : ex(`s${i % 1500}`);
    out.push(q(s, `p${i % 9}`, o, i % 10 === 0 ? 'g-new' : i % 17 === 0 ? 'g-old' : undefined));
  }
  // Stated again later in the request, and already in the ledger.
  out.push(...out.slice(100, 400), q(ex('old1'), 'p0', literal('kept')), q(ex('old2'), 'p1', ex('o1'), 'g-old'));
  return out;
}

/** What the ledger holds at time `t`, every graph, as sorted lines. */
async function facts(conn: Connection, t: number): Promise<string[]> {
  const { result } = await runSparql(conn, 'SELECT ?g ?s ?p ?o { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }', { ledger: `x@t:${t}` });
  if (result.type !== 'bindings') throw new Error('bindings');
  return (await collect(result.rows)).map((r) => ['g', 's', 'p', 'o'].map((v) => `${r[v]?.termType ?? '-'}:${r[v]?.value ?? ''}`).join(' ')).sort();
}

/**
 * A twin ledger `x` with a little history (including facts the big insert states again). `indexed`:
 * a longer history (part of bigQuads' terms) indexed, and the ledger opened afresh, so staging meets
 * terms in dictionary pages not loaded yet as well as new ones.
 */
async function twin(indexed = false): Promise<Connection> {
  const storage = openMemoryStorage();
  const opts = { indexingEnabled: false, reindexMaxBytes: 64 * 1024 * 1024 };
  const conn = new Connection(storage, opts);
  await conn.create('x');
  await conn.transact('x', insert([q(ex('old1'), 'p0', literal('kept')), q(ex('old2'), 'p1', ex('o1'), 'g-old'), q(ex('s3'), 'p3', literal('3', namedNode(xsd.integer)))]));
  await conn.transact('x', insert([q(ex('s1'), 'p1', literal('1', namedNode(xsd.integer))), q(ex('s2'), 'p2', ex('o2'))]));
  if (!indexed) return conn;
  await conn.transact('x', insert(bigQuads().filter((_, i) => i % 7 === 0 && i < 3000)));
  await conn.reindex('x');
  await conn.close();
  return new Connection(storage, opts);
}

/** Run `req` on a fresh twin with run staging on or off: the receipt or the error, and the facts at t and t-1. */
async function run(req: TxnRequest, runs: boolean, indexed = false): Promise<{ staged: string[]; out: unknown; now: string[]; before: string[]; commit: unknown; datatypes: string[] }> {
  const old = setRunStagingMinQuads(runs ? 0 : Infinity);
  try {
    const conn = await twin(indexed);
    const fail = (e: Error) => ({ error: e.message, status: (e as { status?: number }).status });
    // The dry run's flakes, in order: what the commit's flake section is encoded from.
    const dry = await conn.stage('x', req).catch(fail);
    const staged = 'flakes' in dry ? dry.flakes.map((f) => [f.g, termKey(f.s), termKey(f.p), termKey(f.o), f.op, f.i ?? -1].join(' ')) : [JSON.stringify(dry)];
    const r = await conn.transact('x', req, { contentType: 'application/n-triples', body: 'the body' }).catch(fail);
    // Receipt fields that depend on the clock are left out.
    const out = 'error' in r ? r : { t: r.t, flakes_added: r.flakes_added, flakes_retracted: r.flakes_retracted, 'tx-id': r['tx-id'] };
    const ledger = await conn.ledger('x');
    const t = ledger.t;
    // The ledger's non-reserved datatypes (http-api.md §2.9) count the request's.
    return { staged, out, now: await facts(conn, t), before: await facts(conn, t - 1), commit: await headCommit(ledger.store, ledger.head.cid), datatypes: [...ledger.datatypes].sort() };
  } finally {
    setRunStagingMinQuads(old);
  }
}

/**
 * The head commit's parts that do not depend on the clock: its flake section byte for byte, its
 * namespace and graph deltas, its metadata entries and its transaction blob's CID (the envelope's
 * time and parent CID differ between twins made at different moments).
 */
async function headCommit(store: { get(cid: CID): Promise<Uint8Array> }, cid: string): Promise<unknown> {
  const bytes = await store.get(CID.parse(cid));
  const env = decodeEnvelope(bytes);
  const envLen = new DataView(bytes.buffer, bytes.byteOffset).getUint32(8);
  const flakes = Buffer.from(bytes.subarray(COMMIT_HEADER_SIZE + envLen)).toString('hex');
  return { t: env.t, nsDelta: env.nsDelta, graphDelta: env.graphDelta, meta: env.meta, txn: env.txn?.toString() ?? null, flakeCount: env.flakeCount, flakes };
}

afterEach(() => { setRunStagingMinQuads(RUN_STAGING_MIN_QUADS); });

describe('run staging of large inserts', () => {
  it('stages the same flakes in the same order, and commits the same receipt and facts as the ordinary path (duplicates, current facts, blank nodes, graphs)', async () => {
    const req = insert(bigQuads());
    const a = await run(req, true), b = await run(req, false);
    expect(a.out).toMatchObject({ t: 3, flakes_retracted: 0 });
    expect(a.staged).toEqual(b.staged);
    expect(a.out).toEqual(b.out);
    expect(a.now).toEqual(b.now);
    expect(a.before).toEqual(b.before);
    expect(a.now.length - a.before.length).toBe((a.out as { flakes_added: number }).flakes_added);
    expect(a.datatypes).toEqual(['http://example.org/dt0', 'http://example.org/dt1', 'http://example.org/dt2']);
    expect(a.datatypes).toEqual(b.datatypes);
  });

  it('stages the same over an indexed history whose dictionary pages are not loaded yet (known, paged-out and new terms)', async () => {
    const req = insert(bigQuads());
    const a = await run(req, true, true), b = await run(req, false, true);
    expect(a.out).toMatchObject({ t: 4, flakes_retracted: 0 });
    expect(a).toEqual(b);
    expect((a.out as { flakes_added: number }).flakes_added).toBeGreaterThan(4096);
  });

  it('encodes the same commit from the id columns as the ordinary path from its flakes, metadata entries included', async () => {
    const plain = insert(bigQuads());
    const withMeta: TxnRequest = { ...plain, meta: [{ predicate: 'https://ns.flur.ee/ledger#message', object: literal('bulk') }, { predicate: 'http://example.org/by', object: ex('new-ns/alice') }] };
    for (const req of [plain, withMeta]) {
      const a = await run(req, true), b = await run(req, false);
      expect(a.commit).toEqual(b.commit);
      expect((a.commit as { flakeCount: number }).flakeCount).toBeGreaterThan(4096);
    }
  });

  it('commits nothing when every fact is already there, as the ordinary path', async () => {
    const quads = Array.from({ length: 5000 }, () => q(ex('old1'), 'p0', literal('kept')));
    const a = await run(insert(quads), true), b = await run(insert(quads), false);
    expect(a.out).toMatchObject({ t: 2, flakes_added: 0 });
    expect(a).toEqual(b);
  });

  it('fails a request as the ordinary path does, leaving nothing behind', async () => {
    const quads = bigQuads();
    quads[5990] = { ...q(ex('s'), 'p', literal('x')), graph: namedNode('txn-meta') }; // a reserved graph name, near the end
    const a = await run(insert(quads), true), b = await run(insert(quads), false);
    expect(a.out).toMatchObject({ status: 400 });
    expect(a).toEqual(b);
    expect(a.now).toEqual(b.now);
  });

  it('takes an N-Triples body the way POST /insert parses it', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 6000; i++) lines.push(`<http://example.org/s${i % 900}> <http://example.org/p${i % 7}> ${i % 3 ? `"v${i % 2500}"` : `_:k${i % 30}`} .`);
    const req = parseRdfTxn(lines.join('\n'), 'application/n-triples', 'insert');
    const a = await run(req, true), b = await run(req, false);
    expect(a).toEqual(b);
    expect((a.out as { flakes_added: number }).flakes_added).toBeGreaterThan(4096);
  });

  it('stages the byte reader\'s key rows as the quads n3 reads from the same body (two spellings of a key, blank nodes, repeats, current facts)', async () => {
    const lines: string[] = ['<http://example.org/old1> <http://example.org/p0> "kept" .'];
    for (let i = 0; i < 6000; i++) {
      const s = i % 11 === 0 ? `_:k${i % 30}` : i % 5 === 0 ? `<http://example.org/s\\u0041${i % 900}>` : `<http://example.org/sA${i % 900}>`;
      const o = [`"v${i % 2500}"`, `"w\\t${i % 99}"@EN`, `"${i % 300}"^^<http://www.w3.org/2001/XMLSchema#integer>`, `_:k${i % 40}`, `<http://example.org/o${i % 70}>`][i % 5];
      lines.push(`${s} <http://example.org/p${i % 7}> ${o} .`);
    }
    lines.push(...lines.slice(10, 200));
    const text = lines.join('\n') + '\n';
    const body = new NTriplesBody();
    expect(body.feed(new TextEncoder().encode(text))).toBe(true);
    expect(body.end()).toBe(true);
    const rows = keyRowsInsert(body.rows(), 'insert');
    const n3 = parseRdfTxn(text, 'application/n-triples', 'insert');
    const a = await run(rows, true), b = await run(n3, false), c = await run(n3, true);
    expect(a).toEqual(b);
    expect(a).toEqual(c);
    expect((a.out as { flakes_added: number }).flakes_added).toBeGreaterThan(4096);
    // Below the threshold (or on the ordinary path) the same request reads its rows as quads.
    expect(await run(rows, false)).toEqual(b);
  });

  it('leaves a policy-restricted write and a ledger with shapes to the ordinary path, and small inserts too', async () => {
    const conn = await twin();
    const ledger = await conn.ledger('x');
    const quads = bigQuads();
    const staged = async (req: TxnRequest, identity?: string) => {
      const size = ledger.dict.size;
      try { return await stageRequest(await ledger.db(), ledger, req, ledger.t + 1, {}, identity); } finally { ledger.dict.truncate(size); }
    };
    expect(await staged(insert(quads))).toBeInstanceOf(RunStager);
    expect(await staged(insert(quads.slice(0, RUN_STAGING_MIN_QUADS)))).not.toBeInstanceOf(RunStager);
    expect(await staged(insert(quads), 'http://example.org/alice')).not.toBeInstanceOf(RunStager);
    expect(await staged({ ...insert(quads), opts: { policyClass: ['http://example.org/Reader'] } })).not.toBeInstanceOf(RunStager);
    expect(await staged(insert([...quads, { ...q(ex('l'), 'p', literal('x')), listIndex: 0 }]))).not.toBeInstanceOf(RunStager);
    const sh = (s: string) => namedNode('http://www.w3.org/ns/shacl#' + s);
    await conn.transact('x', insert([{ subject: ex('Shape'), predicate: sh('targetClass'), object: ex('C'), graph: defaultGraph }]));
    expect(await staged(insert(quads))).not.toBeInstanceOf(RunStager);
  });
});
