/**
 * Property test of Cypher writes (cypher.md §7): random small graphs and random sequences of write
 * statements (SET, MERGE between matched nodes, DELETE of relationships chosen by a WHERE, DETACH
 * DELETE) leave exactly the facts a naive in-memory model of the §7 rules predicts, read back
 * through SPARQL — each statement one commit through the write pipeline.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Connection } from '../../src/core/ledger/connection.js';
import { runCypherWrite } from '../../src/core/query/cypher/service.js';
import { runSparql } from '../../src/core/query/sparql-service.js';
import { parseRdfTxn } from '../../src/core/transact/parse-rdf.js';
import { openMemoryStorage } from '../../src/storage/index.js';

const N = 5;
const X = 'http://example.org/';
type T = 'A' | 'B';
interface Model { v: (number | undefined)[]; alive: boolean[]; edges: Set<string> }
type Op =
  | { k: 'set'; when: number; to: number }
  | { k: 'merge'; when: number; t: T }
  | { k: 'delete-rel'; t: T }
  | { k: 'detach'; when: number };

const ek = (a: number, t: T, b: number) => `${a} ${t} ${b}`;

function statement(op: Op): string {
  switch (op.k) {
    case 'set': return `MATCH (a:L {v: ${op.when}}) SET a.v = ${op.to}`;
    case 'merge': return `MATCH (a:L {v: ${op.when}}), (b:L) WHERE b.v < ${op.when} MERGE (a)-[:${op.t}]->(b)`;
    case 'delete-rel': return `MATCH (a:L)-[r:${op.t}]->(b:L) WHERE a.v > b.v DELETE r`;
    case 'detach': return `MATCH (a:L {v: ${op.when}}) DETACH DELETE a`;
  }
}

/** §7 applied by hand. */
function apply(m: Model, op: Op): void {
  const nodes = [...Array(N).keys()].filter((i) => m.alive[i]);
  switch (op.k) {
    case 'set': for (const i of nodes) if (m.v[i] === op.when) m.v[i] = op.to; break;
    case 'merge':
      for (const a of nodes) for (const b of nodes) if (m.v[a] === op.when && m.v[b] !== undefined && m.v[b]! < op.when) m.edges.add(ek(a, op.t, b));
      break;
    case 'delete-rel':
      for (const e of [...m.edges]) {
        const [a, t, b] = e.split(' ');
        if (t === op.t && m.v[+a!] !== undefined && m.v[+b!] !== undefined && m.v[+a!]! > m.v[+b!]!) m.edges.delete(e);
      }
      break;
    case 'detach':
      for (const i of nodes) {
        if (m.v[i] !== op.when) continue;
        m.alive[i] = false;
        for (const e of [...m.edges]) { const [a, , b] = e.split(' '); if (+a! === i || +b! === i) m.edges.delete(e); }
      }
      break;
  }
}

/** The model's facts as sorted N-Triples-like lines. */
function facts(m: Model): string[] {
  const out: string[] = [];
  for (let i = 0; i < N; i++) {
    if (!m.alive[i]) continue;
    out.push(`<${X}n${i}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <${X}L>`);
    if (m.v[i] !== undefined) out.push(`<${X}n${i}> <${X}v> ${m.v[i]}`);
  }
  for (const e of m.edges) { const [a, t, b] = e.split(' '); out.push(`<${X}n${a}> <${X}${t}> <${X}n${b}>`); }
  return out.sort();
}

async function stored(conn: Connection): Promise<string[]> {
  const { result } = await runSparql(conn, 'SELECT ?s ?p ?o { ?s ?p ?o }', { ledger: 'w:main' });
  const out: string[] = [];
  if (result.type === 'bindings') {
    for await (const r of result.rows) out.push(`<${r.s!.value}> <${r.p!.value}> ${r.o!.termType === 'Literal' ? r.o!.value : `<${r.o!.value}>`}`);
  }
  return out.sort();
}

const valArb = fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined });
const edgeArb = fc.tuple(fc.integer({ min: 0, max: N - 1 }), fc.constantFrom<T>('A', 'B'), fc.integer({ min: 0, max: N - 1 }));
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ k: fc.constant('set' as const), when: fc.integer({ min: 0, max: 3 }), to: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ k: fc.constant('merge' as const), when: fc.integer({ min: 0, max: 3 }), t: fc.constantFrom<T>('A', 'B') }),
  fc.record({ k: fc.constant('delete-rel' as const), t: fc.constantFrom<T>('A', 'B') }),
  fc.record({ k: fc.constant('detach' as const), when: fc.integer({ min: 0, max: 3 }) }),
);

describe('Cypher writes agree with a naive model of §7', () => {
  it('random graphs × random sequences of up to 4 write statements', async () => {
    await fc.assert(fc.asyncProperty(fc.array(valArb, { minLength: N, maxLength: N }), fc.uniqueArray(edgeArb, { maxLength: 8, selector: (e) => e.join() }), fc.array(opArb, { minLength: 1, maxLength: 4 }), async (v, edges, ops) => {
      const m: Model = { v: [...v], alive: Array(N).fill(true), edges: new Set(edges.map(([a, t, b]) => ek(a, t, b))) };
      const conn = new Connection(openMemoryStorage());
      await conn.create('w:main', { context: { '@vocab': X } });
      await conn.transact('w:main', parseRdfTxn(facts(m).map((l) => `${l} .`).join('\n'), 'application/n-triples', 'insert'));
      for (const op of ops) {
        const before = (await conn.ledger('w:main')).t;
        const r = await runCypherWrite(conn, { text: statement(op), params: {} }, 'w:main');
        const expected = facts(m);
        apply(m, op);
        const changed = JSON.stringify(facts(m)) !== JSON.stringify(expected);
        // one commit per statement, none when nothing changes
        expect(r.receipt.t).toBe(changed ? before + 1 : before);
        expect(await stored(conn)).toEqual(facts(m));
      }
      await conn.close();
    }), { numRuns: 60 });
  }, 120_000);
});
