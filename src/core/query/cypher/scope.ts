/**
 * Static variable scoping of a statement (cypher.md §9): a variable used before any clause binds
 * it is a 400 SemanticError even when no row would ever evaluate it.
 */
import type { Clause, Expr, PathPat, Projection, SetItem } from './ast.js';
import { cypherError } from './errors.js';

function refs(e: Expr, out: string[]): void {
  switch (e.k) {
    case 'var': out.push(e.name); break;
    case 'prop': refs(e.of, out); break;
    case 'index': refs(e.of, out); refs(e.idx, out); break;
    case 'slice': refs(e.of, out); if (e.from) refs(e.from, out); if (e.to) refs(e.to, out); break;
    case 'call': case 'op': e.args.forEach((a) => refs(a, out)); break;
    case 'list': e.items.forEach((a) => refs(a, out)); break;
    case 'map': e.entries.forEach(([, a]) => refs(a, out)); break;
    case 'proj': out.push(e.of); e.items.forEach((i) => { if (i.k === 'entry') refs(i.e, out); }); break;
    case 'case': if (e.subject) refs(e.subject, out); e.whens.forEach(([a, b]) => { refs(a, out); refs(b, out); }); if (e.else) refs(e.else, out); break;
    case 'exists': break; // its pattern may introduce variables of its own
    default: break;
  }
}

function check(e: Expr | undefined, scope: Set<string>): void {
  if (!e) return;
  const out: string[] = [];
  refs(e, out);
  for (const v of out) if (!scope.has(v)) throw cypherError('SemanticError', `unknown variable ${v}`);
}

function patternVars(ps: PathPat[]): string[] {
  return ps.flatMap((p) => [...(p.pathVar ? [p.pathVar] : []), ...p.nodes.flatMap((n) => (n.v !== undefined ? [n.v] : [])), ...p.rels.flatMap((r) => (r.v !== undefined ? [r.v] : []))]);
}

function projection(p: Projection, scope: Set<string>): Set<string> {
  p.items.forEach((i) => check(i.e, scope));
  const next = new Set<string>([...(p.star ? scope : []), ...p.items.map((i) => i.alias ?? (i.e.k === 'var' ? i.e.name : i.text))]);
  const orderScope = new Set([...scope, ...next]);
  p.order.forEach((o) => check(o.e, orderScope));
  check(p.where, next);
  return next;
}

function setItem(i: SetItem, scope: Set<string>): void {
  if (!scope.has(i.v)) throw cypherError('SemanticError', `unknown variable ${i.v}`);
  if (i.k !== 'labels') check(i.e, scope);
}

/** Throw on the first variable used out of scope. */
export function checkScope(clauses: Clause[]): void {
  let scope = new Set<string>();
  for (const c of clauses) {
    switch (c.k) {
      case 'match': {
        c.patterns.forEach((p) => [...p.nodes, ...p.rels].forEach((x) => x.props.forEach(([, e]) => check(e, new Set([...scope, ...patternVars(c.patterns)])))));
        scope = new Set([...scope, ...patternVars(c.patterns)]);
        check(c.where, scope);
        break;
      }
      case 'unwind': check(c.e, scope); scope = new Set([...scope, c.as]); break;
      case 'with': scope = projection(c.proj, scope); break;
      case 'return': projection(c.proj, scope); break;
      case 'call': scope = new Set([...scope, ...c.yields]); break;
      case 'create': case 'merge': {
        const ps = c.k === 'create' ? c.patterns : [c.pattern];
        for (const p of ps) {
          for (const n of p.nodes) {
            if (n.v !== undefined && scope.has(n.v) && (n.labels.length || n.props.length)) throw cypherError('SemanticError', `variable ${n.v} is already bound: ${c.k.toUpperCase()} cannot add labels or properties to it (use SET)`);
          }
          for (const r of p.rels) if (r.v !== undefined && scope.has(r.v)) throw cypherError('SemanticError', `variable ${r.v} is already bound: ${c.k.toUpperCase()} makes a new relationship`);
        }
        const inner = new Set([...scope, ...patternVars(ps)]);
        ps.forEach((p) => [...p.nodes, ...p.rels].forEach((x) => x.props.forEach(([, e]) => check(e, inner))));
        scope = inner;
        if (c.k === 'merge') [...c.onCreate, ...c.onMatch].forEach((i) => setItem(i, scope));
        break;
      }
      case 'set': c.items.forEach((i) => setItem(i, scope)); break;
      case 'remove': c.items.forEach((i) => { if (!scope.has(i.v)) throw cypherError('SemanticError', `unknown variable ${i.v}`); }); break;
      case 'delete': c.exprs.forEach((e) => check(e, scope)); break;
    }
  }
}
