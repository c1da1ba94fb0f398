/**
 * The property-graph view's reads (cypher.md §2): lookups are algebra operators run by the one
 * engine (executeQuery) over the request's view, and a node's own facts a scan of that view, so
 * policy filtering applies as for SPARQL. Facts of a node are fetched once per statement and cached.
 */
import type { Op } from '../algebra/algebra.js';
import { executeQuery, type QueryContext } from '../engine.js';
import type { Binding } from '../results/types.js';
import { namedNode, variable, type Term } from '../../rdf/terms.js';
import { F, RDF } from '../../rdf/vocab.js';
import { cypherError } from './errors.js';

export const RDF_TYPE = RDF + 'type';
export const F_NODE = F + 'Node';
export const REIFIES = { s: F + 'reifiesSubject', p: F + 'reifiesPredicate', o: F + 'reifiesObject' };
/** Variable-length expansions allowed in one statement (§5). */
export const MAX_EXPANSIONS = 100_000;

/** Read access of one statement. */
export class Graph {
  private facts = new Map<string, Map<string, Term[]>>();
  expansions = 0;
  constructor(public ctx: QueryContext) {}

  /** Read another state from now on (a write statement's overlay after its writes); drops cached facts. */
  rebase(view: QueryContext['view']): void {
    if (view === this.ctx.view) return;
    this.ctx = { ...this.ctx, view };
    this.facts.clear();
    this.values.clear();
    this.reifierFacts = undefined;
  }

  /** Objects of single (subject, predicate) pairs read so far. */
  private values = new Map<string, Term[]>();

  /**
   * The objects of (s, p), stored order: a scan of that pair only, so reading one property of many
   * nodes does not decode every fact of each (from the node's facts when those were read already).
   */
  async valuesOf(s: Term, p: string): Promise<Term[]> {
    const whole = this.facts.get(s.termType[0] + s.value);
    if (whole) return whole.get(p) ?? [];
    const key = s.termType[0] + s.value + '\u0001' + p;
    let out = this.values.get(key);
    if (out) return out;
    out = [];
    const view = this.ctx.view;
    const dict = view.dict;
    const si = await dict.lookup(s), pi = await dict.lookup(namedNode(p));
    if (si !== undefined && pi !== undefined) {
      const signal = this.ctx.signal;
      for await (const b of view.scan({ g: 0, s: si, p: pi }, signal ? { signal } : undefined)) {
        for (let k = 0; k < b.n; k++) out.push(dict.term(b.o[k]!));
      }
    }
    this.values.set(key, out);
    return out;
  }

  private reifierFacts: boolean | undefined;

  /**
   * Whether the view holds any reifier (an `f:reifiesSubject` fact in the default graph): without
   * one, patterns need no filter keeping reifiers out of nodes.
   */
  async hasReifiers(): Promise<boolean> {
    if (this.reifierFacts !== undefined) return this.reifierFacts;
    const view = this.ctx.view;
    const p = await view.dict.lookup(namedNode(REIFIES.s));
    let found = false;
    if (p !== undefined) {
      for await (const b of view.scan({ g: 0, p })) { if (b.n > 0) { found = true; break; } }
    }
    return (this.reifierFacts = found);
  }

  /** Run an operator and collect its solutions. */
  async select(op: Op, variables: string[]): Promise<Binding[]> {
    const res = await executeQuery({ form: 'select', op, variables }, this.ctx);
    if (res.type !== 'bindings') return [];
    const out: Binding[] = [];
    for await (const b of res.rows) out.push(b);
    return out;
  }

  /** Every (predicate → objects) of a subject, objects in stored order. */
  async factsOf(s: Term): Promise<Map<string, Term[]>> {
    const key = s.termType[0] + s.value;
    let m = this.facts.get(key);
    if (m) return m;
    m = new Map();
    // A direct scan of the view (policy views filter their scans): a node's facts are read for every
    // row that touches its properties, and planning an engine query per node would cost more than the read.
    const view = this.ctx.view;
    const dict = view.dict;
    const si = await dict.lookup(s);
    if (si !== undefined) {
      const signal = this.ctx.signal;
      for await (const b of view.scan({ g: 0, s: si }, signal ? { signal } : undefined)) {
        for (let k = 0; k < b.n; k++) {
          const p = dict.term(b.p[k]!).value;
          const o = dict.term(b.o[k]!);
          const l = m.get(p);
          if (l) l.push(o); else m.set(p, [o]);
        }
      }
    }
    this.facts.set(key, m);
    return m;
  }

  /** Reifier nodes of the base fact (s, p, o). */
  async reifiers(s: Term, p: string, o: Term): Promise<Term[]> {
    const rows = await this.select({ type: 'bgp', patterns: [
      { s: variable('r'), p: namedNode(REIFIES.s), o: s }, { s: variable('r'), p: namedNode(REIFIES.p), o: namedNode(p) },
      { s: variable('r'), p: namedNode(REIFIES.o), o },
    ] }, ['r']);
    return rows.map((r) => r.r!);
  }

  /** Count variable-length expansions; 400 LimitExceeded past the budget. */
  expand(n: number): void {
    this.expansions += n;
    if (this.expansions > MAX_EXPANSIONS) throw cypherError('LimitExceeded', `variable-length search exceeded ${MAX_EXPANSIONS} path expansions`);
  }
}
