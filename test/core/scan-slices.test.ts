/**
 * A scan of many index steps hands back control between them (issue 20, found by the HTTP fuzzer):
 * a literal object with open subject and predicate is one step per predicate (and per graph under
 * `GRAPH ?g`), and a scan whose steps match nothing never fills a batch, so it used to run all of
 * them in one synchronous call. It now returns a batch (maybe empty) every slice of work, and reads
 * a graph whole when that is cheaper than probing every predicate; the answers stay the same.
 */
import { describe, expect, it } from 'vitest';
import { Connection } from '../../src/core/ledger/connection.js';
import { defaultGraph, literal, namedNode, type Term } from '../../src/core/rdf/terms.js';
import { xsd } from '../../src/core/rdf/vocab.js';
import type { TxnQuad } from '../../src/core/transact/txn-request.js';
import { openMemoryStorage } from '../../src/storage/index.js';

const ex = (s: string) => namedNode('http://ex/' + s);
const int = (n: number) => literal(String(n), namedNode(xsd.integer));

/** 400 predicates with 40 facts each in the default graph, and `needle` once in each of 300 named graphs. */
async function ledger(): Promise<Connection> {
  const conn = new Connection(openMemoryStorage());
  await conn.create('many');
  const quads: TxnQuad[] = [];
  for (let p = 0; p < 400; p++) for (let s = 0; s < 40; s++) quads.push({ subject: ex(`s${s}`), predicate: ex(`p${p}`), object: int(p * 100 + s), graph: defaultGraph });
  await conn.transact('many', { kind: 'insert', quads, meta: [], opts: {} });
  for (let k = 0; k < 300; k += 150) {
    const named: TxnQuad[] = [];
    for (let g = k; g < k + 150; g++) named.push({ subject: ex(`n${g}`), predicate: ex(`p${g % 400}`), object: literal('needle'), graph: ex(`g${g}`) });
    await conn.transact('many', { kind: 'insert', quads: named, meta: [], opts: {} });
  }
  // The first insert's background index job publishes (it gives way to the writes after it, so it
  // may still run here): the scans below read the index's leaves, not only novelty.
  await conn.idle();
  return conn;
}

async function collect(it: AsyncIterable<{ n: number; g: Int32Array; s: Int32Array; p: Int32Array; o: Int32Array }>): Promise<{ batches: number[]; facts: string[] }> {
  const batches: number[] = [];
  const facts: string[] = [];
  for await (const b of it) {
    batches.push(b.n);
    for (let i = 0; i < b.n; i++) facts.push(`${b.g[i]} ${b.s[i]} ${b.p[i]} ${b.o[i]}`);
  }
  return { batches, facts: facts.sort() };
}

describe('scans over many steps', () => {
  it('hand back empty batches between steps that find nothing, instead of running them all at once', async () => {
    const db = await (await ledger()).db('many');
    const needle = db.dict.idOf(literal('needle'))!;
    // The default graph holds 16,000 facts: probing its 400 predicates is the cheaper way, and none holds the needle.
    const { batches, facts } = await collect(db.scan({ g: 0, o: needle }));
    expect(facts).toEqual([]);
    expect(batches.length).toBeGreaterThan(1);
    expect(batches.every((n) => n === 0)).toBe(true);
    // Too much work for the synchronous fast path: it declines and the async scan is used.
    expect(db.scanSync({ g: 0, o: needle })).toBeNull();
  });

  it('find the same facts over every graph whichever way each graph is read', async () => {
    const db = await (await ledger()).db('many');
    const needle = db.dict.idOf(literal('needle'))!;
    const { facts } = await collect(db.scan({ o: needle }));
    expect(facts).toHaveLength(300);
    // The same facts by brute force: every fact of every graph, kept when its object is the needle.
    const all = await collect(db.scan({}));
    const expected = all.facts.filter((f) => f.endsWith(` ${needle}`));
    expect(facts).toEqual(expected);
    // A literal that is only in the default graph, found by probing its predicates.
    const v = db.dict.idOf(int(12_307) as Term)!;
    const one = await collect(db.scan({ o: v }));
    expect(one.facts).toEqual([`0 ${db.dict.idOf(ex('s7'))} ${db.dict.idOf(ex('p123'))} ${v}`]);
  });
});
