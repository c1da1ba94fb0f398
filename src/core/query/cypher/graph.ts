/**
 * The property-graph view's reads (cypher.md §2): every lookup is an algebra operator run by the
 * one engine (executeQuery) over the request's view, so policy filtering applies as for SPARQL.
 * Facts of a node are fetched once per statement and cached.
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
    const rows = await this.select({ type: 'bgp', patterns: [{ s, p: variable('p'), o: variable('o') }] }, ['p', 'o']);
    for (const r of rows) {
      const p = r.p!.value;
      const l = m.get(p);
      if (l) l.push(r.o!); else m.set(p, [r.o!]);
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
