/**
 * The blank-node label rule of SPARQL 1.1 §4.1.4 and grammar note 8: one label may not be used in
 * two basic graph patterns of a query. Every triples block of the (sparqljs-shaped) AST is its own
 * basic graph pattern: blocks split by a FILTER, BIND, OPTIONAL, UNION, GRAPH, MINUS, a nested
 * group, EXISTS or a subquery are different BGPs. Anonymous blank nodes (`[]`) get fresh labels
 * from either parser, so only written labels can collide.
 */
import type * as S from 'sparqljs';
import { badRequest } from '../../errors.js';
import { drain, type Steps } from './steps.js';

/** 400 when a blank-node label appears in two basic graph patterns of the query. */
export function checkBlankNodeScopes(q: S.Query): void { drain(checkBlankNodeScopesSteps(q)); }

/** checkBlankNodeScopes in steps (a yield every few dozen patterns), for large queries on a server. */
export function* checkBlankNodeScopesSteps(q: S.Query): Steps<void> {
  let work = 0;
  const owner = new Map<string, number>();
  let bgp = 0;
  const term = (t: unknown): void => {
    const x = t as { termType?: string; value?: string; type?: string; items?: unknown[] } | null;
    if (!x || typeof x !== 'object') return;
    if (x.termType === 'BlankNode') {
      const label = x.value!;
      const seen = owner.get(label);
      if (seen === undefined) owner.set(label, bgp);
      else if (seen !== bgp) throw badRequest(`Invalid SPARQL query: blank node label _:${label} is used in two basic graph patterns (SPARQL 1.1 §4.1.4)`);
    } else if (x.type === 'path') {
      for (const item of x.items ?? []) term(item);
    }
  };
  const expr = function* (e: unknown): Steps<void> {
    if (!e || typeof e !== 'object') return;
    if (Array.isArray(e)) { for (const x of e) yield* expr(x); return; }
    const o = e as { type?: string; operator?: string; args?: unknown; expression?: unknown };
    if (o.type === 'operation') {
      if (o.operator === 'exists' || o.operator === 'notexists') {
        for (const a of o.args as S.Pattern[]) yield* pattern(a);
      } else yield* expr(o.args);
    } else if (o.type === 'functionCall') yield* expr(o.args);
    else if (o.type === 'aggregate') yield* expr(o.expression);
  };
  const patterns = function* (ps: readonly S.Pattern[] | undefined): Steps<void> { for (const p of ps ?? []) yield* pattern(p); };
  const pattern = function* (p: S.Pattern): Steps<void> {
    if ((++work & 63) === 0) yield;
    switch (p.type) {
      case 'bgp':
        bgp++;
        for (const t of p.triples) { term(t.subject); term(t.predicate); term(t.object); }
        work += p.triples.length;
        break;
      case 'filter': yield* expr(p.expression); break;
      case 'bind': yield* expr(p.expression); break;
      case 'optional': case 'minus': case 'group': case 'graph': case 'service': yield* patterns(p.patterns); break;
      case 'union': for (const x of p.patterns) yield* pattern(x); break;
      case 'query': yield* query(p as S.SelectQuery); break;
      default: break;
    }
  };
  const query = function* (sub: S.Query): Steps<void> {
    yield* patterns(sub.where);
    const v = sub as { variables?: unknown[]; having?: unknown[]; order?: { expression: unknown }[]; group?: { expression: unknown }[] };
    for (const x of v.variables ?? []) if (x && typeof x === 'object' && 'expression' in x) yield* expr((x as { expression: unknown }).expression);
    for (const h of v.having ?? []) yield* expr(h);
    for (const o of v.order ?? []) yield* expr(o.expression);
    for (const g of v.group ?? []) yield* expr(g.expression);
  };
  yield* query(q);
}
