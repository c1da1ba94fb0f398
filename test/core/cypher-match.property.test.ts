/**
 * Property test (issue 14): random small graphs and random MATCH chains of up to 4 hops (fixed and
 * variable length, every direction) give the same rows through the Cypher engine as a naive
 * in-memory evaluator of openCypher semantics (relationship uniqueness, trails, reachability).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Connection } from '../../src/core/ledger/connection.js';
import { runCypherRead } from '../../src/core/query/cypher/service.js';
import { parseRdfTxn } from '../../src/core/transact/parse-rdf.js';
import { openMemoryStorage } from '../../src/storage/index.js';

const N = 5;
type Edge = [number, 'A' | 'B', number];
type Hop = { type: 'A' | 'B'; dir: 'out' | 'in' | 'both'; range?: [number, number] };

function hopText(h: Hop): string {
  const r = h.range ? `*${h.range[0]}..${h.range[1]}` : '';
  const body = `[:${h.type}${r}]`;
  return h.dir === 'out' ? `-${body}->` : h.dir === 'in' ? `<-${body}-` : `-${body}-`;
}

/** Naive openCypher: all node sequences, hops as relationships (distinct within the match). */
function naive(edges: Edge[], hops: Hop[]): string[] {
  const rows = new Set<string>();
  const out: string[] = [];
  // relationship choices for one fixed hop from x: [edge index, next node]
  const steps = (x: number, h: { type: string; dir: string }): [number, number][] => {
    const res: [number, number][] = [];
    edges.forEach(([s, t, o], i) => {
      if (t !== h.type) return;
      if (h.dir !== 'in' && s === x) res.push([i, o]);
      if (h.dir !== 'out' && o === x) res.push([i, s]);
    });
    return res;
  };
  // trail-reachable ends of a variable-length hop from x
  const reach = (x: number, h: Hop, used: Set<number>): Set<number> => {
    const ends = new Set<number>();
    const walk = (cur: number, len: number, u: Set<number>) => {
      if (len >= h.range![0]) ends.add(cur);
      if (len >= h.range![1]) return;
      for (const [i, nx] of steps(cur, h)) if (!u.has(i)) { u.add(i); walk(nx, len + 1, u); u.delete(i); }
    };
    walk(x, 0, new Set(used));
    return ends;
  };
  const go = (k: number, cur: number, seq: number[], used: Set<number>) => {
    if (k === hops.length) { out.push(`${seq[0]}-${seq.join('.')}`); return; }
    const h = hops[k]!;
    if (h.range) {
      for (const e of reach(cur, h, new Set())) go(k + 1, e, [...seq, e], used);
    } else {
      for (const [i, nx] of steps(cur, h)) if (!used.has(i)) { used.add(i); go(k + 1, nx, [...seq, nx], used); used.delete(i); }
    }
  };
  for (let s = 0; s < N; s++) go(0, s, [s], new Set());
  // the engine's rows differ by node bindings (and by relationship for undirected fixed hops); compare ends only, as a multiset of distinct paths
  for (const r of out) rows.add(r);
  return out.map((r) => { const seq = r.split('-')[1]!.split('.'); return `${seq[0]}>${seq[seq.length - 1]}`; }).sort();
}

const edgeArb = fc.tuple(fc.integer({ min: 0, max: N - 1 }), fc.constantFrom<'A' | 'B'>('A', 'B'), fc.integer({ min: 0, max: N - 1 })).filter(([s, , o]) => s !== o);
const hopArb: fc.Arbitrary<Hop> = fc.record({
  type: fc.constantFrom<'A' | 'B'>('A', 'B'),
  dir: fc.constantFrom<'out' | 'in' | 'both'>('out', 'in', 'both'),
  range: fc.option(fc.constantFrom<[number, number]>([1, 2], [0, 2], [1, 3], [2, 3]), { nil: undefined }),
}).map((h) => (h.range ? h : { type: h.type, dir: h.dir }));

describe('Cypher MATCH agrees with a naive evaluator', () => {
  it('random graphs × random chains of up to 4 hops', async () => {
    let k = 0;
    await fc.assert(fc.asyncProperty(fc.uniqueArray(edgeArb, { maxLength: 9, selector: (e) => e.join() }), fc.array(hopArb, { minLength: 1, maxLength: 4 }), async (edges, hops) => {
      // fixed-length hops keep one row per node sequence and relationship choice; variable-length
      // hops collapse to reachability, which the naive side models by ends per sequence
      const conn = new Connection(openMemoryStorage());
      const id = `g${k++}`;
      await conn.create(id);
      const ttl = [...Array(N).keys()].map((i) => `<http://x/n${i}> <http://x/name> "${i}" .`).concat(edges.map(([s, t, o]) => `<http://x/n${s}> <http://x/${t}> <http://x/n${o}> .`)).join('\n');
      await conn.transact(id, parseRdfTxn(ttl, 'text/turtle', 'insert'));
      const names = hops.map((_, i) => `m${i}`);
      const pattern = '(s)' + hops.map((h, i) => hopText(h) + (i === hops.length - 1 ? '(e)' : `(${names[i]})`)).join('');
      const text = `MATCH ${pattern} RETURN s.name AS s, e.name AS e`;
      const res = await runCypherRead(conn, { text, params: {}, context: { '@vocab': 'http://x/' } }, { ledger: id });
      const got = res.table.rows.map((r) => `${r[0]}>${r[1]}`).sort();
      expect(got, text + '\n' + JSON.stringify(edges)).toEqual(naive(edges, hops));
      await conn.close?.();
    }), { numRuns: 150 });
  }, 120_000);
});
