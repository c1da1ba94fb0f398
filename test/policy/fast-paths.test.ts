/**
 * The scan fast paths of a policy view (whole-scan decisions, subject tables, evaluators shared per
 * snapshot) hide exactly what the per-fact rules hide: on a generated graph, every scan shape of
 * the restricted view equals the unrestricted facts minus the ones the policy hides (worked out
 * here from the policy's meaning), and equals the per-fact path (a view that is not a Db of the
 * ledger, so each fact is decided on its own).
 */
import { describe, expect, it } from 'vitest';
import type { DbView, FactBatch, ScanPattern } from '../../src/core/index/view.js';
import { Connection } from '../../src/core/ledger/connection.js';
import type { Db } from '../../src/core/ledger/db.js';
import { policyView, type PolicyInputs } from '../../src/core/policy/index.js';
import { openMemoryStorage } from '../../src/storage/index.js';
import { insert, rows, update } from './fixtures.js';
import { prng } from '../support/prng.js';

const EX = 'http://example.org/';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const RDFS = 'http://www.w3.org/2000/01/rdf-schema#';
const ME = 'https://example.com/id/me';
const SUBJECTS = 60;
const PREDICATES = 5;

/** Generated nodes: subjects with random properties, classes (one a sub-class), and schema flakes on some subjects. */
function generated(seed: number): Record<string, unknown>[] {
  const r = prng(seed);
  const nodes: Record<string, unknown>[] = [];
  for (let i = 0; i < SUBJECTS; i++) {
    const node: Record<string, unknown> = { '@id': `ex:s${i}` };
    const types = [`ex:C${i % 3}`];
    // Schema flakes (rule 2) on some subjects: visible whatever hides the subject.
    if (i % 7 === 3) types.push('rdfs:Class');
    node['@type'] = types;
    if (i % 11 === 5) node['rdfs:subClassOf'] = { '@id': 'ex:C0' };
    for (let p = 0; p < PREDICATES; p++) {
      if (r() < 0.3) continue;
      const values: unknown[] = [];
      const n = 1 + Math.floor(r() * 3);
      for (let k = 0; k < n; k++) values.push(r() < 0.5 ? { '@id': `ex:s${Math.floor(r() * SUBJECTS)}` } : Math.floor(r() * 1000));
      node[`ex:p${p}`] = values;
    }
    nodes.push(node);
  }
  nodes.push({ '@id': 'ex:C2', 'rdfs:subClassOf': { '@id': 'ex:C1' } });
  return nodes;
}

/** Subjects `ex:s<i>` picked by the seed, about `share` of them. */
function pick(seed: number, share: number): string[] {
  const r = prng(seed);
  const out: string[] = [];
  for (let i = 0; i < SUBJECTS; i++) if (r() < share) out.push(`ex:s${i}`);
  return out;
}

const full = (curie: string) => (curie.startsWith('ex:') ? EX + curie.slice(3) : curie);

interface Case {
  name: string;
  policies: Record<string, unknown>[];
  inputs?: Partial<PolicyInputs>;
  /** True when the fact (full IRIs; `o` a term key) is hidden, schema flakes aside. */
  hides(s: string, p: string, o: string, classesOf: (s: string) => Set<string>): boolean;
}

const hiddenA = pick(1, 0.2), listB = pick(2, 0.3), listC = pick(3, 0.25), allowD = pick(4, 0.3), denyD = pick(5, 0.2);
const set = (xs: string[]) => new Set(xs.map(full));
const CASES: Case[] = [
  {
    name: 'allow all, f:onSubject deny (the bench shape)',
    policies: [{ 'f:allow': true }, { 'f:onSubject': hiddenA.map((id) => ({ '@id': id })), 'f:allow': false }],
    hides: (s) => set(hiddenA).has(s),
  },
  {
    name: 'default-allow false, f:onSubject allow',
    policies: [{ 'f:onSubject': listB.map((id) => ({ '@id': id })), 'f:allow': true }],
    hides: (s) => !set(listB).has(s),
  },
  {
    name: 'f:onSubject with f:onProperty (a table per predicate)',
    policies: [{ 'f:allow': true }, { 'f:onSubject': listC.map((id) => ({ '@id': id })), 'f:onProperty': { '@id': 'ex:p1' }, 'f:allow': false }],
    hides: (s, p) => set(listC).has(s) && p === EX + 'p1',
  },
  {
    name: 'default-allow true, overlapping subject allows and denies',
    policies: [{ 'f:onSubject': allowD.map((id) => ({ '@id': id })), 'f:allow': true }, { 'f:onSubject': denyD.map((id) => ({ '@id': id })), 'f:allow': false }],
    inputs: { defaultAllow: true },
    hides: (s) => set(denyD).has(s),
  },
  {
    name: 'f:required subject policy that denies',
    policies: [{ 'f:allow': true }, { 'f:onSubject': hiddenA.map((id) => ({ '@id': id })), 'f:required': true, 'f:allow': false }],
    hides: (s) => set(hiddenA).has(s),
  },
  {
    name: 'f:onClass deny (per-subject path, sub-classes included)',
    policies: [{ 'f:allow': true }, { 'f:onClass': { '@id': 'ex:C1' }, 'f:allow': false }],
    hides: (s, _p, _o, classesOf) => { const c = classesOf(s); return c.has(EX + 'C1') || c.has(EX + 'C2'); },
  },
];

const SCHEMA_PREDICATES = new Set([RDFS + 'subClassOf', RDFS + 'subPropertyOf', RDFS + 'domain', RDFS + 'range']);
const SCHEMA_CLASS_KEYS = new Set([RDFS + 'Class']);

/** A ledger with the generated graph, identity ME in class ex:P, and the case's policies. */
async function ledgerFor(c: Case, seed: number): Promise<Connection> {
  const conn = new Connection(openMemoryStorage());
  await conn.create('hr');
  await insert(conn, 'hr', [
    ...generated(seed),
    { '@id': ME, 'f:policyClass': { '@id': 'ex:P' } },
    ...c.policies.map((p, i) => ({ '@id': `ex:pol${i}`, '@type': ['f:AccessPolicy', 'ex:P'], 'f:action': { '@id': 'f:view' }, ...p })),
  ]);
  return conn;
}

/** A view over `db` that is not a Db: the policy view then decides every fact on its own (the per-fact path). */
class Plain implements DbView {
  readonly t: number;
  readonly dict: DbView['dict'];
  constructor(private readonly db: Db) { this.t = db.t; this.dict = db.dict; }
  graphId(iri: string) { return this.db.graphId(iri); }
  graphIri(g: number) { return this.db.graphIri(g); }
  namedGraphs() { return this.db.namedGraphs(); }
  scan(p: ScanPattern) { return this.db.scan(p); }
  estimate(p: ScanPattern) { return this.db.estimate(p); }
  history(p: ScanPattern, a: number, b: number) { return this.db.history(p, a, b); }
  get stats() { return this.db.stats; }
}

/** Facts of a scan as sorted `s p o` id triples. */
async function facts(view: DbView, pattern: ScanPattern): Promise<string[]> {
  const out: string[] = [];
  for await (const b of view.scan(pattern)) for (let i = 0; i < b.n; i++) out.push(`${b.s[i]} ${b.p[i]} ${b.o[i]}`);
  return out.sort();
}

function syncFacts(b: FactBatch | null): string[] | null {
  if (!b) return null;
  const out: string[] = [];
  for (let i = 0; i < b.n; i++) out.push(`${b.s[i]} ${b.p[i]} ${b.o[i]}`);
  return out.sort();
}

describe('policy scan fast paths equal the per-fact rules', () => {
  for (const [ci, c] of CASES.entries()) {
    it(c.name, async () => {
      const conn = await ledgerFor(c, 100 + ci);
      const db = await conn.db('hr');
      const dict = db.dict;
      const inputs: PolicyInputs = { identity: ME, ...c.inputs };

      // The reference: unrestricted facts minus the ones the policy hides.
      const all: [number, number, number, number][] = [];
      for await (const b of db.scan({})) for (let i = 0; i < b.n; i++) all.push([b.s[i]!, b.p[i]!, b.o[i]!, b.g[i]!]);
      const typeId = dict.idOfKey(RDF_TYPE)!;
      const classes = new Map<string, Set<string>>();
      for (const [s, p, o] of all) {
        if (p !== typeId) continue;
        const k = dict.key(s);
        (classes.get(k) ?? classes.set(k, new Set()).get(k)!).add(dict.key(o));
      }
      const classesOf = (s: string) => classes.get(s) ?? new Set<string>();
      const visible = (s: number, p: number, o: number) => {
        const pk = dict.key(p), ok = dict.key(o);
        if (SCHEMA_PREDICATES.has(pk) || (p === typeId && SCHEMA_CLASS_KEYS.has(ok))) return true;
        return !c.hides(dict.key(s), pk, ok, classesOf);
      };
      const expected = (pattern: ScanPattern) => all
        .filter(([s, p, o, g]) => (pattern.s === undefined || s === pattern.s) && (pattern.p === undefined || p === pattern.p)
          && (pattern.o === undefined || o === pattern.o) && (pattern.g === undefined || g === pattern.g))
        .filter(([s, p, o]) => visible(s, p, o))
        .map(([s, p, o]) => `${s} ${p} ${o}`).sort();
      const hiddenCount = all.filter(([s, p, o, g]) => g === 0 && !visible(s, p, o)).length;
      expect(hiddenCount).toBeGreaterThan(0);
      expect(hiddenCount).toBeLessThan(all.length);

      // Two views on the same snapshot: the second request reuses the first one's evaluator.
      const fast = (await policyView(conn, db, inputs)).view;
      const fastAgain = (await policyView(conn, db, inputs)).view;
      const slow = (await policyView(conn, new Plain(db), inputs, { ledgerId: 'hr' })).view;

      const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => dict.idOfKey(`${EX}${prefix}${i}`)).filter((x): x is number => x !== undefined);
      const subjects = ids('s', SUBJECTS), preds = [...ids('p', PREDICATES), typeId, dict.idOfKey(RDFS + 'subClassOf')!];
      const patterns: ScanPattern[] = [{}, { g: 0 }];
      for (const p of preds) patterns.push({ p });
      for (const s of subjects) {
        patterns.push({ s }, { g: 0, s });
        for (const p of preds) patterns.push({ s, p });
      }
      for (const o of [dict.idOfKey(RDFS + 'Class')!, dict.idOfKey(EX + 'C1')!, subjects[7]!]) {
        patterns.push({ o });
        for (const p of preds) patterns.push({ p, o });
      }
      for (const pattern of patterns) {
        const want = expected(pattern);
        expect(await facts(fast, pattern), JSON.stringify(pattern)).toEqual(want);
        expect(await facts(fastAgain, pattern), JSON.stringify(pattern)).toEqual(want);
        expect(await facts(slow, pattern), JSON.stringify(pattern)).toEqual(want);
        const sync = syncFacts(fast.scanSync?.(pattern) ?? null);
        if (sync) expect(sync, `scanSync ${JSON.stringify(pattern)}`).toEqual(want);
      }

      // Through SPARQL: every triple of the default graph.
      const q = 'SELECT ?s ?p ?o WHERE { ?s ?p ?o } ORDER BY ?s ?p ?o';
      const restricted = await rows(conn, q, { policy: inputs });
      const open = await rows(conn, q);
      expect(restricted.length).toBe(open.length - hiddenCount);
      expect(restricted.length).toBe(expected({ g: 0 }).length);
    });
  }

  it('a shared evaluator does not outlive its head: a policy added later hides at once', async () => {
    const conn = await ledgerFor(CASES[0]!, 7);
    const count = async () => (await rows(conn, 'SELECT (COUNT(*) AS ?n) WHERE { ex:s0 ?p ?o }', { policy: { identity: ME } }))[0]![0];
    const before = await count();
    expect(await count()).toBe(before);
    await update(conn, 'hr', { insert: { '@id': 'ex:polNew', '@type': ['f:AccessPolicy', 'ex:P'], 'f:onSubject': { '@id': 'ex:s0' }, 'f:allow': false } });
    const after = await count();
    // ex:s0 keeps only its schema flakes (an rdf:type rdfs:Class or rdfs:subClassOf, if it has any).
    const schema = await rows(conn, 'SELECT (COUNT(*) AS ?n) WHERE { { ex:s0 rdfs:subClassOf ?o } UNION { ex:s0 a rdfs:Class } }');
    expect(after).toBe(schema[0]![0]);
    expect(before).toBeGreaterThan(after as number);
  });
});
