/**
 * Translations of compiled reads (compile.ts), kept per statement, ledger state, names and
 * parameters: a client repeating a statement against an unchanged ledger skips the translation
 * (MATCH probes, property profiles, constant nodes' facts) and goes straight to the engine. A
 * snapshot's view never changes, so a kept translation stays exact for it; a new state, another
 * policy view or other parameters is another key. Statements calling a function without arguments
 * (`datetime()`, `rand()`) are never kept: their constants depend on the moment.
 */
import type { Names } from './names.js';
import type { Value } from './values.js';

/** Parameter sets kept per (statement, view, names) before the oldest are dropped. */
const MAX_PARAM_SETS = 64;

const plans = new WeakMap<object, WeakMap<object, WeakMap<Names, Map<string, unknown>>>>();
const volatile = new WeakMap<object, boolean>();
const paramNames = new WeakMap<object, string[]>();

/** The parameter names a syntax tree reads (sorted): only their values can change its translation. */
function readsParams(x: unknown, out: Set<string>): Set<string> {
  if (Array.isArray(x)) { for (const y of x) readsParams(y, out); return out; }
  if (x === null || typeof x !== 'object') return out;
  const o = x as { k?: unknown; name?: unknown };
  if (o.k === 'param' && typeof o.name === 'string') out.add(o.name);
  for (const v of Object.values(o)) if (v !== null && typeof v === 'object') readsParams(v, out);
  return out;
}

/** Whether a syntax tree holds a call without arguments (its value depends on when it runs). */
function hasNullaryCall(x: unknown): boolean {
  if (Array.isArray(x)) return x.some(hasNullaryCall);
  if (x === null || typeof x !== 'object') return false;
  const o = x as { k?: unknown; args?: unknown[]; star?: boolean };
  if (o.k === 'call' && Array.isArray(o.args) && o.args.length === 0 && !o.star) return true;
  return Object.values(o).some(hasNullaryCall);
}

/** A key telling parameter values apart exactly (1 and 1.0 translate to different terms); undefined for other values. */
function exactKey(v: Value): string | undefined {
  if (v === null) return 'n';
  switch (typeof v) {
    case 'bigint': return 'I' + v;
    case 'number': return 'F' + (Object.is(v, -0) ? '-0' : String(v));
    case 'string': return 'S' + v.length + ':' + v;
    case 'boolean': return 'B' + v;
  }
  if (Array.isArray(v)) {
    const xs = v.map(exactKey);
    return xs.every((x) => x !== undefined) ? '[' + xs.join(',') + ']' : undefined;
  }
  if (v.t !== 'map') return undefined;
  const es = [...v.m].map(([k, x]) => { const e = exactKey(x); return e === undefined ? undefined : k.length + ':' + k + ':' + e; });
  return es.every((x) => x !== undefined) ? '{' + es.join(',') + '}' : undefined;
}

/** The slot of one translation: `get` is undefined when none is kept (null: kept as "not compiled"). */
export function planSlot<T>(stmt: object, view: object, names: Names, params: Record<string, Value>): { get(): T | null | undefined; set(plan: T | null): void } | undefined {
  let v = volatile.get(stmt);
  if (v === undefined) volatile.set(stmt, v = hasNullaryCall(stmt));
  if (v) return undefined;
  let byView = plans.get(stmt);
  if (!byView) plans.set(stmt, byView = new WeakMap());
  let byNames = byView.get(view);
  if (!byNames) byView.set(view, byNames = new WeakMap());
  let byParams = byNames.get(names);
  if (!byParams) byNames.set(names, byParams = new Map());
  const m = byParams;
  let reads = paramNames.get(stmt);
  if (!reads) paramNames.set(stmt, reads = [...readsParams(stmt, new Set())].sort());
  // length-prefixed parts: no two parameter sets share a key
  let key = '';
  for (const k of reads) {
    const v = Object.hasOwn(params, k) ? params[k] : undefined;
    const e = v === undefined ? 'u' : exactKey(v);
    if (e === undefined) return undefined;
    key += k.length + ':' + k + '=' + e.length + ':' + e;
  }
  return {
    get: () => m.get(key) as T | null | undefined,
    set: (plan) => {
      if (m.size >= MAX_PARAM_SETS) m.delete(m.keys().next().value!);
      m.set(key, plan);
    },
  };
}
