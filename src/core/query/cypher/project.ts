/**
 * Projection clauses (WITH, RETURN; cypher.md §5): items, aggregation with the non-aggregate
 * items as grouping keys, DISTINCT, ORDER BY (which may use the projected aliases and, without
 * aggregation or DISTINCT, the incoming variables), SKIP, LIMIT and WITH's trailing WHERE.
 */
import type { Expr, Projection } from './ast.js';
import { cypherError } from './errors.js';
import { AGGREGATES, evaluate, hasAggregate, type Env } from './eval.js';
import type { Row } from './match.js';
import { compare, isNum, keyOf, orderCompare, toNumber, type Value } from './values.js';

/** Column names of a projection for rows with the given variables. */
export function columnsOf(p: Projection, vars: string[]): string[] {
  const star = p.star ? [...vars].filter((v) => !v.startsWith('\u0000')).sort() : [];
  return [...star, ...p.items.map((i) => i.alias ?? i.text)];
}

/** Run a projection over rows; returns the new rows keyed by column name. */
export async function project(p: Projection, rows: Row[], env: Env, vars: string[]): Promise<Row[]> {
  const cols = columnsOf(p, vars);
  const items: { name: string; e: Expr }[] = [
    ...(p.star ? cols.slice(0, cols.length - p.items.length).map((v) => ({ name: v, e: { k: 'var', name: v, pos: 0 } as Expr })) : []),
    ...p.items.map((i) => ({ name: i.alias ?? i.text, e: i.e })),
  ];
  if (new Set(cols).size !== cols.length) throw cypherError('SemanticError', 'two columns have the same name; alias them with AS');
  const agg = items.some((i) => hasAggregate(i.e));
  let out: { row: Row; src: Row | null }[] = [];
  if (agg) {
    const groups = new Map<string, { keys: Row; rows: Row[] }>();
    const keyItems = items.filter((i) => !hasAggregate(i.e));
    for (const r of rows) {
      const keys: Row = new Map();
      for (const k of keyItems) keys.set(k.name, await evaluate(k.e, r, env));
      const gk = [...keys.values()].map(keyOf).join('\u0001');
      let g = groups.get(gk);
      if (!g) groups.set(gk, g = { keys, rows: [] });
      g.rows.push(r);
    }
    if (!groups.size && !keyItems.length) groups.set('', { keys: new Map(), rows: [] });
    for (const g of groups.values()) {
      const row: Row = new Map();
      for (const it of items) row.set(it.name, g.keys.has(it.name) ? g.keys.get(it.name)! : await aggEval(it.e, g.rows, env));
      out.push({ row, src: null });
    }
  } else {
    for (const r of rows) {
      const row: Row = new Map();
      for (const it of items) row.set(it.name, await evaluate(it.e, r, env));
      out.push({ row, src: r });
    }
  }
  if (p.distinct) {
    const seen = new Set<string>();
    out = out.filter((o) => { const k = [...o.row.values()].map(keyOf).join('\u0001'); if (seen.has(k)) return false; seen.add(k); return true; });
  }
  if (p.order.length) {
    const keyed: { o: typeof out[number]; ks: Value[] }[] = [];
    for (const o of out) {
      const scope: Row = o.src && !p.distinct ? new Map([...o.src, ...o.row]) : o.row;
      const ks: Value[] = [];
      for (const k of p.order) {
        const v = await evaluate(k.e, scope, env);
        if (Array.isArray(v) || (v !== null && typeof v === 'object' && v.t === 'map')) throw cypherError('Unsupported', 'ORDER BY on list or map values');
        ks.push(v);
      }
      keyed.push({ o, ks });
    }
    keyed.sort((a, b) => {
      for (let i = 0; i < p.order.length; i++) {
        const c = orderCompare(a.ks[i]!, b.ks[i]!);
        if (c !== 0) return p.order[i]!.desc ? -c : c;
      }
      return 0;
    });
    out = keyed.map((k) => k.o);
  }
  const count = async (e: Expr | undefined, what: string): Promise<number | undefined> => {
    if (!e) return undefined;
    if (e.k !== 'lit' && e.k !== 'param') throw cypherError('SemanticError', `${what} takes a non-negative integer literal or parameter`);
    const v = await evaluate(e, new Map(), env);
    if (typeof v !== 'bigint' || v < 0n) throw cypherError('SemanticError', `${what} takes a non-negative integer`);
    return Number(v);
  };
  const skip = await count(p.skip, 'SKIP'), limit = await count(p.limit, 'LIMIT');
  let res = out.map((o) => o.row);
  if (skip !== undefined || limit !== undefined) res = res.slice(skip ?? 0, limit === undefined ? undefined : (skip ?? 0) + limit);
  if (p.where) {
    const kept: Row[] = [];
    for (const r of res) if ((await evaluate(p.where, r, env)) === true) kept.push(r);
    res = kept;
  }
  return res;
}

/** An expression containing aggregates, over the rows of one group. */
async function aggEval(e: Expr, rows: Row[], env: Env): Promise<Value> {
  if (e.k === 'call' && AGGREGATES.has(e.fn)) {
    if (e.args.some(hasAggregate)) throw cypherError('SemanticError', 'aggregates cannot be nested');
    if (e.star) { if (e.fn !== 'count') throw cypherError('SemanticError', `${e.fn}(*) is not valid`); return BigInt(rows.length); }
    if (e.args.length !== 1) throw cypherError('SemanticError', `wrong number of arguments to ${e.fn}()`);
    let vals: Value[] = [];
    for (const r of rows) { const v = await evaluate(e.args[0]!, r, env); if (v !== null) vals.push(v); }
    if (e.distinct) { const seen = new Set<string>(); vals = vals.filter((v) => { const k = keyOf(v); if (seen.has(k)) return false; seen.add(k); return true; }); }
    switch (e.fn) {
      case 'count': return BigInt(vals.length);
      case 'collect': return vals;
      case 'min': case 'max': {
        if (!vals.length) return null;
        return vals.reduce((a, b) => { const c = compare(a, b) ?? orderCompare(a, b); return (e.fn === 'min' ? c <= 0 : c >= 0) ? a : b; });
      }
      case 'sum': case 'avg': {
        if (vals.some((v) => !isNum(v))) throw cypherError('TypeError', `${e.fn}() needs numbers`);
        if (e.fn === 'sum') {
          if (vals.every((v) => typeof v === 'bigint')) return (vals as bigint[]).reduce((a, b) => a + b, 0n);
          return vals.reduce<number>((a, b) => a + toNumber(b as number), 0);
        }
        if (!vals.length) return null;
        return vals.reduce<number>((a, b) => a + toNumber(b as number), 0) / vals.length;
      }
    }
  }
  // an expression over aggregates: evaluate its aggregate parts first
  const sub = async (x: Expr): Promise<Expr> => (hasAggregate(x) ? { k: 'lit', v: await aggEval(x, rows, env) } : x);
  const first = rows[0] ?? new Map();
  switch (e.k) {
    case 'op': return evaluate({ ...e, args: await Promise.all(e.args.map(sub)) }, first, env);
    case 'call': return evaluate({ ...e, args: await Promise.all(e.args.map(sub)) }, first, env);
    case 'list': return evaluate({ ...e, items: await Promise.all(e.items.map(sub)) }, first, env);
    case 'map': return evaluate({ ...e, entries: await Promise.all(e.entries.map(async ([k, x]) => [k, await sub(x)] as [string, Expr])) }, first, env);
    case 'prop': return evaluate({ ...e, of: await sub(e.of) }, first, env);
    case 'index': return evaluate({ ...e, of: await sub(e.of), idx: await sub(e.idx) }, first, env);
    default: throw cypherError('SemanticError', 'unsupported use of an aggregate');
  }
}
