/**
 * A read statement of the shape `MATCH … [WHERE …] RETURN [DISTINCT] … [ORDER BY …] [SKIP] [LIMIT]`
 * compiled into one algebra query (issue 14: reads translate into the shared algebra), so the
 * planner joins property reads like SPARQL's triple patterns, filters in the engine, and orders and
 * limits on dictionary ids, decoding only the rows returned. See docs/cypher.md "Compiled reads".
 *
 * Exactness. Cypher's `n.key` is null, one value, or the sorted list of several, with its own
 * comparison and ordering rules; the algebra sees RDF terms. When the view's profile of every read
 * property (profile.ts) shows at most one value per node, of kinds whose translation is exact
 * (xsd:integer within 64 bits, xsd:double but NaN, xsd:string, rdf:langString, canonical
 * xsd:boolean; xsd:date/dateTime/time for WHERE comparisons), a property is its triple pattern's
 * variable, as in SPARQL. Otherwise the values are folded to one row per match solution by a GROUP,
 * and every row the WHERE could keep where that does not hold is flagged (`__bad`), kept past the
 * WHERE, and ordered first; when the result holds a flagged row, the caller runs the statement
 * clause by clause instead (run.ts). Anything outside the compiled forms also falls back
 * (undefined), never an error: the clause-by-clause run owns the errors.
 */
import type { Expr as AExpr, Op, OrderKey, TermOrVar } from '../algebra/algebra.js';
import { fold, NoSubst, withConsts, withPatterns } from './fold.js';
import { planSlot } from './plan-cache.js';
import { literal, namedNode, variable, type Term } from '../../rdf/terms.js';
import { RDF, XSD } from '../../rdf/vocab.js';
import type { Expr, PathPat, Projection, Statement } from './ast.js';
import { evaluate, hasAggregate, type Env } from './eval.js';
import { matchOp, type Seg } from './match.js';
import { fromTerm, keyOf, type Value } from './values.js';
import { profileOf, type Kind, type PropProfile } from './profile.js';
import { tidy } from './tidy.js';
import { binders, covers } from './coverage.js';

class Bail extends Error {}
const bail = (): never => { throw new Bail(); };

const call = (fn: string, ...args: AExpr[]): AExpr => ({ type: 'call', fn, args });
const vx = (name: string): AExpr => ({ type: 'var', name });
const tx = (term: Term): AExpr => ({ type: 'term', term });
const and = (xs: AExpr[]): AExpr => xs.reduce((a, b) => call('&&', a, b));
const or = (xs: AExpr[]): AExpr => xs.reduce((a, b) => call('||', a, b));
const TRUE = tx(literal('true', XSD + 'boolean'));
const int = (n: number | bigint): AExpr => tx(literal(String(n), XSD + 'integer'));
const dt = (name: string): AExpr => tx(namedNode(XSD + name));
const dtIs = (s: string, ...names: string[]): AExpr => or(names.map((n) => call('=', call('datatype', vx(s)), n.startsWith('rdf:') ? tx(namedNode(RDF + n.slice(4))) : dt(n))));

/** The translation of a Cypher boolean: `t` is true exactly when Cypher's value is true, `f` when it is false. */
interface TF { t: AExpr; f: AExpr }

/**
 * One property read. `scope`: the clause whose operator binds it — 0 the MATCH, i the i-th
 * OPTIONAL MATCH (its WHERE's reads, and later reads of the nodes it introduces, so a node it left
 * null reads null).
 */
interface Prop { av: string; iri: string; v: string; s: string; scope: number; checked: boolean; ordered: boolean; arith: boolean; floated: boolean; summed: boolean }

/** One statement's translation state. */
class Compiler {
  readonly props = new Map<string, Prop>();
  /** Value variables read since the last reset (which properties a WHERE conjunct needs). */
  used = new Set<string>();
  private existsN = 0;
  /** The clause being translated (its WHERE), or 'ret' for RETURN and ORDER BY. */
  scope: number | 'ret' = 0;
  /** The clause that introduced each node variable (algebra name). */
  readonly scopeOf = new Map<string, number>();
  constructor(readonly env: Env, public nodeVar: Map<string, string>) {}

  /** The value variable of `n.key` for a node variable of the MATCH. */
  prop(e: Expr, use: 'check' | 'order' | 'value' | 'float' | 'sum'): string {
    if (e.k !== 'prop' || e.of.k !== 'var' || e.key === '@id') return bail();
    const av = this.nodeVar.get(e.of.name) ?? bail();
    const iri = this.env.names.iri(e.key);
    const scope = this.scope === 'ret' ? this.scopeOf.get(av) ?? 0 : this.scope;
    const k = scope + '\u0001' + av + '\u0001' + iri;
    let p = this.props.get(k);
    if (!p) this.props.set(k, p = { av, iri, v: `__v${this.props.size}`, s: `__s${this.props.size}`, scope, checked: false, ordered: false, arith: false, floated: false, summed: false });
    if (use === 'check') p.checked = true;
    if (use === 'order') p.ordered = true;
    if (use === 'float') p.floated = true;
    if (use === 'sum') p.summed = true;
    this.used.add(p.s);
    return p.s;
  }

  /** A constant operand (literal, parameter, or a function of them), evaluated once. */
  private async constant(e: Expr): Promise<Value> {
    const ok = (x: Expr): boolean => x.k === 'lit' || x.k === 'param' || (x.k === 'call' && !hasAggregate(x) && x.args.every(ok));
    if (!ok(e)) return bail();
    try { return await evaluate(e, new Map(), this.env); } catch { return bail(); }
  }

  /** A numeric operand: its algebra expression and the property variables it reads. */
  private async num(e: Expr, reads: string[], arith = false): Promise<AExpr> {
    switch (e.k) {
      case 'prop': {
        const s = this.prop(e, 'check');
        // Cypher arithmetic on a non-number is an error, not null: such rows are flagged (plain)
        if (arith) [...this.props.values()].find((p) => p.s === s)!.arith = true;
        reads.push(s);
        return vx(s);
      }
      case 'op':
        if (e.op === 'neg') return call('neg', await this.num(e.args[0]!, reads, true));
        if (e.op === '+' || e.op === '-' || e.op === '*') return call(e.op, await this.num(e.args[0]!, reads, true), await this.num(e.args[1]!, reads, true));
        return bail();
      default: {
        const x = await this.constant(e);
        if (typeof x === 'bigint') return int(x);
        if (typeof x === 'number' && Number.isFinite(x)) return tx(literal(String(x), XSD + 'double'));
        return bail();
      }
    }
  }

  /** Translate a WHERE expression. */
  async bool(e: Expr): Promise<TF> {
    if (e.k === 'op') {
      const [a, b] = e.args;
      switch (e.op) {
        case 'AND': { const x = await this.bool(a!), y = await this.bool(b!); return { t: call('&&', x.t, y.t), f: call('||', x.f, y.f) }; }
        case 'OR': { const x = await this.bool(a!), y = await this.bool(b!); return { t: call('||', x.t, y.t), f: call('&&', x.f, y.f) }; }
        case 'NOT': { const x = await this.bool(a!); return { t: x.f, f: x.t }; }
        case 'IS NULL': case 'IS NOT NULL': {
          const bound = call('bound', vx(this.prop(a!, 'value')));
          const notBound = call('!', bound);
          return e.op === 'IS NULL' ? { t: notBound, f: bound } : { t: bound, f: notBound };
        }
        case '=': case '<>': {
          // node identity (`p <> o`): never null for the MATCH's own nodes
          if (a!.k !== 'var' || b!.k !== 'var') return bail();
          const x = this.nodeVar.get(a!.name) ?? bail(), y = this.nodeVar.get(b!.name) ?? bail();
          const same = call('sameterm', vx(x), vx(y)), differ = call('!', same);
          return e.op === '=' ? { t: same, f: differ } : { t: differ, f: same };
        }
        case '<': case '<=': case '>': case '>=': return this.compare(e.op, a!, b!);
        default: return bail();
      }
    }
    if (e.k === 'exists' && !e.where) {
      const op = await this.existsOp(e.patterns);
      const yes: AExpr = { type: 'exists', not: false, op }, no: AExpr = { type: 'exists', not: true, op };
      return { t: yes, f: no };
    }
    return bail();
  }

  /** `x < y` and friends: numbers (both sides numeric, as Cypher's compare), or a temporal property against a temporal constant. */
  private async compare(op: string, a: Expr, b: Expr): Promise<TF> {
    for (const [p, c, flip] of [[a, b, false], [b, a, true]] as const) {
      if (p.k !== 'prop' || c.k === 'prop') continue;
      const x = await this.constant(c).catch(() => undefined);
      if (x === undefined || x === null || typeof x !== 'object' || Array.isArray(x) || x.t !== 'temporal' || x.dt === 'duration') continue;
      // Cypher compares temporals of one type by their lexical form
      const s = this.prop(p, 'check');
      const lhs = call('str', vx(s)), rhs = tx(literal(x.lex));
      const cmp = flip ? call(op, rhs, lhs) : call(op, lhs, rhs);
      const typed = dtIs(s, x.dt);
      return { t: call('&&', typed, cmp), f: call('&&', typed, call('!', cmp)) };
    }
    const reads: string[] = [];
    const l = await this.num(a, reads), r = await this.num(b, reads);
    const cmp = call(op, l, r);
    const numeric = reads.length ? and(reads.map((s) => call('isnumeric', vx(s)))) : TRUE;
    return { t: call('&&', numeric, cmp), f: call('&&', numeric, call('!', cmp)) };
  }

  /** An EXISTS pattern as an algebra operator over the outer query's node variables. */
  private async existsOp(patterns: PathPat[]): Promise<Op> {
    checkPatterns(patterns);
    const ev = (x: Expr, r: Map<string, Value>) => evaluate(x, r, this.env);
    const m = await matchOp(this.env.g, this.env.names, patterns, ev, undefined, new Set(), { outer: this.nodeVar, prefix: `e${this.existsN++}_` });
    if (m.post.length) bail();
    return unique(m.op, m.segs);
  }
}

/** Only fixed-length, typed or untyped, directed relationships without variables or property maps. */
function checkPatterns(ps: PathPat[]): void {
  for (const p of ps) {
    if (p.pathVar !== undefined) bail();
    for (const r of p.rels) if (r.range || r.v !== undefined || r.props.length || r.dir === 'both') bail();
  }
}

/** Relationship uniqueness (§2.2): no two parts of one pattern bind the same fact. */
function unique(op: Op, segs: Seg[]): Op {
  const ends = (s: Seg) => (s.rel.dir === 'in' ? [s.b, s.a] : [s.a, s.b]);
  for (let i = 0; i < segs.length; i++) {
    for (let j = i + 1; j < segs.length; j++) {
      const x = segs[i]!, y = segs[j]!;
      if (x.rel.types.length && y.rel.types.length && !x.rel.types.some((t) => y.rel.types.includes(t))) continue;
      const [xs, xe] = ends(x), [ys, ye] = ends(y);
      const same = and([call('sameterm', vx(xs!), vx(ys!)), call('sameterm', vx(x.pv!), vx(y.pv!)), call('sameterm', vx(xe!), vx(ye!))]);
      op = { type: 'filter', expr: call('!', same), input: op };
    }
  }
  return op;
}

/** Plain values a compiled property may hold (see the module comment); others flag the row. */
function plain(s: string, p: Prop): AExpr {
  const ok = [
    and([dtIs(s, 'integer'), call('isnumeric', vx(s)), call('<', call('abs', vx(s)), int(2n ** 63n))]),
    and([dtIs(s, 'double'), call('isnumeric', vx(s)), call('=', vx(s), vx(s))]),
    dtIs(s, 'string', 'rdf:langString'),
    and([dtIs(s, 'boolean'), call('||', call('=', call('str', vx(s)), tx(literal('true'))), call('=', call('str', vx(s)), tx(literal('false'))))]),
  ];
  if (p.arith) ok.splice(2);
  else if (!p.ordered) ok.push(dtIs(s, 'date', 'dateTime', 'time'));
  return call('!', call('&&', call('bound', vx(s)), call('!', or(ok))));
}

/** ORDER BY keys reproducing Cypher's order for plain values: type rank (number, boolean, string; null last), then the value. */
function orderKeys(s: string, desc: boolean): OrderKey[] {
  const isBool = dtIs(s, 'boolean');
  const rank = call('if', call('!', call('bound', vx(s))), int(9), call('if', call('isnumeric', vx(s)), int(4), call('if', isBool, int(3), int(2))));
  // Cypher ranks strings before booleans before numbers; ascending rank 2 < 3 < 4 < 9 (null) matches
  const val = call('if', call('isnumeric', vx(s)), vx(s), call('if', isBool, call('if', call('=', call('str', vx(s)), tx(literal('true'))), int(1), int(0)), call('str', vx(s))));
  return [{ expr: rank, desc }, { expr: val, desc }];
}

/** SKIP / LIMIT as a number, or bail (the clause-by-clause run reports invalid ones). */
async function count(e: Expr | undefined, env: Env): Promise<number | undefined> {
  if (!e) return undefined;
  if (e.k !== 'lit' && e.k !== 'param') return bail();
  const v = await evaluate(e, new Map(), env).catch(() => undefined);
  return typeof v === 'bigint' && v >= 0n ? Number(v) : bail();
}

type MatchClause = Extract<Statement['clauses'][number], { k: 'match' }>;

/**
 * Run a read statement as one algebra query when it has the compiled shape and every row it
 * yields is exact; undefined when the statement must run clause by clause.
 */
export async function compiledRead(stmt: Statement, env: Env): Promise<{ columns: string[]; rows: Value[][] } | undefined> {
  const cl = stmt.clauses;
  const r0 = cl[cl.length - 1];
  if (stmt.unions || cl.length < 2 || r0?.k !== 'return') return undefined;
  const matches = cl.slice(0, -1);
  // one MATCH, then OPTIONAL MATCHes
  if (!matches.every((c, i): c is MatchClause => c.k === 'match' && c.optional === (i > 0))) return undefined;
  const d = env.g.ctx.defaultGraphs;
  if (d !== undefined && !(d.length === 1 && d[0] === 0)) return undefined;
  const slot = planSlot<Plan>(stmt, env.g.ctx.view, env.names, env.params);
  let plan = slot?.get();
  if (plan === undefined) {
    try {
      plan = await compile(matches, r0.proj, env);
    } catch (e) {
      if (!(e instanceof Bail || e instanceof NoSubst)) throw e;
      plan = null;
    }
    slot?.set(plan);
  }
  return plan ? execute(plan, env) : undefined;
}

/** The property reads of a WHERE's top-level comparisons and `IS NOT NULL` tests: a row can only pass with a value for each. */
function required(where: Expr | undefined, out: Expr[], notNull: Expr[]): void {
  if (!where) return;
  if (where.k === 'op' && where.op === 'AND') { required(where.args[0], out, notNull); required(where.args[1], out, notNull); return; }
  if (where.k === 'op' && where.op === 'IS NOT NULL' && where.args[0]!.k === 'prop') { out.push(where.args[0]!); notNull.push(where.args[0]!); return; }
  if (where.k !== 'op' || !['<', '<=', '>', '>='].includes(where.op)) return;
  const walk = (e: Expr): void => { if (e.k === 'prop') out.push(e); else if (e.k === 'op') e.args.forEach(walk); };
  where.args.forEach(walk);
}

const ALLOWED: Record<'arith' | 'checked' | 'ordered', ReadonlySet<Kind>> = {
  arith: new Set(['int', 'double']),
  checked: new Set(['int', 'double', 'string', 'bool', 'temporal']),
  ordered: new Set(['int', 'double', 'string', 'bool']),
};

/** Whether every read property has at most one value per node, of kinds its uses translate exactly. */
async function simple(props: Prop[], env: Env): Promise<Map<Prop, PropProfile> | undefined> {
  const out = new Map<Prop, PropProfile>();
  for (const p of props) {
    const prof = await profileOf(env.g.ctx.view, p.iri, env.g.ctx.signal);
    if (!prof.functional) return undefined;
    for (const use of ['arith', 'checked', 'ordered'] as const) {
      if (p[use] && [...prof.kinds].some((k) => !ALLOWED[use].has(k))) return undefined;
    }
    if (p.floated && !prof.numerals) return undefined;
    // SUM, MIN and MAX over integers only: SPARQL adds and compares xsd:integer exactly, as Cypher does its Integers
    if (p.summed && [...prof.kinds].some((k) => k !== 'int')) return undefined;
    out.set(p, prof);
  }
  return out;
}

/** A RETURN column: a node, a property of one, or an aggregate. */
interface Col { kind: 'node' | 'prop' | 'agg'; v: string; inf?: string }

/**
 * `count(*)`, `count([DISTINCT] n)`, `count(n.key)`, `sum|min|max(n.key)` as a GROUP aggregate bound
 * to `v`. Cypher's aggregates skip nulls where SPARQL's SUM, MIN and MAX fail on an unbound value:
 * SUM adds 0 for a null, MIN and MAX compare a null as ±INF (above or below every integer, the only
 * kind they compile for) and turn an infinite result back into null.
 */
function aggregate(e: Expr, v: string, c: Compiler, nodes: Map<string, string>, out: Extract<Op, { type: 'group' }>['aggregates']): Col {
  if (e.k !== 'call' || !['count', 'sum', 'min', 'max'].includes(e.fn) || e.args.some(hasAggregate)) return bail();
  const name = e.fn as 'count' | 'sum' | 'min' | 'max';
  if (e.star) {
    if (name !== 'count') return bail();
    out.push({ variable: v, agg: { name, distinct: false } });
    return { kind: 'agg', v };
  }
  if (e.args.length !== 1) return bail();
  const a = e.args[0]!;
  if (a.k === 'var') {
    if (name !== 'count') return bail();
    out.push({ variable: v, agg: { name, distinct: e.distinct, expr: vx(nodes.get(a.name) ?? bail()) } });
    return { kind: 'agg', v };
  }
  // DISTINCT values: Cypher compares values, the engine terms
  if (e.distinct) return bail();
  const s = c.prop(a, name === 'count' ? 'value' : 'sum');
  const inf = (neg: boolean) => tx(literal(neg ? '-INF' : 'INF', XSD + 'double'));
  const expr = name === 'count' ? vx(s) : call('if', call('bound', vx(s)), vx(s), name === 'sum' ? int(0) : inf(name === 'max'));
  out.push({ variable: name === 'count' || name === 'sum' ? v : `${v}_x`, agg: { name, distinct: false, expr } });
  return { kind: 'agg', v, ...(name === 'min' || name === 'max' ? { inf: `${v}_x` } : {}) };
}

/** An ORDER BY key: a property's value, or (`float`) Cypher's `toFloat` of it. */
interface Order { s: string; desc: boolean; float: boolean; agg?: boolean }

/** The variables a pattern mentions that are node variables bound before it. */
function outerRefs(ps: PathPat[], bound: Map<string, string>): string[] {
  return ps.flatMap((p) => p.nodes.flatMap((n) => (n.v !== undefined && bound.has(n.v) ? [n.v] : [])));
}

/** A compiled read: its operator, and how its solutions become the Cypher table. */
interface Plan { op: Op; out: string[]; cols: Col[]; names: string[]; flagged: boolean; distinct: boolean; skip: number | undefined }

async function compile(matches: MatchClause[], proj: Projection, env: Env): Promise<Plan> {
  if (proj.star || proj.where) return bail();
  const aggregated = proj.items.some((i) => hasAggregate(i.e));
  for (const m of matches) checkPatterns(m.patterns);
  const ev = (x: Expr, r: Map<string, Value>) => evaluate(x, r, env);
  // the MATCH's node variables first (for the translation), its operator below
  const probe = await matchOp(env.g, env.names, matches[0]!.patterns, ev, undefined, new Set());
  if (probe.post.length) return bail();
  const c = new Compiler(env, probe.nodeVar);
  const probes = [probe];
  for (const av of probe.nodeVar.values()) c.scopeOf.set(av, 0);
  /** Per clause: the node variables bound before it (an OPTIONAL MATCH's outer names). */
  const outers: Map<string, string>[] = [new Map()];
  for (let i = 1; i < matches.length; i++) {
    // a node an earlier OPTIONAL MATCH may have left null would match anything as an unbound variable
    if (outerRefs(matches[i]!.patterns, c.nodeVar).some((n) => c.scopeOf.get(c.nodeVar.get(n)!) !== 0)) return bail();
    outers.push(c.nodeVar);
    const m = await matchOp(env.g, env.names, matches[i]!.patterns, ev, undefined, new Set(), { outer: c.nodeVar, prefix: `o${i}_` });
    if (m.post.length) return bail();
    probes.push(m);
    for (const av of m.nodeVar.values()) if (!c.scopeOf.has(av)) c.scopeOf.set(av, i);
    c.nodeVar = m.nodeVar;
  }
  const allNodes = c.nodeVar;

  // columns: a node variable of a MATCH, or a property of one
  c.scope = 'ret';
  const names = proj.items.map((i) => i.alias ?? i.text);
  if (new Set(names).size !== names.length) return bail();
  const aggs: Extract<Op, { type: 'group' }>['aggregates'] = [];
  const cols = proj.items.map((i, k): Col => {
    if (hasAggregate(i.e)) return aggregate(i.e, `__g${k}`, c, allNodes, aggs);
    // with aggregation, the other columns are grouping keys: nodes only (SPARQL groups terms, Cypher values: 1 = 1.0)
    if (aggregated && i.e.k !== 'var') return bail();
    return i.e.k === 'var' ? { kind: 'node', v: allNodes.get(i.e.name) ?? bail() } : { kind: 'prop', v: c.prop(i.e, 'value') };
  });
  // each clause's WHERE conjunct by conjunct, with the properties each reads (placed below the OPTIONALs when it can be)
  const conds: { t: AExpr; uses: Set<string> }[][] = [];
  const reqs: Set<string>[] = [], nulls: Set<string>[] = [];
  for (let i = 0; i < matches.length; i++) {
    c.scope = i;
    c.nodeVar = i + 1 < matches.length ? outers[i + 1]! : allNodes;
    const parts: Expr[] = [];
    const split = (e: Expr): void => { if (e.k === 'op' && e.op === 'AND') { split(e.args[0]!); split(e.args[1]!); } else parts.push(e); };
    const where = matches[i]!.where;
    if (where) split(where);
    const mine: { t: AExpr; uses: Set<string> }[] = [];
    for (const part of parts) { c.used = new Set(); mine.push({ t: (await c.bool(part)).t, uses: c.used }); }
    // later reads (required patterns, ORDER BY) must not count as the last conjunct's
    c.used = new Set();
    conds.push(mine);
    const req: Expr[] = [], notNull: Expr[] = [];
    required(where, req, notNull);
    reqs.push(new Set(req.map((e) => c.prop(e, 'value'))));
    // a comparison's translation already holds only for literals (isNumeric, datatype); IS NOT NULL needs the test
    nulls.push(new Set(notNull.map((e) => c.prop(e, 'value'))));
  }
  c.scope = 'ret';
  c.nodeVar = allNodes;
  const order: Order[] = [];
  for (const o of proj.order) {
    let e = o.e, float = false;
    if (e.k === 'call' && e.fn === 'tofloat' && e.args.length === 1 && !e.distinct) { e = e.args[0]!; float = true; }
    const alias = e.k === 'var' ? names.indexOf(e.name) : -1;
    if (alias >= 0 && cols[alias]!.kind === 'agg' && !float) order.push({ s: cols[alias]!.v, desc: o.desc, float, agg: true });
    else if (alias >= 0) { if (cols[alias]!.kind !== 'prop') return bail(); order.push({ s: c.prop(proj.items[alias]!.e, float ? 'float' : 'order'), desc: o.desc, float }); }
    else if (proj.distinct || aggregated || (e.k === 'prop' && e.of.k === 'var' && names.includes(e.of.name))) return bail();
    else order.push({ s: c.prop(e, float ? 'float' : 'order'), desc: o.desc, float });
  }
  const skip = await count(proj.skip, env), limit = await count(proj.limit, env);
  // the clause-by-clause run still evaluates (and may fail on) rows it then cuts; a compiled read must see one to know
  if (limit === 0) return bail();
  const props = [...c.props.values()];
  const profiles = await simple(props, env);

  let op: Op;
  let flagged = false;
  const keys: OrderKey[] = [];
  if (profiles) {
    // One value at most per node, of plain kinds: each property is its triple pattern's variable,
    // required where a top-level comparison or IS NOT NULL of its clause needs it, else OPTIONAL —
    // SPARQL's own shape. Each OPTIONAL MATCH is a left join whose right side holds its pattern,
    // its WHERE, and the reads of the nodes it introduces.
    op = { type: 'unit' };
    for (let i = 0; i < matches.length; i++) {
      const mine = props.filter((p) => p.scope === i);
      const m = probes[i]!;
      // The reads of a constant node (`{@id: $x}`) are the same on every row: one scan of the
      // node's facts, each value bound as a constant (a missing one left unbound).
      const fixed = i === 0 ? mine.filter((p) => !reqs[i]!.has(p.s) && probe.consts.has(p.av)) : [];
      // A read no WHERE requires is still a required pattern when every node the MATCH can bind
      // there has exactly one literal value of it (coverage.ts): the left join could never leave it null.
      const reqVars = new Set(reqs[i]!);
      const bind = binders(m.op);
      for (const p of mine) {
        if (reqVars.has(p.s) || fixed.includes(p) || !profiles.get(p)!.literalsOnly) continue;
        for (const b of bind.get(p.av) ?? []) if (await covers(env.g.ctx.view, b, p.iri, env.g.ctx.signal)) { reqVars.add(p.s); break; }
      }
      const extra = mine.filter((p) => reqVars.has(p.s)).map((p) => ({ s: variable(p.av), p: namedNode(p.iri), o: variable(p.s) }));
      let sop = unique(withPatterns(m.op, extra, m.consts), m.segs);
      // conjuncts over the MATCH and its required properties filter before the OPTIONAL reads, as SPARQL's group filters do
      const early = conds[i]!.filter((x) => [...x.uses].every((v) => reqVars.has(v)));
      const late = conds[i]!.filter((x) => !early.includes(x));
      const lits = [...nulls[i]!].map((s) => call('isliteral', vx(s)));
      if (early.length || lits.length) sop = { type: 'filter', input: sop, expr: and([...lits, ...early.map((x) => x.t)]) };
      sop = fold(sop);
      // OPTIONAL reads the remaining conjuncts need, those conjuncts, then the reads only later clauses need
      const lateUses = new Set(late.flatMap((x) => [...x.uses]));
      const read = (left: Op, p: Prop, s: TermOrVar = variable(p.av)): Op => ({ type: 'leftjoin', left, right: { type: 'bgp', patterns: [{ s, p: namedNode(p.iri), o: variable(p.s) }] }, expr: call('isliteral', vx(p.s)) });
      for (const p of fixed) {
        const lits = ((await env.g.factsOf(probe.consts.get(p.av)!)).get(p.iri) ?? []).filter((t) => t.termType === 'Literal');
        if (lits.length > 1) return bail();
        if (lits.length) sop = { type: 'extend', variable: p.s, expr: tx(lits[0]!), input: sop };
      }
      for (const p of mine) if (!reqVars.has(p.s) && !fixed.includes(p) && lateUses.has(p.s)) sop = read(sop, p);
      if (late.length) sop = { type: 'filter', input: sop, expr: and(late.map((x) => x.t)) };
      for (const p of mine) if (!reqVars.has(p.s) && !fixed.includes(p) && !lateUses.has(p.s)) sop = read(sop, p);
      op = i === 0 ? sop : { type: 'leftjoin', left: op, right: withConsts(sop, probe.consts) };
    }
    if (aggregated) {
      const keys = cols.filter((x) => x.kind === 'node').map((x) => x.v);
      op = { type: 'group', input: op, keys: [...new Set(keys)].map((v) => ({ expr: vx(v), variable: v })), aggregates: aggs };
      // MIN / MAX of nothing but nulls: the ±INF stand-in becomes unbound (an unbound variable in IF is an error, so no binding)
      for (const x of cols) if (x.inf) op = { type: 'extend', input: op, variable: x.v, expr: call('if', dtIs(x.inf, 'double'), vx('__none'), vx(x.inf)) };
    }
    for (const o of order) {
      // aggregates are integers (or null): unbound last, then the number
      if (o.agg) { keys.push({ expr: call('!', call('bound', vx(o.s))), desc: o.desc }, { expr: vx(o.s), desc: o.desc }); continue; }
      const kinds = [...profiles.get(props.find((p) => p.s === o.s)!)!.kinds];
      const nullsLast: OrderKey = { expr: call('!', call('bound', vx(o.s))), desc: o.desc };
      if (o.float) keys.push(nullsLast, { expr: call(XSD + 'double', call('str', vx(o.s))), desc: o.desc });
      else if (kinds.every((k) => k === 'string')) keys.push(nullsLast, { expr: call('str', vx(o.s)), desc: o.desc });
      else if (kinds.every((k) => k === 'int' || k === 'double')) keys.push(nullsLast, { expr: vx(o.s), desc: o.desc });
      else keys.push(...orderKeys(o.s, o.desc));
    }
  } else {
    // Otherwise OPTIONAL values folded to one row per MATCH solution, rows that are not exact flagged.
    if (matches.length > 1 || aggregated || order.some((o) => o.float)) return bail();
    const { patterns, where } = matches[0]!;
    const cond = conds[0]!.length ? and(conds[0]!.map((x) => x.t)) : undefined;
    const m = await matchOp(env.g, env.names, patterns, ev, where, new Set());
    const matchVars = [...new Set([...m.nodeVar.values(), ...m.segs.flatMap((s) => [s.a, s.b, s.pv!])])];
    op = m.pushed ? { type: 'distinct', input: { type: 'project', variables: matchVars, input: m.op } } : m.op;
    op = unique(op, m.segs);
    if (props.length) {
      for (const p of props) {
        op = { type: 'leftjoin', left: op, right: { type: 'bgp', patterns: [{ s: variable(p.av), p: namedNode(p.iri), o: variable(p.v) }] }, expr: call('isliteral', vx(p.v)) };
      }
      op = {
        type: 'group', input: op, keys: matchVars.map((v) => ({ expr: vx(v), variable: v })),
        aggregates: [{ variable: '__c', agg: { name: 'count', distinct: false } }, ...props.map((p) => ({ variable: p.s, agg: { name: 'sample' as const, distinct: false, expr: vx(p.v) } }))],
      };
      const bad = [call('>', vx('__c'), int(1)), ...props.filter((p) => p.checked || p.ordered).map((p) => call('!', plain(p.s, p)))];
      op = { type: 'extend', input: op, variable: '__bad', expr: or(bad) };
      flagged = true;
    }
    if (cond) op = { type: 'filter', input: op, expr: flagged ? call('||', vx('__bad'), cond) : cond };
    for (const o of order) keys.push(...orderKeys(o.s, o.desc));
  }
  if (flagged || keys.length) op = { type: 'orderby', input: op, keys: [...(flagged ? [{ expr: vx('__bad'), desc: true }] : []), ...keys] };
  const out = [...new Set([...cols.map((x) => x.v), ...(flagged ? ['__bad'] : [])])];
  op = { type: 'project', input: op, variables: out };
  if (proj.distinct) op = { type: 'distinct', input: op };
  if (limit !== undefined) op = { type: 'slice', input: op, offset: 0, limit: (skip ?? 0) + limit };
  if (profiles) op = await tidy(op, new Map([...profiles].map(([p, prof]) => [p.s, prof])), env.g.ctx.view, env.g.ctx.signal);

  return { op, out, cols, names, flagged, distinct: proj.distinct, skip };
}

/** Run a compiled read; undefined when its result holds a row only the clause-by-clause run gets right. */
async function execute(plan: Plan, env: Env): Promise<{ columns: string[]; rows: Value[][] } | undefined> {
  const { op, out, cols, names, flagged, skip } = plan;
  const sols = await env.g.select(op, out);
  if (flagged && sols.some((s) => s.__bad?.value === 'true')) return undefined;
  let rows = sols.map((s) => cols.map((x): Value => {
    const t = s[x.v];
    if (t === undefined) return null;
    // an integer sum beyond 64 bits stays the BigInt Cypher's sum gives, not a string
    return x.kind === 'node' ? { t: 'node', id: t } : x.kind === 'agg' && t.termType === 'Literal' && t.datatype.value === XSD + 'integer' ? BigInt(t.value) : fromTerm(t);
  }));
  if (plan.distinct) {
    // Cypher's DISTINCT compares values (1 = 1.0); the engine's, terms: any value duplicate left means the clause-by-clause run
    const seen = new Set<string>();
    for (const r of rows) { const k = r.map(keyOf).join('\u0001'); if (seen.has(k)) return undefined; seen.add(k); }
  }
  if (skip) rows = rows.slice(skip);
  return { columns: names, rows };
}
