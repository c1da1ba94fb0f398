/** Cypher's scalar functions (cypher.md §6); wrong arity or unknown names are SemanticErrors. */
import type { Expr } from './ast.js';
import { cypherError } from './errors.js';
import { labelsOf, propsOf, type Env } from './props.js';
import { isNum, orderCompare, toNumber, type NodeV, type Value } from './values.js';

type Fn = { n: [number, number]; f: (a: Value[], env: Env) => Value | Promise<Value> };
const typeErr = (m: string) => cypherError('TypeError', m);
const obj = (v: Value) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v : undefined);
const node = (v: Value, fn: string): NodeV | null => {
  if (v === null) return null;
  const o = obj(v);
  if (o?.t === 'node') return o;
  throw typeErr(`${fn}() needs a node`);
};
const nullIn = (f: Fn['f']): Fn['f'] => (a, env) => (a[0] === null ? null : f(a, env));
const needStr = (v: Value, fn: string): string => { if (typeof v !== 'string') throw typeErr(`${fn}() needs a String`); return v; };
const needInt = (v: Value, fn: string): number => { if (typeof v !== 'bigint') throw typeErr(`${fn}() needs an Integer`); return Number(v); };
const num = (v: Value, fn: string): number => { if (!isNum(v)) throw typeErr(`${fn}() needs a number`); return toNumber(v); };

function toStr(v: Value): Value {
  if (v === null) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return Number.isInteger(v) ? v.toFixed(1) : String(v);
  const o = obj(v);
  if (o?.t === 'decimal' || o?.t === 'temporal') return o.lex;
  throw typeErr('toString() of this value');
}

const FNS: Record<string, Fn> = {
  id: { n: [1, 1], f: nullIn((a, env) => { const o = obj(a[0]!); if (o?.t === 'node') return env.names.nodeId(o.id); if (o?.t === 'rel') return o.reifier ? env.names.nodeId(o.reifier) : null; throw typeErr('id() needs a node or relationship'); }) },
  labels: { n: [1, 1], f: nullIn(async (a, env) => { const n = node(a[0]!, 'labels')!; return env.deleted?.has(n.id.value) ? [] : labelsOf(env, n); }) },
  type: { n: [1, 1], f: nullIn((a) => { const o = obj(a[0]!); if (o?.t !== 'rel') throw typeErr('type() needs a relationship'); return o.type; }) },
  keys: { n: [1, 1], f: nullIn(async (a, env) => {
    const o = obj(a[0]!);
    if (o?.t === 'map') return [...o.m.keys()];
    if (o?.t === 'node') return [...(await propsOf(env, o.id)).m.keys()];
    if (o?.t === 'rel') return o.reifier ? [...(await propsOf(env, o.reifier)).m.keys()] : [];
    throw typeErr('keys() needs a node, relationship or map');
  }) },
  properties: { n: [1, 1], f: nullIn(async (a, env) => {
    const o = obj(a[0]!);
    if (o?.t === 'map') return o;
    if (o?.t === 'node') return propsOf(env, o.id);
    if (o?.t === 'rel') return o.reifier ? propsOf(env, o.reifier) : { t: 'map', m: new Map() };
    throw typeErr('properties() needs a node, relationship or map');
  }) },
  startnode: { n: [1, 1], f: nullIn((a) => { const o = obj(a[0]!); if (o?.t !== 'rel') throw typeErr('startNode() needs a relationship'); return { t: 'node', id: o.start }; }) },
  endnode: { n: [1, 1], f: nullIn((a) => { const o = obj(a[0]!); if (o?.t !== 'rel') throw typeErr('endNode() needs a relationship'); return { t: 'node', id: o.end }; }) },
  nodes: { n: [1, 1], f: nullIn((a) => { const o = obj(a[0]!); if (o?.t !== 'path') throw typeErr('nodes() needs a path'); return o.nodes; }) },
  relationships: { n: [1, 1], f: nullIn((a) => { const o = obj(a[0]!); if (o?.t !== 'path') throw typeErr('relationships() needs a path'); return o.rels; }) },
  length: { n: [1, 1], f: nullIn((a) => { const o = obj(a[0]!); if (o?.t === 'path') return BigInt(o.rels.length); throw typeErr('length() needs a path (use size() for lists and strings)'); }) },
  exists: { n: [1, 1], f: (a) => a[0] !== null },
  elementid: { n: [1, 1], f: (a, env) => FNS.id!.f(a, env) },
  size: { n: [1, 1], f: nullIn((a) => { const v = a[0]!; if (typeof v === 'string') return BigInt([...v].length); if (Array.isArray(v)) return BigInt(v.length); throw typeErr('size() needs a list or string'); }) },
  head: { n: [1, 1], f: nullIn((a) => { if (!Array.isArray(a[0])) throw typeErr('head() needs a list'); return a[0][0] ?? null; }) },
  last: { n: [1, 1], f: nullIn((a) => { if (!Array.isArray(a[0])) throw typeErr('last() needs a list'); return a[0][a[0].length - 1] ?? null; }) },
  tail: { n: [1, 1], f: nullIn((a) => { if (!Array.isArray(a[0])) throw typeErr('tail() needs a list'); return a[0].slice(1); }) },
  reverse: { n: [1, 1], f: nullIn((a) => { const v = a[0]!; if (typeof v === 'string') return [...v].reverse().join(''); if (Array.isArray(v)) return [...v].reverse(); throw typeErr('reverse() needs a list or string'); }) },
  range: { n: [2, 3], f: (a) => {
    const s = BigInt(needInt(a[0]!, 'range')), e = BigInt(needInt(a[1]!, 'range')), st = a[2] === undefined ? 1n : BigInt(needInt(a[2], 'range'));
    if (st === 0n) throw typeErr('range() step must not be 0');
    const out: Value[] = [];
    for (let i = s; st > 0n ? i <= e : i >= e; i += st) { out.push(i); if (out.length > 1_000_000) throw cypherError('LimitExceeded', 'range() longer than 1,000,000'); }
    return out;
  } },
  coalesce: { n: [1, Infinity], f: (a) => a.find((x) => x !== null) ?? null },
  tostring: { n: [1, 1], f: (a) => toStr(a[0]!) },
  tointeger: { n: [1, 1], f: nullIn((a) => {
    const v = a[0]!;
    if (typeof v === 'bigint') return v;
    if (typeof v === 'number') return Number.isFinite(v) ? BigInt(Math.trunc(v)) : null;
    if (typeof v === 'boolean') return v ? 1n : 0n;
    if (typeof v === 'string') { const n = Number(v.trim()); return v.trim() !== '' && Number.isFinite(n) ? BigInt(Math.trunc(n)) : null; }
    const o = obj(v); if (o?.t === 'decimal') return BigInt(Math.trunc(Number(o.lex)));
    return null;
  }) },
  tofloat: { n: [1, 1], f: nullIn((a) => { const v = a[0]!; if (isNum(v)) return toNumber(v); if (typeof v === 'string') { const n = Number(v.trim()); return v.trim() !== '' && !Number.isNaN(n) ? n : null; } return null; }) },
  toboolean: { n: [1, 1], f: nullIn((a) => { const v = a[0]!; if (typeof v === 'boolean') return v; if (typeof v === 'string') { const s = v.trim().toLowerCase(); return s === 'true' ? true : s === 'false' ? false : null; } if (typeof v === 'bigint') return v !== 0n; return null; }) },
  toupper: { n: [1, 1], f: nullIn((a) => needStr(a[0]!, 'toUpper').toUpperCase()) },
  tolower: { n: [1, 1], f: nullIn((a) => needStr(a[0]!, 'toLower').toLowerCase()) },
  trim: { n: [1, 1], f: nullIn((a) => needStr(a[0]!, 'trim').trim()) },
  ltrim: { n: [1, 1], f: nullIn((a) => needStr(a[0]!, 'ltrim').trimStart()) },
  rtrim: { n: [1, 1], f: nullIn((a) => needStr(a[0]!, 'rtrim').trimEnd()) },
  substring: { n: [2, 3], f: nullIn((a) => { const s = needStr(a[0]!, 'substring'); const st = needInt(a[1]!, 'substring'); return a[2] === undefined ? s.slice(st) : s.slice(st, st + needInt(a[2], 'substring')); }) },
  left: { n: [2, 2], f: nullIn((a) => needStr(a[0]!, 'left').slice(0, needInt(a[1]!, 'left'))) },
  right: { n: [2, 2], f: nullIn((a) => { const s = needStr(a[0]!, 'right'); const n = needInt(a[1]!, 'right'); return n === 0 ? '' : s.slice(-n); }) },
  replace: { n: [3, 3], f: (a) => (a.some((x) => x === null) ? null : needStr(a[0]!, 'replace').split(needStr(a[1]!, 'replace')).join(needStr(a[2]!, 'replace'))) },
  split: { n: [2, 2], f: (a) => (a.some((x) => x === null) ? null : needStr(a[0]!, 'split').split(needStr(a[1]!, 'split'))) },
  abs: { n: [1, 1], f: nullIn((a) => { const v = a[0]!; if (typeof v === 'bigint') return v < 0n ? -v : v; return Math.abs(num(v, 'abs')); }) },
  ceil: { n: [1, 1], f: nullIn((a) => Math.ceil(num(a[0]!, 'ceil'))) },
  floor: { n: [1, 1], f: nullIn((a) => Math.floor(num(a[0]!, 'floor'))) },
  round: { n: [1, 1], f: nullIn((a) => Math.round(num(a[0]!, 'round'))) },
  sqrt: { n: [1, 1], f: nullIn((a) => Math.sqrt(num(a[0]!, 'sqrt'))) },
  sign: { n: [1, 1], f: nullIn((a) => BigInt(Math.sign(num(a[0]!, 'sign')))) },
  rand: { n: [0, 0], f: () => Math.random() },
  timestamp: { n: [0, 0], f: (_a, env) => BigInt(env.now.getTime()) },
  date: { n: [0, 1], f: (a, env) => temporal('date', a[0], env) },
  datetime: { n: [0, 1], f: (a, env) => temporal('dateTime', a[0], env) },
  time: { n: [0, 1], f: (a, env) => temporal('time', a[0], env) },
  duration: { n: [1, 1], f: nullIn((a) => { const s = needStr(a[0]!, 'duration'); if (!/^-?P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$/.test(s)) return null; return { t: 'temporal', dt: 'duration', lex: s }; }) },
};

const TEMPORAL_RE = { date: /^-?\d{4,}-\d{2}-\d{2}$/, dateTime: /^-?\d{4,}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/, time: /^\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/ };
function temporal(dt: 'date' | 'dateTime' | 'time', arg: Value | undefined, env: Env): Value {
  if (arg === undefined) {
    const iso = env.now.toISOString();
    return { t: 'temporal', dt, lex: dt === 'date' ? iso.slice(0, 10) : dt === 'time' ? iso.slice(11) : iso };
  }
  if (arg === null) return null;
  if (typeof arg !== 'string') { const o = obj(arg); if (o?.t === 'temporal') return { t: 'temporal', dt, lex: dt === 'date' ? o.lex.slice(0, 10) : o.lex }; throw typeErr(`${dt}() needs a String`); }
  if (!TEMPORAL_RE[dt].test(arg)) throw typeErr(`${dt}() cannot parse "${arg}"`);
  return { t: 'temporal', dt, lex: arg };
}

/** Call a scalar function by its lower-case name. */
export async function callFunction(fn: string, args: Value[], env: Env, _src: Expr[]): Promise<Value> {
  const f = FNS[fn];
  if (!f) throw cypherError('SemanticError', `unknown function ${fn}()`);
  if (args.length < f.n[0] || args.length > f.n[1]) throw cypherError('SemanticError', `wrong number of arguments to ${fn}()`);
  return f.f(args, env);
}

/** Whether a scalar function exists (checked before running). */
export const isFunction = (fn: string) => fn in FNS;
export { orderCompare };
