/**
 * Cypher expressions over rows (cypher.md §6) with Cypher's null semantics. Property reads go to
 * the Graph (the engine); aggregates are computed by the clause runner (project.ts).
 */
import type { Expr } from './ast.js';
import { cypherError } from './errors.js';
import { matchRows, type Row } from './match.js';
import { asNode, isObj, labelsOf, nodeProp, propsOf, type Env } from './props.js';
import { callFunction } from './functions.js';
import { compare, equals, isNum, mapV, toNumber, type Value } from './values.js';
export type { Env };

export const AGGREGATES = new Set(['count', 'collect', 'sum', 'avg', 'min', 'max']);

/** Whether an expression contains an aggregate call. */
export function hasAggregate(e: Expr): boolean {
  switch (e.k) {
    case 'call': return AGGREGATES.has(e.fn) || e.args.some(hasAggregate);
    case 'op': return e.args.some(hasAggregate);
    case 'prop': return hasAggregate(e.of);
    case 'index': return hasAggregate(e.of) || hasAggregate(e.idx);
    case 'slice': return hasAggregate(e.of) || (!!e.from && hasAggregate(e.from)) || (!!e.to && hasAggregate(e.to));
    case 'list': return e.items.some(hasAggregate);
    case 'map': return e.entries.some(([, x]) => hasAggregate(x));
    case 'proj': return e.items.some((i) => i.k === 'entry' && hasAggregate(i.e));
    case 'case': return (!!e.subject && hasAggregate(e.subject)) || e.whens.some(([a, b]) => hasAggregate(a) || hasAggregate(b)) || (!!e.else && hasAggregate(e.else));
    default: return false;
  }
}

function temporalPart(lex: string, dt: string, key: string): Value {
  const m = /^(-?\d{4,})-(\d{2})-(\d{2})/.exec(lex);
  const t = /(?:T|^)(\d{2}):(\d{2}):(\d{2}(?:\.\d+)?)/.exec(lex);
  switch (key) {
    case 'year': return m && dt !== 'time' ? BigInt(m[1]!) : null;
    case 'month': return m && dt !== 'time' ? BigInt(m[2]!) : null;
    case 'day': return m && dt !== 'time' ? BigInt(m[3]!) : null;
    case 'hour': return t ? BigInt(t[1]!) : null;
    case 'minute': return t ? BigInt(t[2]!) : null;
    case 'second': return t ? BigInt(Math.floor(Number(t[3]!))) : null;
    default: return null;
  }
}

const typeErr = (msg: string) => cypherError('TypeError', msg);

/** Evaluate an expression for a row. */
export async function evaluate(e: Expr, row: Row, env: Env): Promise<Value> {
  switch (e.k) {
    case 'lit': return e.v as Value;
    case 'param': {
      if (!(e.name in env.params)) throw cypherError('ParameterMissing', `parameter $${e.name} is not in params`);
      return env.params[e.name]!;
    }
    case 'var': {
      if (!row.has(e.name)) throw cypherError('SemanticError', `unknown variable ${e.name}`);
      return row.get(e.name)!;
    }
    case 'prop': {
      const of = await evaluate(e.of, row, env);
      if (of === null) return null;
      if (!isObj(of)) throw typeErr(`cannot read property ${e.key} of a ${typeof of === 'string' ? 'String' : Array.isArray(of) ? 'List' : 'value'}`);
      switch (of.t) {
        case 'node':
          if (e.key === '@id') return env.names.nodeId(of.id);
          if (env.deleted?.has(of.id.value)) return null;
          return nodeProp(env, of, env.names.iri(e.key));
        case 'rel': return of.reifier ? nodeProp(env, { t: 'node', id: of.reifier }, env.names.iri(e.key)) : null;
        case 'map': return of.m.has(e.key) ? of.m.get(e.key)! : null;
        case 'temporal': return temporalPart(of.lex, of.dt, e.key);
        default: throw typeErr(`cannot read property ${e.key} of this value`);
      }
    }
    case 'index': {
      const of = await evaluate(e.of, row, env), idx = await evaluate(e.idx, row, env);
      if (of === null || idx === null) return null;
      if (Array.isArray(of)) {
        if (typeof idx !== 'bigint') throw typeErr('a list index must be an Integer');
        const i = Number(idx < 0n ? BigInt(of.length) + idx : idx);
        return i >= 0 && i < of.length ? of[i]! : null;
      }
      if (isObj(of) && of.t === 'map' && typeof idx === 'string') return of.m.get(idx) ?? null;
      if (isObj(of) && of.t === 'node' && typeof idx === 'string') return nodeProp(env, of, env.names.iri(idx));
      throw typeErr('subscript of a value that is not a list or map');
    }
    case 'slice': {
      const of = await evaluate(e.of, row, env);
      const from = e.from ? await evaluate(e.from, row, env) : 0n;
      const to = e.to ? await evaluate(e.to, row, env) : undefined;
      if (of === null || from === null || to === null) return null;
      if (!Array.isArray(of)) throw typeErr('slice of a value that is not a list');
      const n = BigInt(of.length);
      const norm = (x: Value) => { if (typeof x !== 'bigint') throw typeErr('slice bounds must be Integers'); const y = x < 0n ? n + x : x; return Number(y < 0n ? 0n : y > n ? n : y); };
      return of.slice(norm(from), to === undefined ? of.length : norm(to));
    }
    case 'list': { const out: Value[] = []; for (const x of e.items) out.push(await evaluate(x, row, env)); return out; }
    case 'map': { const out: [string, Value][] = []; for (const [k, x] of e.entries) out.push([k, await evaluate(x, row, env)]); return mapV(out); }
    case 'proj': {
      const of = row.get(e.of);
      if (of === undefined) throw cypherError('SemanticError', `unknown variable ${e.of}`);
      if (of === null) return null;
      const entries: [string, Value][] = [];
      for (const it of e.items) {
        if (it.k === 'entry') entries.push([it.key, await evaluate(it.e, row, env)]);
        else if (it.k === 'key') entries.push([it.key, await evaluate({ k: 'prop', of: { k: 'var', name: e.of, pos: e.pos }, key: it.key }, row, env)]);
        else {
          const n = asNode(of);
          const all = n ? await propsOf(env, n.id) : isObj(of) && of.t === 'rel' && of.reifier ? await propsOf(env, of.reifier) : isObj(of) && of.t === 'map' ? of : mapV([]);
          entries.push(...all.m);
        }
      }
      return mapV(entries);
    }
    case 'case': {
      if (e.subject) {
        const s = await evaluate(e.subject, row, env);
        for (const [w, t] of e.whens) if (equals(s, await evaluate(w, row, env)) === true) return evaluate(t, row, env);
      } else {
        for (const [w, t] of e.whens) if ((await evaluate(w, row, env)) === true) return evaluate(t, row, env);
      }
      return e.else ? evaluate(e.else, row, env) : null;
    }
    case 'call': {
      if (AGGREGATES.has(e.fn)) throw cypherError('SemanticError', `aggregate ${e.fn}() is not allowed here`);
      const args: Value[] = [];
      for (const a of e.args) args.push(await evaluate(a, row, env));
      return callFunction(e.fn, args, env, e.args);
    }
    case 'op': return operator(e.op, e.args, row, env);
    case 'exists': {
      // EXISTS { pattern [WHERE …] }: the pattern matched from this row, by the one engine
      const exts = env.exists?.get(e)?.get(row) ?? (await matchRows(env.g, env.names, e.patterns, [row], (x, r) => evaluate(x, r, env)))[0]!;
      for (const ext of exts) {
        if (!e.where || (await evaluate(e.where, new Map([...row, ...ext]), env)) === true) return true;
      }
      return false;
    }
  }
}

async function operator(op: string, argx: Expr[], row: Row, env: Env): Promise<Value> {
  if (op === 'AND' || op === 'OR' || op === 'XOR') {
    const a = await evaluate(argx[0]!, row, env), b = await evaluate(argx[1]!, row, env);
    for (const x of [a, b]) if (x !== null && typeof x !== 'boolean') throw typeErr(`${op} needs Boolean operands`);
    if (op === 'AND') return a === false || b === false ? false : a === null || b === null ? null : true;
    if (op === 'OR') return a === true || b === true ? true : a === null || b === null ? null : false;
    return a === null || b === null ? null : a !== b;
  }
  const args: Value[] = [];
  for (const a of argx) args.push(await evaluate(a, row, env));
  const [a, b] = args as [Value, Value];
  switch (op) {
    case 'NOT': if (a === null) return null; if (typeof a !== 'boolean') throw typeErr('NOT needs a Boolean'); return !a;
    case 'IS NULL': return a === null;
    case 'IS NOT NULL': return a !== null;
    case '=': return equals(a, b);
    case '<>': { const r = equals(a, b); return r === null ? null : !r; }
    case '<': case '<=': case '>': case '>=': {
      const c = compare(a, b);
      if (c === null) return null;
      return op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
    }
    case 'IN': {
      if (b === null) return null;
      const list = Array.isArray(b) ? b : [b];
      let sawNull = false;
      for (const x of list) { const r = equals(a, x); if (r === true) return true; if (r === null) sawNull = true; }
      return sawNull ? null : false;
    }
    case 'STARTS WITH': case 'ENDS WITH': case 'CONTAINS':
      if (typeof a !== 'string' || typeof b !== 'string') return null;
      return op === 'CONTAINS' ? a.includes(b) : op === 'STARTS WITH' ? a.startsWith(b) : a.endsWith(b);
    case '=~': {
      if (typeof a !== 'string' || typeof b !== 'string') return null;
      let pat = b; let flags = '';
      const m = /^\(\?([ism]+)\)/.exec(pat);
      if (m) { flags = m[1]!; pat = pat.slice(m[0].length); }
      try { return new RegExp(`^(?:${pat})$`, flags + 'u').test(a); } catch { throw typeErr(`invalid regular expression ${b}`); }
    }
    case 'neg':
      if (a === null) return null;
      if (typeof a === 'bigint') return -a;
      if (typeof a === 'number') return -a;
      if (isNum(a)) return -toNumber(a);
      throw typeErr('unary minus needs a number');
    default: return arith(op, a, b);
  }
}

function arith(op: string, a: Value, b: Value): Value {
  if (a === null || b === null) return null;
  if (op === '+') {
    if (Array.isArray(a)) return Array.isArray(b) ? [...a, ...b] : [...a, b];
    if (Array.isArray(b)) return [a, ...b];
    if (typeof a === 'string' || typeof b === 'string') {
      if ((typeof a === 'string' || isNum(a)) && (typeof b === 'string' || isNum(b))) return str(a) + str(b);
      throw typeErr('cannot add these values');
    }
  }
  if (!isNum(a) || !isNum(b)) throw typeErr(`${op} needs numbers (got ${describe(a)} and ${describe(b)})`);
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    switch (op) {
      case '+': return a + b;
      case '-': return a - b;
      case '*': return a * b;
      case '/': if (b === 0n) throw typeErr('division by zero'); return a / b;
      case '%': if (b === 0n) throw typeErr('division by zero'); return a % b;
      case '^': return Number(a) ** Number(b);
    }
  }
  const x = toNumber(a), y = toNumber(b);
  switch (op) {
    case '+': return x + y;
    case '-': return x - y;
    case '*': return x * y;
    case '/': return x / y;
    case '%': return x % y;
    case '^': return x ** y;
  }
  throw typeErr(`unknown operator ${op}`);
}

function str(v: Value): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return String(v);
  return isObj(v) && v.t === 'decimal' ? v.lex : String(v);
}

function describe(v: Value): string {
  if (typeof v === 'string') return 'String';
  if (typeof v === 'boolean') return 'Boolean';
  if (Array.isArray(v)) return 'List';
  if (isObj(v)) return v.t;
  return typeof v;
}
