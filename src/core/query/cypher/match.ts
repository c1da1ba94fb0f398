/**
 * MATCH patterns (cypher.md §2.2, §5) translated into the shared algebra: node labels become
 * `rdf:type` triples, constant property maps literal triples, relationships triples with an IRI
 * object, variable-length relationships property paths. The engine finds the solutions;
 * relationship variables then expand per reifier (§2.1), relationship and path variables of a
 * variable-length part enumerate trails between the endpoints the engine found, and
 * relationship uniqueness is checked on the rows.
 */
import type { Expr as AExpr, Op, PathExpr, TriplePattern } from '../algebra/algebra.js';
import { literal, namedNode, variable, type Term } from '../../rdf/terms.js';
import { XSD } from '../../rdf/vocab.js';
import type { Expr, NodePat, PathPat, RelPat } from './ast.js';
import { cypherError } from './errors.js';
import { pushdownFilters } from './pushdown.js';
import { F_NODE, RDF_TYPE, REIFIES, type Graph } from './graph.js';
import type { Names } from './names.js';
import { equals, fromTerm, keyOf, type NodeV, type PathV, type RelV, type Value } from './values.js';
import { F } from '../../rdf/vocab.js';

export type Row = Map<string, Value>;
/** Evaluates a property-map value for a row (constant maps are evaluated once, without a row). */
export type Evaluate = (e: Expr, row: Row) => Promise<Value>;

const v = (name: string) => variable(name);
const call = (fn: string, ...args: AExpr[]): AExpr => ({ type: 'call', fn, args });
const vx = (name: string): AExpr => ({ type: 'var', name });

/** A stored literal for a scalar Cypher value (the §4 "Stored as" table); undefined for others. */
export function toTerm(x: Value): Term | undefined {
  if (typeof x === 'string') return literal(x);
  if (typeof x === 'bigint') return literal(x.toString(), XSD + 'integer');
  if (typeof x === 'boolean') return literal(String(x), XSD + 'boolean');
  if (typeof x === 'number') return literal(Number.isFinite(x) ? x.toExponential().replace('e+', 'E').replace('e', 'E') : Number.isNaN(x) ? 'NaN' : x > 0 ? 'INF' : '-INF', XSD + 'double');
  if (x !== null && typeof x === 'object' && !Array.isArray(x) && x.t === 'temporal') return literal(x.lex, XSD + x.dt);
  return undefined;
}

/** One relationship part: its pattern, end variables, and the variables binding its type (pv) and direction (dv). */
export interface Seg { rel: RelPat; a: string; b: string; pv?: string; dv?: string; idx: number; pfx: string }

/** A MATCH translated: its operator and how Cypher names map to its variables. */
export interface MatchOp {
  op: Op;
  /** Cypher node variable → algebra variable. */
  nodeVar: Map<string, string>;
  segs: Seg[];
  /** Anonymous nodes whose non-constant property maps are checked on the solutions. */
  post: { node: string; key: string; e: Expr }[];
  /** Whether WHERE conjuncts were joined in as pre-filters (their property variables need projecting away). */
  pushed: boolean;
  /** Node variables bound to a constant `@id` (after the join). */
  consts: ReadonlyMap<string, Term>;
}

/**
 * Translate MATCH patterns into one operator. `bound`: Cypher variables the input rows bind (their
 * node variables keep a VALUES join); `outer`: node variables of an enclosing query already named
 * in the algebra (an EXISTS pattern compiled into the same query, compile.ts), with a prefix
 * that keeps its own variables apart. `extra`: more triple patterns for the same BGP.
 */
export async function matchOp(g: Graph, names: Names, patterns: PathPat[], ev: Evaluate, where: Expr | undefined, bound: ReadonlySet<string>, inner?: { outer: Map<string, string>; prefix: string }, extra: TriplePattern[] = []): Promise<MatchOp> {
  const outer = inner?.outer;
  const ops: Op[] = extra.length ? [{ type: 'bgp', patterns: extra }] : [];
  const filters: AExpr[] = [];
  const nodeVar = new Map<string, string>(outer);
  const segs: Seg[] = [];
  const post: { node: string; key: string; e: Expr }[] = [];
  let anon = 0;
  const prefix = inner?.prefix ?? '';
  const fresh = (p: string) => `${prefix}${p}${anon++}`;
  const constRow: Row = new Map();
  /** Node variables with a constant `@id`, and variables bound to a constant after the join. */
  const consts = new Map<string, Term>();
  const binds: { variable: string; term: Term }[] = [];

  const nodeOf = async (n: NodePat): Promise<string> => {
    let av: string;
    if (n.v !== undefined && nodeVar.has(n.v)) av = nodeVar.get(n.v)!;
    else { av = n.v !== undefined ? `${prefix}n_${nodeVar.size}` : fresh('a'); if (n.v !== undefined) nodeVar.set(n.v, av); }
    for (const l of n.labels) ops.push({ type: 'bgp', patterns: [{ s: v(av), p: namedNode(RDF_TYPE), o: namedNode(names.iri(l)) }] });
    for (const [k, e] of n.props) {
      if (k === '@id') {
        const id = await ev(e, constRow).catch(() => undefined);
        if (typeof id !== 'string') throw cypherError('TypeError', '`@id` in a pattern must be a string');
        // A constant identity goes into the triple patterns themselves (substituted below), so the
        // indexes find the node; incoming bound (or outer) variables keep a VALUES join.
        if (n.v !== undefined && (bound.has(n.v) || outer?.has(n.v))) ops.push({ type: 'values', variables: [av], rows: [[namedNode(names.id(id))]] });
        else consts.set(av, namedNode(names.id(id)));
        continue;
      }
      const val = await ev(e, constRow).catch(() => undefined);
      if (Array.isArray(val)) throw cypherError('TypeError', `a list value in a pattern map (${k}) is not allowed; use WHERE … IN`);
      const term = val === undefined ? undefined : toTerm(val);
      if (term) ops.push({ type: 'bgp', patterns: [{ s: v(av), p: namedNode(names.iri(k)), o: term }] });
      else if (val === null) ops.push({ type: 'values', variables: [], rows: [] });
      else post.push({ node: av, key: names.iri(k), e });
    }
    return av;
  };

  for (const pat of patterns) {
    let prev = await nodeOf(pat.nodes[0]!);
    for (let i = 0; i < pat.rels.length; i++) {
      const next = await nodeOf(pat.nodes[i + 1]!);
      const seg: Seg = { rel: pat.rels[i]!, a: prev, b: next, idx: segs.length, pfx: prefix };
      segs.push(seg);
      ops.push(hopOp(seg, names, filters, binds));
      prev = next;
    }
    // a lone node with neither labels nor properties: any subject that is not a reifier
    const n0 = pat.nodes[0]!;
    if (pat.rels.length === 0 && !n0.labels.length && !n0.props.length && !(n0.v !== undefined && (bound.has(n0.v) || outer?.has(n0.v)))) {
      const av = nodeVar.get(n0.v ?? '') ?? fresh('a');
      const pv = fresh('p'), ov = fresh('o');
      ops.push({ type: 'distinct', input: { type: 'project', variables: [av], input: { type: 'bgp', patterns: [{ s: v(av), p: v(pv), o: v(ov) }] } } });
    }
  }
  // nodes must not be reifiers (§2.1 rule 3), nor the hidden f:Node marker matters for labels only
  if (await g.hasReifiers()) {
    for (const [cv, av] of nodeVar) if (!outer?.has(cv)) filters.push({ type: 'exists', not: true, op: { type: 'bgp', patterns: [{ s: v(av), p: namedNode(REIFIES.s), o: v(fresh('x')) }] } });
  }

  // numeric comparisons of the WHERE prune in the engine (pre-filters; Cypher still checks every row)
  const pushed = outer ? [] : await pushdownFilters(where, nodeVar, names, ev);
  for (const p of pushed) { ops.push({ type: 'bgp', patterns: p.patterns }); filters.push(p.expr); }

  // Every plain triple pattern in one BGP, as SPARQL's would be: the planner orders them together
  // (index nested loops from the most selective) instead of joining separately evaluated patterns.
  const triples = ops.flatMap((o) => (o.type === 'bgp' ? o.patterns : []));
  const merged: Op[] = [...(triples.length ? [{ type: 'bgp' as const, patterns: triples }] : []), ...ops.filter((o) => o.type !== 'bgp')];
  let op: Op = merged.length ? { type: 'join', inputs: merged.map((o) => withConstants(o, consts)) } : { type: 'unit' };
  for (const [variable, term] of consts) binds.push({ variable, term });
  for (const b of binds) op = { type: 'extend', variable: b.variable, expr: { type: 'term', term: b.term }, input: op };
  for (const f of filters) op = { type: 'filter', expr: f, input: op };
  return { op, nodeVar, segs, post, pushed: pushed.length > 0, consts };
}

/**
 * Translate and run one MATCH clause for the given rows: for each input row, its extensions. `where`
 * (the clause's WHERE) lends its numeric comparisons as pre-filters; the caller still evaluates it.
 */
export async function matchRows(g: Graph, names: Names, patterns: PathPat[], rows: Row[], ev: Evaluate, where?: Expr): Promise<Row[][]> {
  const bound = new Set(rows.length ? [...rows[0]!.keys()] : []);
  const m = await matchOp(g, names, patterns, ev, where, bound);
  const { nodeVar, segs, post } = m;
  let op = m.op;
  // incoming bound node variables join through VALUES keyed by the row number
  const shared = [...nodeVar.keys()].filter((k) => bound.has(k));
  const out: Row[][] = rows.map(() => []);
  // Anonymous nodes with a non-constant property map are checked on the solutions, so they are projected too.
  const vars = [...new Set([...nodeVar.values(), ...segs.flatMap((s) => [s.a, s.b, ...(s.pv ? [s.pv] : []), ...(s.dv ? [s.dv] : [])]), ...post.map((p) => p.node)])];
  let targets: number[][];
  if (shared.length) {
    const vrows: (Term | undefined)[][] = [];
    rows.forEach((r, i) => {
      const terms = shared.map((k) => r.get(k));
      if (terms.every((t) => t !== null && typeof t === 'object' && !Array.isArray(t) && t.t === 'node')) {
        vrows.push([literal(String(i), XSD + 'integer'), ...terms.map((t) => (t as NodeV).id)]);
      }
    });
    if (!vrows.length) return out;
    op = { type: 'join', inputs: [{ type: 'values', variables: ['__row', ...shared.map((k) => nodeVar.get(k)!)], rows: vrows }, op] };
    vars.push('__row');
    targets = [];
  } else targets = [rows.map((_, i) => i)];
  // the pushed property variables are projected away again: the MATCH's own solutions, filtered
  if (m.pushed) op = { type: 'distinct', input: { type: 'project', variables: vars, input: op } };
  const sols = await g.select(op, vars);
  for (const s of sols) {
    const rowIdx = shared.length ? [Number(s.__row!.value)] : targets[0]!;
    const base: Row = new Map();
    for (const [k, av] of nodeVar) { const t = s[av]; base.set(k, t ? { t: 'node', id: t } : null); }
    const alts = await expandSegments(g, names, segs, s, patterns, ev, base);
    for (const ri of rowIdx) {
      for (const ext of alts) {
        if (!post.length) { out[ri]!.push(ext); continue; }
        const full = new Map([...rows[ri]!, ...ext]);
        let ok = true;
        for (const p of post) {
          const want = await ev(p.e, full);
          const t = s[p.node]!;
          const have = (await g.factsOf(t)).get(p.key) ?? [];
          if (!have.some((h) => equals(fromTerm(h), want) === true)) { ok = false; break; }
        }
        if (ok) out[ri]!.push(ext);
      }
    }
  }
  return out;
}

function typesPath(rel: RelPat, names: Names): PathExpr {
  if (!rel.types.length) return { type: 'nps', iris: [namedNode(RDF_TYPE), namedNode(REIFIES.s), namedNode(REIFIES.p), namedNode(REIFIES.o)], inverse: [] };
  const links: PathExpr[] = rel.types.map((t) => ({ type: 'link', iri: namedNode(names.iri(t)) }));
  return links.length === 1 ? links[0]! : { type: 'alt', items: links };
}

/** Put constant node identities into the triple patterns (and paths) of an operator. */
function withConstants(op: Op, consts: Map<string, Term>): Op {
  if (!consts.size) return op;
  const sub = <T extends { termType: string; value: string }>(t: T): T => (t.termType === 'Variable' && consts.has(t.value) ? consts.get(t.value)! as unknown as T : t);
  switch (op.type) {
    case 'bgp': return { ...op, patterns: op.patterns.map((p) => ({ ...p, s: sub(p.s), o: sub(p.o) } as typeof p)) };
    case 'path': return { ...op, s: sub(op.s), o: sub(op.o) } as Op;
    case 'join': case 'union': return { ...op, inputs: op.inputs.map((i) => withConstants(i, consts)) } as Op;
    case 'extend': case 'distinct': case 'project': case 'filter': return { ...op, input: withConstants(op.input, consts) } as Op;
    default: return op;
  }
}

/** The algebra of one relationship part between node variables a and b (`binds`: constants bound after the join). */
function hopOp(seg: Seg, names: Names, filters: AExpr[], binds: { variable: string; term: Term }[]): Op {
  const { rel, a, b } = seg;
  if (rel.range) {
    if (rel.range.max !== undefined && rel.range.max > 32) throw cypherError('Unsupported', 'a variable-length upper bound above 32; leave it unbounded');
    let link = typesPath(rel, names);
    if (rel.dir === 'in') link = { type: 'inv', path: link };
    else if (rel.dir === 'both') link = { type: 'alt', items: [link, { type: 'inv', path: link }] };
    const { min, max } = rel.range;
    let path: PathExpr;
    if (max === undefined) {
      path = min === 0 ? { type: 'zeroOrMore', path: link } : min === 1 ? { type: 'oneOrMore', path: link }
        : { type: 'seq', items: [...Array<PathExpr>(min - 1).fill(link), { type: 'oneOrMore', path: link }] };
    } else {
      if (max < min) return { type: 'values', variables: [], rows: [] };
      const items: PathExpr[] = [];
      for (let k = Math.max(1, min); k <= max; k++) items.push(k === 1 ? link : { type: 'seq', items: Array<PathExpr>(k).fill(link) });
      const alt: PathExpr = items.length === 1 ? items[0]! : { type: 'alt', items };
      path = min === 0 ? (items.length ? { type: 'zeroOrOne', path: alt } : { type: 'zeroOrOne', path: link }) : alt;
      if (min === 0 && max === 0) return { type: 'extend', input: { type: 'unit' }, variable: b, expr: vx(a) };
    }
    filters.push(call('!', call('isliteral', vx(b))));
    if (min === 0) {
      // a zero-length path binds a node: a subject, or the IRI object of a relationship fact (§2) — not a class, predicate or literal
      const x = `${a}_zx`, y = `${a}_zy`;
      filters.push(call('||', { type: 'exists', not: false, op: { type: 'bgp', patterns: [{ s: v(a), p: v(x), o: v(y) }] } },
        { type: 'exists', not: false, op: { type: 'filter', expr: call('!=', vx(y), { type: 'term', term: namedNode(RDF_TYPE) }), input: { type: 'bgp', patterns: [{ s: v(x), p: v(y), o: v(a) }] } } }));
    }
    return { type: 'distinct', input: { type: 'project', variables: [a, b], input: { type: 'path', s: v(a), path, o: v(b) } } };
  }
  const pv = `${seg.pfx}p_${seg.idx}`;
  seg.pv = pv;
  if (!rel.types.length) filters.push(call('&&', call('!=', vx(pv), { type: 'term', term: namedNode(RDF_TYPE) }), call('!', call('strstarts', call('str', vx(pv)), { type: 'term', term: literal(F) }))));
  filters.push(call('!', call('isliteral', vx(rel.dir === 'in' ? a : b))));
  // A typed part puts each type's IRI into its triple pattern (so the indexes find it) and binds pv to it.
  const hop = (s: string, o: string): Op => {
    if (!rel.types.length) return { type: 'bgp', patterns: [{ s: v(s), p: v(pv), o: v(o) }] };
    if (rel.types.length === 1 && rel.dir !== 'both') {
      // One type: a plain triple pattern the planner can order and merge; pv is bound after the join.
      const iri = namedNode(names.iri(rel.types[0]!));
      binds.push({ variable: pv, term: iri });
      return { type: 'bgp', patterns: [{ s: v(s), p: iri, o: v(o) }] };
    }
    const each: Op[] = rel.types.map((t) => {
      const iri = namedNode(names.iri(t));
      return { type: 'extend', variable: pv, expr: { type: 'term', term: iri }, input: { type: 'bgp', patterns: [{ s: v(s), p: iri, o: v(o) }] } };
    });
    return each.length === 1 ? each[0]! : { type: 'union', inputs: each };
  };
  if (rel.dir === 'both') {
    const dv = `${seg.pfx}d_${seg.idx}`;
    seg.dv = dv;
    filters.push(call('!', call('isliteral', vx(a))));
    return { type: 'union', inputs: [
      { type: 'extend', variable: dv, expr: { type: 'term', term: literal('out') }, input: hop(a, b) },
      { type: 'extend', variable: dv, expr: { type: 'term', term: literal('in') }, input: hop(b, a) },
    ] };
  }
  return rel.dir === 'in' ? hop(b, a) : hop(a, b);
}

/** Whether every walk the property path finds contains a trail with the same ends and a length within the bounds. */
const walkIsTrail = (rel: RelPat): boolean => rel.dir !== 'both' && rel.range!.min <= 1;

type Ext = { row: Row; used: Set<string>; path: Map<number, { nodes: NodeV[]; rels: RelV[] }> };

/** Per engine solution: the rows after relationship, reifier and trail expansion. */
async function expandSegments(g: Graph, names: Names, segs: Seg[], s: Record<string, Term>, patterns: PathPat[], ev: Evaluate, base: Row): Promise<Row[]> {
  // Fixed hops with neither relationship variables, property maps nor path variables: the row is the
  // solution's nodes, provided no two hops bind the same base fact (relationship uniqueness).
  if (segs.every((sg) => !sg.rel.range && sg.rel.v === undefined && !sg.rel.props.length) && !patterns.some((pp) => pp.pathVar !== undefined)) {
    if (segs.length > 1) {
      const keys = new Set<string>();
      for (const seg of segs) {
        const a = s[seg.a]!, b = s[seg.b]!;
        const out = !seg.dv || s[seg.dv]!.value === 'out' ? seg.rel.dir !== 'in' : false;
        const [st, en] = seg.rel.dir === 'in' ? [b, a] : seg.dv ? (out ? [a, b] : [b, a]) : [a, b];
        const k = `${st.termType[0]}${st.value}\u0001${s[seg.pv!]!.value}\u0001${en.termType[0]}${en.value}`;
        if (keys.has(k)) return [];
        keys.add(k);
      }
    }
    return [base];
  }
  let exts: Ext[] = [{ row: base, used: new Set(), path: new Map() }];
  for (const seg of segs) {
    const a = s[seg.a]!, b = s[seg.b]!;
    const next: Ext[] = [];
    if (!seg.rel.range) {
      const p = s[seg.pv!]!.value;
      const out = !seg.dv || s[seg.dv]!.value === 'out' ? seg.rel.dir !== 'in' : false;
      const [st, en] = seg.rel.dir === 'in' ? [b, a] : seg.dv ? (out ? [a, b] : [b, a]) : [a, b];
      const rels = await relsOf(g, names, st, p, en, seg.rel, ev, base);
      for (const e of exts) for (const r of rels) {
        const k = keyOf(r);
        if (e.used.has(k)) continue;
        next.push(withRel(e, seg, r, k));
      }
    } else if (seg.rel.v === undefined && !patterns.some((pp) => pp.pathVar !== undefined && pp.rels.includes(seg.rel))) {
      // reachability: the property path found walks; where a walk may not be a trail (undirected,
      // or a lower bound above 1), keep the pair only if a trail joins it
      if (walkIsTrail(seg.rel) || (await trailsBetween(g, names, a, b, seg.rel, true)).length) next.push(...exts);
    } else {
      const trails = await trailsBetween(g, names, a, b, seg.rel);
      for (const e of exts) for (const t of trails) {
        const keys = t.map(keyOf);
        if (keys.some((k) => e.used.has(k))) continue;
        const row = new Map(e.row);
        if (seg.rel.v !== undefined) row.set(seg.rel.v, t);
        const used = new Set([...e.used, ...keys]);
        const path = new Map(e.path);
        path.set(seg.idx, { nodes: trailNodes(a, t), rels: t });
        next.push({ row, used, path });
      }
    }
    exts = next;
  }
  // path variables
  const out: Row[] = [];
  for (const e of exts) {
    let segIdx = 0;
    for (const pp of patterns) {
      const first = segIdx;
      segIdx += pp.rels.length;
      if (pp.pathVar === undefined) continue;
      const nodes: NodeV[] = [e.row.get(pp.nodes[0]!.v ?? '') as NodeV ?? { t: 'node', id: s[segs[first]?.a ?? ''] }];
      const rels: RelV[] = [];
      if (!pp.rels.length) nodes[0] = nodeFromSol(s, segs, pp, base);
      for (let i = first; i < segIdx; i++) {
        const seg = segs[i]!;
        const part = e.path.get(i);
        if (part) { nodes.push(...part.nodes.slice(1)); rels.push(...part.rels); }
        else { rels.push(e.row.get(`\u0000rel${i}`) as RelV); nodes.push({ t: 'node', id: s[seg.b]! }); }
      }
      if (nodes[0] === undefined || (nodes[0] as NodeV).id === undefined) nodes[0] = { t: 'node', id: s[segs[first]!.a]! };
      const pv: PathV = { t: 'path', nodes, rels };
      e.row.set(pp.pathVar, pv);
    }
    for (const k of [...e.row.keys()]) if (k.startsWith('\u0000')) e.row.delete(k);
    out.push(e.row);
  }
  return out;
}

function nodeFromSol(_s: Record<string, Term>, _segs: Seg[], pp: PathPat, base: Row): NodeV {
  const n = base.get(pp.nodes[0]!.v ?? '');
  if (n && typeof n === 'object' && !Array.isArray(n) && n.t === 'node') return n;
  throw cypherError('Unsupported', 'a path variable over a single anonymous node');
}

function withRel(e: Ext, seg: Seg, r: RelV, k: string): Ext {
  const row = new Map(e.row);
  if (seg.rel.v !== undefined) row.set(seg.rel.v, r);
  row.set(`\u0000rel${seg.idx}`, r);
  return { row, used: new Set([...e.used, k]), path: e.path };
}

function trailNodes(a: Term, t: RelV[]): NodeV[] {
  const nodes: NodeV[] = [{ t: 'node', id: a }];
  let cur = a;
  for (const r of t) {
    cur = r.start.termType === cur.termType && r.start.value === cur.value ? r.end : r.start;
    nodes.push({ t: 'node', id: cur });
  }
  return nodes;
}

/** The relationships of base fact (st, p, en): one per reifier, or one without (§2.2). */
async function relsOf(g: Graph, names: Names, st: Term, p: string, en: Term, rel: RelPat, ev: Evaluate, row: Row): Promise<RelV[]> {
  const type = names.name(p);
  const needProps = rel.props.length > 0;
  if (rel.v === undefined && !needProps) return [{ t: 'rel', start: st, type, end: en, reifier: null }];
  const reifiers = await g.reifiers(st, p, en);
  if (!needProps) return reifiers.length ? reifiers.map((r) => ({ t: 'rel', start: st, type, end: en, reifier: r })) : [{ t: 'rel', start: st, type, end: en, reifier: null }];
  const out: RelV[] = [];
  for (const r of reifiers) {
    const facts = await g.factsOf(r);
    let ok = true;
    for (const [k, e] of rel.props) {
      const want = await ev(e, row);
      if (!(facts.get(names.iri(k)) ?? []).some((t) => equals(fromTerm(t), want) === true)) { ok = false; break; }
    }
    if (ok) out.push({ t: 'rel', start: st, type, end: en, reifier: r });
  }
  return out;
}

/** Every trail from a to b whose length is within the part's bounds (relationship variables and paths, §2.2). */
async function trailsBetween(g: Graph, names: Names, a: Term, b: Term, rel: RelPat, firstOnly = false): Promise<RelV[][]> {
  const { min, max } = rel.range!;
  const types = rel.types.length ? new Set(rel.types.map((t) => names.iri(t))) : null;
  const out: RelV[][] = [];
  const same = (x: Term, y: Term) => x.termType === y.termType && x.value === y.value;
  const edges = async (n: Term): Promise<RelV[]> => {
    const res: RelV[] = [];
    if (rel.dir !== 'in') {
      for (const [p, os] of await g.factsOf(n)) {
        if (p === RDF_TYPE || p.startsWith(F) || (types && !types.has(p))) continue;
        for (const o of os) if (o.termType !== 'Literal') res.push({ t: 'rel', start: n, type: p, end: o, reifier: null });
      }
    }
    if (rel.dir !== 'out') {
      const rows = await g.select({ type: 'bgp', patterns: [{ s: v('s'), p: v('p'), o: n }] }, ['s', 'p']);
      for (const r of rows) {
        const p = r.p!.value;
        if (p === RDF_TYPE || p.startsWith(F) || (types && !types.has(p))) continue;
        res.push({ t: 'rel', start: r.s!, type: p, end: n, reifier: null });
      }
    }
    return res;
  };
  const walk = async (cur: Term, trail: RelV[], used: Set<string>): Promise<void> => {
    if (firstOnly && out.length) return;
    if (trail.length >= min && same(cur, b)) out.push(trail.map((r) => ({ ...r, type: names.name(r.type) })));
    if (max !== undefined && trail.length >= max) return;
    const es = await edges(cur);
    g.expand(es.length);
    for (const e of es) {
      const k = keyOf(e);
      if (used.has(k)) continue;
      const nxt = same(e.start, cur) ? e.end : e.start;
      used.add(k);
      await walk(nxt, [...trail, e], used);
      used.delete(k);
    }
  };
  await walk(a, [], new Set());
  return out;
}

export { F_NODE };
