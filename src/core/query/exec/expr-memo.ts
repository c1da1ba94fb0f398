/**
 * Per-id memo of an expression over one variable. In an analytic query the same stored term
 * reaches the same expression many times (`xsd:double(str(?price))` once per offer per feature,
 * `?date >= … && ?date < …` once per review of a day): the result depends only on that
 * variable's id, so it is computed once per distinct id and the literal it built is handed out
 * again — the cast, its parse and the canonical number form run once per value, not per row, and
 * the next reader (an aggregate, a comparison) gets the already parsed number with it.
 *
 * Only deterministic expressions qualify (no RAND, UUID, STRUUID, BNODE, EXISTS). The memo gives
 * up when it does not pay (mostly distinct values) and is bounded; it lives for one execution
 * (plans are per execution, and overflow ids are per query).
 */
import type { Term } from '../../rdf/terms.js';
import type { Expr } from '../algebra/algebra.js';
import { exprVars } from '../algebra/vars.js';
import { isExprError } from './expr-eval.js';

/** Functions whose result is not a function of their arguments. */
const VOLATILE = new Set(['rand', 'uuid', 'struuid', 'bnode']);
/** Entries kept before the memo starts over. */
const MAX_ENTRIES = 1 << 16;
/** Lookups after which a memo that mostly misses is switched off. */
const TRIAL = 4096;

function deterministic(e: Expr): boolean {
  switch (e.type) {
    case 'exists': case 'aggregate': return false;
    case 'call': return !VOLATILE.has(e.fn.toLowerCase()) && e.args.every(deterministic);
    default: return true;
  }
}

/** The variable a call expression reads when it reads exactly one and is deterministic, else undefined. */
export function memoVar(e: Expr): string | undefined {
  if (e.type !== 'call' || e.fn === 'bound' || !deterministic(e)) return undefined;
  const vars = exprVars(e);
  return vars.size === 1 ? vars.values().next().value : undefined;
}

/** `fn` (which reads only the variable in `slot`) memoised on that slot's id. */
export function memoize<F extends { rows: Int32Array; off: number }>(fn: (f: F) => Term, slot: number): (f: F) => Term {
  const memo = new Map<number, Term | Error>();
  let on = true;
  let lookups = 0, hits = 0;
  return (f) => {
    if (!on) return fn(f);
    const id = f.rows[f.off + slot]!;
    let r = memo.get(id);
    if (r === undefined) {
      try { r = fn(f); } catch (e) { if (!isExprError(e)) throw e; r = e; }
      if (memo.size >= MAX_ENTRIES) memo.clear();
      memo.set(id, r);
    } else hits++;
    // Mostly distinct values: a map insert per row and nothing saved.
    if (++lookups === TRIAL && hits * 4 < lookups) { on = false; memo.clear(); }
    if (r instanceof Error) throw r;
    return r;
  };
}
