/**
 * sparqljs expressions -> algebra expressions. Aggregates are handed to an AggregateCollector that
 * replaces each with a hidden variable (SPARQL 1.1 §18.2.4.1); where no collector is given an
 * aggregate is a 400.
 */
import type * as S from 'sparqljs';
import { badRequest } from '../../errors.js';
import { fromRdfJs, type Term } from '../../rdf/terms.js';
import type { Aggregate, AggregateName, Expr, Op } from '../algebra/algebra.js';
import { HIDDEN_PREFIX } from '../algebra/vars.js';

const AGGREGATES = new Set<AggregateName>(['count', 'sum', 'min', 'max', 'avg', 'sample', 'group_concat']);

/** Operator names sparqljs emits that the algebra spells differently. */
const RENAMES: Record<string, string> = { uminus: 'neg', uplus: 'pos', isuri: 'isiri' };

/** Collects the aggregates of a query level, each bound to a fresh hidden variable. */
export class AggregateCollector {
  readonly aggregates: { variable: string; agg: Aggregate }[] = [];
  private n = 0;
  /** Register an aggregate and return the variable that will hold its value. */
  add(agg: Aggregate): string {
    const variable = `${HIDDEN_PREFIX}agg${this.n++}`;
    this.aggregates.push({ variable, agg });
    return variable;
  }
}

export interface ExprEnv {
  /** Translate a group graph pattern (for EXISTS). */
  group(patterns: S.Pattern[]): Op;
  /** Where aggregates are allowed, their collector. */
  aggs?: AggregateCollector;
  /** True while translating an aggregate's argument (nested aggregates are errors). */
  inAggregate?: boolean;
}

function isTerm(e: unknown): e is S.IriTerm | S.VariableTerm | S.LiteralTerm | S.BlankTerm {
  return typeof e === 'object' && e !== null && 'termType' in e;
}

/** Translate one sparqljs expression. */
export function translateExpr(e: S.Expression, env: ExprEnv): Expr {
  if (Array.isArray(e)) throw badRequest('Invalid SPARQL query: unexpected expression list');
  if (isTerm(e)) {
    if (e.termType === 'Variable') return { type: 'var', name: e.value };
    if ((e.termType as string) === 'BlankNode') throw badRequest('Invalid SPARQL query: blank node in expression');
    return { type: 'term', term: fromRdfJs(e) as Term };
  }
  const type = (e as { type?: string }).type;
  switch (type) {
    case 'aggregate': return translateAggregate(e as S.AggregateExpression, env);
    case 'functionCall': {
      const f = e as S.FunctionCallExpression;
      const name = typeof f.function === 'string' ? f.function : f.function.value;
      if (f.distinct) throw badRequest(`Invalid SPARQL query: DISTINCT is only allowed in aggregates (${name})`);
      return { type: 'call', fn: name, args: f.args.map((a) => translateExpr(a, env)) };
    }
    case 'operation': {
      const o = e as S.OperationExpression;
      const op = o.operator.toLowerCase();
      if (op === 'exists' || op === 'notexists') {
        const pat = o.args[0] as S.Pattern;
        const inner = env.group(pat.type === 'group' ? (pat as S.GroupPattern).patterns : [pat]);
        return { type: 'exists', not: op === 'notexists', op: inner };
      }
      if (op === 'in' || op === 'notin') {
        const list = o.args[1];
        if (!Array.isArray(list)) throw badRequest('Invalid SPARQL query: IN needs a list');
        return { type: 'call', fn: op, args: [translateExpr(o.args[0] as S.Expression, env), ...list.map((a) => translateExpr(a, env))] };
      }
      return { type: 'call', fn: RENAMES[op] ?? op, args: o.args.map((a) => translateExpr(a as S.Expression, env)) };
    }
    default:
      throw badRequest(`Invalid SPARQL query: unsupported expression type ${type}`);
  }
}

function translateAggregate(a: S.AggregateExpression, env: ExprEnv): Expr {
  const name = a.aggregation.toLowerCase() as AggregateName;
  if (!AGGREGATES.has(name)) throw badRequest(`Invalid SPARQL query: unknown aggregate ${a.aggregation}`);
  if (!env.aggs) throw badRequest(`Invalid SPARQL query: aggregate ${name.toUpperCase()} is not allowed here`);
  if (env.inAggregate) throw badRequest('Invalid SPARQL query: aggregates cannot be nested');
  const star = (a.expression as { termType?: string }).termType === 'Wildcard';
  const agg: Aggregate = { name, distinct: !!a.distinct };
  if (!star) agg.expr = translateExpr(a.expression as S.Expression, { ...env, inAggregate: true });
  else if (name !== 'count') throw badRequest(`Invalid SPARQL query: ${name.toUpperCase()}(*) is not allowed`);
  if (name === 'group_concat') agg.separator = a.separator ?? ' ';
  return { type: 'var', name: env.aggs.add(agg) };
}

/** True when a sparqljs expression contains an aggregate (outside EXISTS). */
export function hasAggregate(e: S.Expression | S.Pattern): boolean {
  if (Array.isArray(e)) return e.some((x) => hasAggregate(x));
  if (isTerm(e) || typeof e !== 'object' || e === null) return false;
  const t = (e as { type?: string }).type;
  if (t === 'aggregate') return true;
  if (t === 'operation') {
    const o = e as S.OperationExpression;
    if (o.operator === 'exists' || o.operator === 'notexists') return false;
    return o.args.some((x) => hasAggregate(x as S.Expression));
  }
  if (t === 'functionCall') return (e as S.FunctionCallExpression).args.some((x) => hasAggregate(x));
  return false;
}

/** Variables an algebra expression reads outside aggregates (for the grouping check). */
export function exprFreeVars(e: Expr, out: string[] = []): string[] {
  if (e.type === 'var') out.push(e.name);
  else if (e.type === 'call') for (const a of e.args) exprFreeVars(a, out);
  return out;
}
