/**
 * A big commit (more than 4,096 flakes) stages, encodes and applies in steps that pause
 * (docs/isolation.md), and publishes by reusing the events and novelty staging built. What it
 * publishes must be exactly what the general path (applyCommit, as a replay from storage does)
 * builds from its commit blob; a failure must leave nothing behind.
 */
import { describe, expect, it } from 'vitest';
import { Codec } from '../../src/core/commit/cid.js';
import { ORDERS } from '../../src/core/flake/flake.js';
import { Connection } from '../../src/core/ledger/connection.js';
import type { Ledger } from '../../src/core/ledger/ledger.js';
import { literal, namedNode, defaultGraph, type Term } from '../../src/core/rdf/terms.js';
import { xsd } from '../../src/core/rdf/vocab.js';
import type { TxnQuad, TxnRequest } from '../../src/core/transact/txn-request.js';
import { openMemoryStorage } from '../../src/storage/index.js';
import { parseSparqlUpdate } from '../../src/core/query/sparql/update.js';

const ex = (s: string) => namedNode('http://example.org/' + s);
const q = (s: string, p: string, o: Term, g?: string): TxnQuad => ({ subject: ex(s), predicate: ex(p), object: o, graph: g ? ex(g) : defaultGraph });
const insert = (quads: TxnQuad[]): TxnRequest => ({ kind: 'insert', quads, meta: [{ predicate: 'http://example.org/batch', object: literal('big') }], opts: {} });

/** 6,000 quads: typed and plain literals, references, a named graph, a new datatype. */
function bigQuads(tag: string): TxnQuad[] {
  const out: TxnQuad[] = [];
  for (let i = 0; i < 6000; i++) {
    const o = [literal(`${tag} ${i}`), literal(String(i), namedNode(xsd.integer)), ex(`${tag}/o${i % 700}`), literal(`${i}`, namedNode('http://example.org/dt'))][i % 4]!;
    out.push(q(`${tag}/s${i % 1500}`, `p${i % 9}`, o, i % 10 === 0 ? 'g1' : undefined));
  }
  return out;
}

/** Everything a ledger holds in memory that a commit's application changes, by term keys (ids are process-local). */
function state(l: Ledger): unknown {
  const key = (id: number) => l.dict.key(id);
  const orders = Object.fromEntries(ORDERS.map((order) => {
    const r = l.novelty.all(order, Number.MAX_SAFE_INTEGER);
    const rows: string[] = [];
    for (let i = 0; i < r.n; i++) rows.push([r.g[i], key(r.s[i]!), key(r.p[i]!), key(r.o[i]!), r.m[i], r.t[i], r.op[i]].join(' '));
    return [order, rows.sort()];
  }));
  const props = [...l.stats.properties].map(([p, n]) => `${key(p)}=${n}`).sort();
  const classes = [...l.stats.classes].map(([c, n]) => `${key(c)}=${n}`).sort();
  return {
    orders, size: l.novelty.size, bytes: l.novelty.bytes, maxT: l.novelty.maxT, head: l.head,
    stats: { flakes: l.stats.flakes, size: l.stats.size, props, classes, graphs: [...l.stats.graphs].sort() },
    datatypes: [...l.datatypes].sort(), graphs: l.graphs.named(), ns: l.ns.clone(),
    bytesAfter: [0, 1, 2, 3, 4].map((t) => l.noveltyBytesAfter(t)),
  };
}

describe('big commits', () => {
  it('publish exactly the state a replay of their commits builds (inserts, retractions, metadata, graphs, datatypes)', async () => {
    const storage = openMemoryStorage();
    const opts = { indexingEnabled: false, reindexMaxBytes: 64 * 1024 * 1024 };
    const conn = new Connection(storage, opts);
    await conn.create('b');
    await conn.transact('b', insert([q('x', 'p0', literal('small'))]));
    const r1 = await conn.transact('b', insert(bigQuads('one')));
    expect(r1.flakes_added).toBe(6000 - 0);
    // Partly new, partly current facts (no flake), and a big retraction in one SPARQL request.
    const r2 = await conn.transact('b', insert([...bigQuads('one').slice(0, 3000), ...bigQuads('two')]));
    expect(r2.flakes_added).toBe(6000);
    const nt = (t: Term) => t.termType === 'NamedNode' ? `<${t.value}>` : t.termType === 'Literal' ? JSON.stringify(t.value) + (t.language ? `@${t.language}` : t.datatype.value === xsd.string ? '' : `^^<${t.datatype.value}>`) : `_:${t.value}`;
    const del = bigQuads('one').slice(0, 5000).map((x) => `${x.graph.termType === 'NamedNode' ? `GRAPH <${x.graph.value}> { ` : ''}${nt(x.subject)} ${nt(x.predicate)} ${nt(x.object)} .${x.graph.termType === 'NamedNode' ? ' }' : ''}`);
    const r3 = await conn.transact('b', parseSparqlUpdate(`DELETE DATA { ${del.join('\n')} }`));
    expect(r3.flakes_retracted).toBe(5000);
    const staged = await conn.loadedLedger('b')!;

    // A second connection on the same storage replays every commit through applyCommit.
    const replay = new Connection(storage, opts);
    const replayed = await replay.loadedLedger('b') ?? (await replay.db('b'), await replay.loadedLedger('b')!);
    expect(replayed.t).toBe(staged.t);
    expect(state(replayed)).toEqual(state(staged));
  });

  it('leave nothing when their commit blob cannot be written: same head, novelty, dictionary and datatypes; the next write goes through', async () => {
    const storage = openMemoryStorage();
    const conn = new Connection(storage, { indexingEnabled: false, reindexMaxBytes: 64 * 1024 * 1024 });
    await conn.create('f');
    await conn.transact('f', insert([q('x', 'p0', literal('small'))]));
    const ledger = (await conn.loadedLedger('f'))!;
    const before = { head: ledger.head, novelty: ledger.novelty, dict: ledger.dict.size, datatypes: [...ledger.datatypes], stats: ledger.stats.flakes };
    const put = storage.content.put.bind(storage.content);
    let fail = true;
    storage.content.put = async (codec, bytes) => {
      if (codec === Codec.commit && fail) throw Object.assign(new Error('disk on fire'), { status: 502 });
      return put(codec, bytes);
    };
    await expect(conn.transact('f', insert(bigQuads('lost')))).rejects.toThrow(/disk on fire/);
    expect(ledger.head).toEqual(before.head);
    expect(ledger.novelty).toBe(before.novelty);
    expect(ledger.dict.size).toBe(before.dict);
    expect([...ledger.datatypes]).toEqual(before.datatypes);
    expect(ledger.stats.flakes).toBe(before.stats);
    fail = false;
    const r = await conn.transact('f', insert(bigQuads('kept')));
    expect(r.t).toBe(2);
    const db = await conn.db('f');
    expect(db.dict.idOf(ex('lost/s1'))).toBeUndefined();
    expect(db.dict.idOf(ex('kept/s1'))).toBeDefined();
  });

  it('are refused whole past reindex_max_bytes (413), as before', async () => {
    const conn = new Connection(openMemoryStorage(), { indexingEnabled: false, reindexMaxBytes: 20_000 });
    await conn.create('m');
    await expect(conn.transact('m', insert(bigQuads('big')))).rejects.toMatchObject({ status: 413 });
    expect((await conn.db('m')).t).toBe(0);
  });
});
