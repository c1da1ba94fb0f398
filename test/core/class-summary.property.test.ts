/**
 * The class summary kept with each index root (src/core/index/class-summary*.ts) against a full
 * scan: on random small ledgers with inserts, retracts, updates, reindexes and time travel, the
 * summary a snapshot folds from its root and novelty, and the summary each index job stores, hold
 * exactly the counts of a full scan, and the schema derived from them prints the same SDL.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CID } from 'multiformats/cid';
import { MemoryContentStore, MemoryNameService } from '../../src/storage/index.js';
import { Connection } from '../../src/core/ledger/connection.js';
import type { Db } from '../../src/core/ledger/db.js';
import { literal, namedNode, defaultGraph, type Term } from '../../src/core/rdf/terms.js';
import { RDFS, XSD, rdf } from '../../src/core/rdf/vocab.js';
import { summarizeFacts, summaryFromJson, summaryJson } from '../../src/core/index/class-summary.js';
import { snapshotSummary } from '../../src/core/index/class-summary-delta.js';
import { parseJsonNode } from '../../src/core/index/root-codec.js';
import { inferModel, modelFromSummary } from '../../src/core/query/graphql/model.js';
import { buildDerivedSchema } from '../../src/core/query/graphql/schema.js';
import { schemaSdl, snapshotModel } from '../../src/core/query/graphql/service.js';
import { ActiveContext } from '../../src/core/rdf/jsonld-context.js';

const E = 'http://e/';
const SUBJECTS = ['s0', 's1', 's2', 's3'].map((s) => namedNode(E + s));
const CLASSES = [namedNode(E + 'A'), namedNode(E + 'B'), namedNode(E + 'C'), namedNode(RDFS + 'Class')];
const PREDICATES = ['p', 'q', 'r'].map((p) => namedNode(E + p)).concat(namedNode(RDFS + 'label'));
const VALUES: Term[] = [
  ...SUBJECTS, ...SUBJECTS, namedNode(E + 'untyped'),
  literal('1', namedNode(XSD + 'integer')), literal('1.5', namedNode(XSD + 'decimal')), literal('2.5', namedNode(XSD + 'double')),
  literal('a'), literal('a', 'en'), literal('true', namedNode(XSD + 'boolean')), literal('2020-01-01', namedNode(XSD + 'date')),
];
const TYPE = namedNode(rdf.type);
const CTX = ActiveContext.create({ ex: E, rdfs: RDFS });

type Triple = [number, number, number]; // subject, predicate (-1: rdf:type, then class index), value/class index
type Step =
  | { op: 'insert'; triples: Triple[] }
  | { op: 'retract'; picks: number[] }
  | { op: 'update'; pick: number; triple: Triple }
  | { op: 'reindex' }
  | { op: 'travel'; at: number };

const triple = fc.oneof(
  fc.tuple(fc.nat(SUBJECTS.length - 1), fc.constant(-1), fc.nat(CLASSES.length - 1)),
  fc.tuple(fc.nat(SUBJECTS.length - 1), fc.nat(PREDICATES.length - 1), fc.nat(VALUES.length - 1)),
);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('insert' as const), triples: fc.array(triple, { minLength: 1, maxLength: 6 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('retract' as const), picks: fc.array(fc.nat(1000), { minLength: 1, maxLength: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('update' as const), pick: fc.nat(1000), triple }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('reindex' as const) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('travel' as const), at: fc.nat(1000) }) },
);

const quad = ([s, p, o]: Triple) => ({
  subject: SUBJECTS[s]!, predicate: p < 0 ? TYPE : PREDICATES[p]!, object: p < 0 ? CLASSES[o]! : VALUES[o]!, graph: defaultGraph,
});
const keyOf = (t: Triple) => t.join(',');

/** The full scan's summary and SDL of a snapshot against the summary path's. */
async function check(db: Db, expectSummary: boolean): Promise<void> {
  const type = db.dict.idOfKey(rdf.type);
  const full = type === undefined ? new Map() : await summarizeFacts(db.dict, db.scan({ g: 0, p: type }), db.scan({ g: 0 }));
  const folded = await snapshotSummary(db);
  if (expectSummary) expect(folded).not.toBeNull();
  if (folded) {
    expect(summaryJson(folded)).toEqual(summaryJson(full));
    expect(schemaSdl(buildDerivedSchema(await modelFromSummary(db, folded), CTX))).toBe(schemaSdl(buildDerivedSchema(await inferModel(db), CTX)));
  }
  expect(schemaSdl(buildDerivedSchema(await snapshotModel(db, db), CTX))).toBe(schemaSdl(buildDerivedSchema(await inferModel(db), CTX)));
}

describe('class summary', () => {
  it('a node that gains a class after the index moves the indexed references to it into that class', async () => {
    const conn = new Connection({ content: new MemoryContentStore(), ns: new MemoryNameService() }, { indexingEnabled: false });
    const q = (s: number, p: number, o: number) => quad([s, p, o]);
    await conn.create('x');
    await conn.transact('x', { kind: 'insert', quads: [q(0, -1, 0), q(0, 0, 1)], meta: [], opts: {} });
    await conn.reindex('x');
    await conn.transact('x', { kind: 'insert', quads: [q(1, -1, 1)], meta: [], opts: {} });
    const db = await (await conn.ledger('x')).db();
    await check(db, true);
    expect(schemaSdl(buildDerivedSchema(await snapshotModel(db, db), CTX))).toContain('p(limit: Int, orderBy: [BOrderBy!]): [B!]');
    await conn.close();
  });

  it('a root written before summaries falls back to the scan, and the next index job writes one', async () => {
    const content = new MemoryContentStore();
    const conn = new Connection({ content, ns: new MemoryNameService() }, { indexingEnabled: false });
    const q = (s: number, p: number, o: number) => quad([s, p, o]);
    await conn.create('x');
    await conn.transact('x', { kind: 'insert', quads: [q(0, -1, 0), q(0, 0, 1), q(1, -1, 1), q(1, 1, 5)], meta: [], opts: {} });
    await conn.reindex('x');
    const ledger = await conn.ledger('x');
    // An old root: the same root without the member.
    delete (ledger.tree!.root as { class_summary?: string }).class_summary;
    await conn.transact('x', { kind: 'insert', quads: [q(2, -1, 2), q(2, 2, 0)], meta: [], opts: {} });
    const db = await ledger.db();
    expect(await snapshotSummary(db)).toBeNull();
    await check(db, false);
    await conn.reindex('x');
    const cid = ledger.tree!.root.class_summary!;
    const stored = summaryFromJson(parseJsonNode(await content.get(CID.parse(cid)), 'index summary'));
    const type = db.dict.idOfKey(rdf.type)!;
    expect(summaryJson(stored)).toEqual(summaryJson(await summarizeFacts(db.dict, db.scan({ g: 0, p: type }), db.scan({ g: 0 }))));
    await check(await ledger.db(), true);
    await conn.close();
  });

  it('folds to the counts and SDL of a full scan through inserts, retracts, updates, reindexes and time travel', async () => {
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), fc.boolean(), async (steps, indexFirst) => {
      const content = new MemoryContentStore();
      const conn = new Connection({ content, ns: new MemoryNameService() }, { indexingEnabled: false });
      try {
        await conn.create('x');
        if (indexFirst) await conn.reindex('x');
        const current = new Map<string, Triple>();
        const ledger = await conn.ledger('x');
        for (const s of steps) {
          const live = [...current.values()];
          if (s.op === 'insert') {
            await conn.transact('x', { kind: 'insert', quads: s.triples.map(quad), meta: [], opts: {} });
            for (const t of s.triples) current.set(keyOf(t), t);
          } else if ((s.op === 'retract' || s.op === 'update') && live.length) {
            const gone = s.op === 'retract' ? [...new Set(s.picks.map((i) => live[i % live.length]!))] : [live[s.pick % live.length]!];
            const added = s.op === 'update' ? [s.triple] : [];
            await conn.transact('x', { kind: 'update', where: null, delete: gone.map(quad), insert: added.map(quad), meta: [], opts: {} });
            for (const t of gone) current.delete(keyOf(t));
            for (const t of added) current.set(keyOf(t), t);
          } else if (s.op === 'reindex') {
            await conn.reindex('x');
            // The summary the index job stored (read back from storage) is the full scan's at index_t.
            const tree = ledger.tree!;
            const stored = summaryFromJson(parseJsonNode(await content.get(CID.parse(tree.root.class_summary!)), 'index summary'));
            const at = await ledger.db({ kind: 't', t: tree.t });
            const type = at.dict.idOfKey(rdf.type);
            const full = type === undefined ? new Map() : await summarizeFacts(at.dict, at.scan({ g: 0, p: type }), at.scan({ g: 0 }));
            expect(summaryJson(stored)).toEqual(summaryJson(full));
          } else if (s.op === 'travel') {
            const t = s.at % (ledger.t + 1);
            await check(await ledger.db({ kind: 't', t }), !!ledger.tree && t >= ledger.tree.t);
          }
          await check(await ledger.db(), !!ledger.tree);
        }
      } finally {
        await conn.close();
      }
    }), { numRuns: Number(process.env.RUNS ?? 120), seed: process.env.SEED ? Number(process.env.SEED) : undefined });
  }, 120_000);
});
