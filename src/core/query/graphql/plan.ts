/**
 * Root-field query plans (graphql.md §10): the JSON-LD query object a root list or count field
 * compiles to is turned into shared algebra once per (schema, query text) and kept. Before it is
 * kept, the field conditions' `exists` groups are rewritten into joins where that cannot change the
 * answer — the query projects `DISTINCT ?s` (or counts distinct `?s`) and the group shares only
 * `?s` with the rest — so the planner orders their patterns with the type pattern (a selective
 * reference condition such as `product = <p>` drives the query instead of being tested per row).
 * Explain still shows the JSON-LD object of §10: the rewrite is an equivalence, like the planner's.
 */
import type { Expr, Op, TriplePattern } from '../algebra/algebra.js';
import type { Term } from '../../rdf/terms.js';
import { parseQuery } from '../jsonld/parse.js';
import { compileSelect } from '../jsonld/query.js';
import { WhereCompiler } from '../jsonld/where.js';

/** A compiled root query: its algebra and projected variables. */
export interface Plan { op: Op; projected: string[] }

/** The subject variable every root query projects or counts (filters.ts). */
const SUBJECT = 's';

/** Compile a root field's JSON-LD query object (with the naming context) into its plan. */
export function compileRootQuery(contextJson: unknown, body: Record<string, unknown>): Plan {
  const q = parseQuery({ '@context': contextJson, ...body });
  const c = compileSelect(q.query, new WhereCompiler(), true);
  const uses = new Map<string, number>();
  countVars(c.op, uses);
  return { op: top(c.op, uses, false), projected: c.projected };
}

/**
 * Down the solution modifiers to the group pattern. Below a DISTINCT (of ?s, the only projected
 * variable) or a count of distinct ?s, duplicate rows change nothing, so semi-joins may be joins.
 */
function top(op: Op, uses: Map<string, number>, distinct: boolean): Op {
  const sorted = distinctFirst(op);
  if (sorted) return top(sorted, uses, distinct);
  switch (op.type) {
    case 'slice': case 'project': case 'orderby': case 'extend': return { ...op, input: top(op.input, uses, distinct) };
    case 'distinct': return { ...op, input: top(op.input, uses, true) };
    case 'group': return op.keys.length === 0 && op.aggregates.every((a) => a.agg.distinct && a.agg.expr?.type === 'var' && a.agg.expr.name === SUBJECT) ? { ...op, input: chain(op.input, uses) } : op;
    default: return distinct ? chain(op, uses) : op;
  }
}

/**
 * `LIMIT (DISTINCT (PROJECT (ORDER BY x)))` ordered by projected variables only, as
 * `LIMIT (PROJECT (ORDER BY (DISTINCT (PROJECT x))))`: the same rows, and the sort under the limit
 * keeps only the best offset+limit (the planner's top-k does not reach through a DISTINCT).
 */
function distinctFirst(op: Op): Op | undefined {
  if (op.type !== 'slice' || op.limit === undefined || op.input.type !== 'distinct') return undefined;
  const project = op.input.input;
  if (project.type !== 'project' || project.input.type !== 'orderby') return undefined;
  const order = project.input;
  if (!order.keys.every((k) => k.expr.type === 'var' && project.variables.includes(k.expr.name))) return undefined;
  const inner: Op = { type: 'distinct', input: { type: 'project', variables: project.variables, input: order.input } };
  return { ...op, input: { type: 'project', variables: project.variables, input: { ...order, input: inner } } };
}

/** A chain of filters over the group's pattern: correlated `exists` groups become semi-joins. */
function chain(op: Op, uses: Map<string, number>): Op {
  if (op.type !== 'filter') return op;
  const input = chain(op.input, uses);
  const e = op.expr;
  if (e.type === 'exists' && !e.not && correlatedOnSubject(e.op, uses)) return semiJoin(input, simplify(e.op, uses));
  return input === op.input ? op : { ...op, input };
}

/** True when the group mentions ?s and every other variable of it appears nowhere else. */
function correlatedOnSubject(op: Op, uses: Map<string, number>): boolean {
  const own = new Map<string, number>();
  countVars(op, own);
  if (!own.has(SUBJECT)) return false;
  for (const [v, n] of own) if (v !== SUBJECT && uses.get(v) !== n) return false;
  return isFilteredBgp(op);
}

function isFilteredBgp(op: Op): boolean {
  return op.type === 'bgp' || (op.type === 'filter' && op.expr.type !== 'exists' && isFilteredBgp(op.input));
}

/** `?v = <iri>` on a variable private to the group becomes the constant in its pattern. */
function simplify(op: Op, uses: Map<string, number>): Op {
  if (op.type !== 'filter') return op;
  const input = simplify(op.input, uses);
  const e = op.expr;
  if (e.type === 'call' && (e.fn === 'closed-eq' || e.fn === '=') && input.type === 'bgp') {
    const [a, b] = e.args as [Expr, Expr];
    const v = a.type === 'var' ? a.name : b.type === 'var' ? b.name : undefined;
    const c = a.type === 'term' ? a.term : b.type === 'term' ? b.term : undefined;
    // Two uses: the pattern's and this filter's. IRIs are equal only when they are the same term.
    if (v !== undefined && v !== SUBJECT && c?.termType === 'NamedNode' && uses.get(v) === 2) {
      return { type: 'bgp', patterns: input.patterns.map((p) => substitute(p, v, c)) };
    }
  }
  return input === op.input ? op : { ...op, input };
}

function substitute(p: TriplePattern, v: string, c: Term): TriplePattern {
  const at = (t: TriplePattern['s']) => (t.termType === 'Variable' && t.value === v ? c : t);
  return { ...p, s: at(p.s), p: at(p.p), o: at(p.o) } as TriplePattern;
}

/** `input` restricted to rows whose ?s has a match of `x` (a filtered BGP): merged into its BGP when it has one. */
function semiJoin(input: Op, x: Op): Op {
  if (input.type === 'bgp' && x.type === 'bgp') return { type: 'bgp', patterns: [...input.patterns, ...x.patterns] };
  // ?s is bound by the type pattern on the left: the restriction applies before the optional part.
  if (input.type === 'leftjoin' && bindsSubject(input.left)) return { ...input, left: semiJoin(input.left, x) };
  if (x.type === 'filter') {
    // Its condition reads only the group's own variables: it can sit above the merged pattern.
    return { type: 'filter', expr: x.expr, input: semiJoin(input, x.input) };
  }
  if (input.type === 'filter' && input.expr.type !== 'exists') return { ...input, input: semiJoin(input.input, x) };
  return { type: 'join', inputs: [input, x] };
}

function bindsSubject(op: Op): boolean {
  if (op.type === 'bgp') return op.patterns.some((p) => p.s.termType === 'Variable' && p.s.value === SUBJECT);
  return op.type === 'filter' && bindsSubject(op.input);
}

/** Occurrences of each variable anywhere in an operator tree (patterns and expressions). */
function countVars(x: unknown, out: Map<string, number>): void {
  if (Array.isArray(x)) { for (const y of x) countVars(y, out); return; }
  if (typeof x !== 'object' || x === null) return;
  const o = x as Record<string, unknown>;
  if (o.termType === 'Variable' && typeof o.value === 'string') { out.set(o.value, (out.get(o.value) ?? 0) + 1); return; }
  if (o.type === 'var' && typeof o.name === 'string') { out.set(o.name, (out.get(o.name) ?? 0) + 1); return; }
  if (o.type === 'project') for (const v of o.variables as string[]) out.set(v, (out.get(v) ?? 0) + 1);
  for (const k in o) countVars(o[k], out);
}
