/**
 * Expressions compiled once per query into closures over a row (SPARQL 1.1 §17). Variables
 * decode their id to a term only when read; the lazy special forms (BOUND, IF, COALESCE, &&, ||,
 * IN / NOT IN, EXISTS) are here with their error semantics; everything else is a call into the
 * function library. An evaluation error is an ExprError thrown to the operator.
 */
import { badRequest } from '../../errors.js';
import { blankNode, type BlankNode, type Term } from '../../rdf/terms.js';
import { booleanLiteral } from '../../rdf/values.js';
import type { Expr, Op } from '../algebra/algebra.js';
import { ebv, ExprError, functionDef, isExprError, valueEquals, type FunctionContext } from './expr-eval.js';
import { memoize, memoVar } from './expr-memo.js';
import { compileNum } from './expr-num.js';
import type { Runtime } from './runtime.js';
import { UNBOUND } from './types.js';

/** The row an expression reads, plus the batch's precomputed EXISTS answers. */
export interface Frame {
  rows: Int32Array;
  off: number;
  /** Row index in the batch (EXISTS answers are per row). */
  r: number;
  exists: Uint8Array[];
}

export type ExprFn = (f: Frame) => Term;

export interface CompileEnv {
  rt: Runtime;
  /** Slot of a variable. */
  slot(name: string): number;
  /** Register an EXISTS pattern; its answers arrive in frame.exists[index]. */
  exists(op: Op): number;
}

const TRUE = booleanLiteral(true);
const FALSE = booleanLiteral(false);

let nonce = 0;

/** The FunctionContext of one execution: NOW fixed per query, BNODE(label) stable within one evaluation. */
export class EvalContext implements FunctionContext {
  readonly now: Date;
  readonly baseIri?: string;
  private readonly prefix: string;
  private n = 0;
  private scope = 0;
  private labels = new Map<string, BlankNode>();

  constructor(rt: Runtime) {
    this.now = rt.now;
    if (rt.baseIri !== undefined) this.baseIri = rt.baseIri;
    this.prefix = `q${(nonce++).toString(36)}${Math.floor(Math.random() * 1e9).toString(36)}x`;
  }

  /** Start evaluating a new solution (BNODE labels are scoped to it). */
  nextSolution(): void {
    if (this.labels.size) this.labels = new Map();
    this.scope++;
  }

  bnode(label?: string): BlankNode {
    if (label === undefined) return blankNode(this.prefix + this.n++);
    let b = this.labels.get(label);
    if (!b) {
      b = blankNode(this.prefix + this.n++);
      this.labels.set(label, b);
    }
    return b;
  }
}

/**
 * Compile an expression (aggregates must already be variables). Unknown built-in names and bad
 * arities are 400s here; an unknown function IRI evaluates to an error. The largest
 * subexpressions over a single variable are memoised per id of that variable (expr-memo.ts).
 */
export function compileExpr(e: Expr, env: CompileEnv, fctx: EvalContext, memo = true): ExprFn {
  if (memo) {
    const v = memoVar(e);
    if (v !== undefined) return memoize(compileExpr(e, env, fctx, false), env.slot(v));
  }
  const ids = env.rt.ids;
  switch (e.type) {
    case 'term': {
      const t = e.term;
      return () => t;
    }
    case 'var': {
      const slot = env.slot(e.name);
      return (f) => {
        const id = f.rows[f.off + slot]!;
        if (id === UNBOUND) throw new ExprError(`unbound variable ?${e.name}`);
        return ids.term(id);
      };
    }
    case 'exists': {
      const k = env.exists(e.op);
      const not = e.not;
      return (f) => ((f.exists[k]![f.r] === 1) !== not ? TRUE : FALSE);
    }
    case 'aggregate':
      throw badRequest('Invalid query: aggregate outside of a grouped query');
    case 'call': return compileCall(e.fn, e.args, env, fctx, memo);
  }
}

/** Comparison operators on two JS numbers (NaN, unordered, makes each false and != true). */
const NUM_COMPARE: Record<string, (a: number, b: number) => boolean> = {
  '<': (a, b) => a < b, '>': (a, b) => a > b, '<=': (a, b) => a <= b, '>=': (a, b) => a >= b,
  '=': (a, b) => a === b, '!=': (a, b) => a !== b,
};

/**
 * A comparison of float/double values as numbers (expr-num.ts), when at least one side is a cast
 * or a constant: the boolean, or undefined when a side is not such a number in this row.
 */
function numericCompare(test: (a: number, b: number) => boolean, argExprs: Expr[], env: CompileEnv): ((f: Frame) => Term | undefined) | undefined {
  const a = compileNum(argExprs[0]!, env.rt.ids, (n) => env.slot(n));
  const b = compileNum(argExprs[1]!, env.rt.ids, (n) => env.slot(n));
  if (!a || !b || (a.kind === 'any' && b.kind === 'any')) return undefined;
  const x = a.fn, y = b.fn;
  return (f) => {
    const l = x(f);
    if (l === undefined) return undefined;
    const r = y(f);
    if (r === undefined) return undefined;
    return test(l, r) ? TRUE : FALSE;
  };
}

function compileCall(fn: string, argExprs: Expr[], env: CompileEnv, fctx: EvalContext, memo: boolean): ExprFn {
  const slow = compileGeneral(fn, argExprs, env, fctx, memo);
  const cmp = NUM_COMPARE[fn] as ((a: number, b: number) => boolean) | undefined;
  const fast = cmp && argExprs.length === 2 ? numericCompare(cmp, argExprs, env) : undefined;
  return fast ? (f) => fast(f) ?? slow(f) : slow;
}

function compileGeneral(fn: string, argExprs: Expr[], env: CompileEnv, fctx: EvalContext, memo: boolean): ExprFn {
  if (fn === 'bound') {
    const a = argExprs[0];
    if (argExprs.length !== 1 || a?.type !== 'var') throw badRequest('Invalid query: BOUND takes one variable');
    const slot = env.slot(a.name);
    return (f) => (f.rows[f.off + slot] !== UNBOUND ? TRUE : FALSE);
  }
  // Under a memoised call its arguments are not memoised again.
  const args = argExprs.map((a) => compileExpr(a, env, fctx, memo));
  switch (fn) {
    case 'if': {
      if (args.length !== 3) throw badRequest('Invalid query: IF takes three arguments');
      const [c, a, b] = args as [ExprFn, ExprFn, ExprFn];
      return (f) => (ebv(c(f)) ? a(f) : b(f));
    }
    case 'coalesce':
      return (f) => {
        for (const a of args) {
          try { return a(f); } catch (e) { if (!isExprError(e)) throw e; }
        }
        throw new ExprError('COALESCE: no argument has a value');
      };
    case '&&': case '||': {
      if (args.length !== 2) throw badRequest(`Invalid query: ${fn} takes two arguments`);
      const [a, b] = args as [ExprFn, ExprFn];
      const and = fn === '&&';
      return (f) => {
        let left: boolean | ExprError;
        try { left = ebv(a(f)); } catch (e) { if (!isExprError(e)) throw e; left = e; }
        // && is false when either side is false, || true when either is true, even if the other errs.
        if (left === !and) return and ? FALSE : TRUE;
        const right = ebv(b(f));
        if (right === !and) return and ? FALSE : TRUE;
        if (left instanceof Error) throw left;
        return and ? TRUE : FALSE;
      };
    }
    case 'in': case 'notin': {
      const [lhs, ...list] = args as [ExprFn, ...ExprFn[]];
      const neg = fn === 'notin';
      return (f) => {
        const x = lhs(f);
        let err: unknown;
        for (const item of list) {
          try {
            if (valueEquals(x, item(f))) return neg ? FALSE : TRUE;
          } catch (e) { if (!isExprError(e)) throw e; err = e; }
        }
        if (err) throw err;
        return neg ? TRUE : FALSE;
      };
    }
    default: {
      const d = functionDef(fn);
      if (!d && /^[A-Za-z][A-Za-z0-9+.-]*:/.test(fn) && !fn.startsWith('ledgraph:')) {
        // SPARQL 1.1 §17.6: a call to an IRI the engine does not know is valid syntax whose
        // evaluation is an error (so FILTER drops the row, BIND leaves the variable unbound).
        return () => { throw new ExprError(`unknown function <${fn}>`); };
      }
      if (!d) throw badRequest(`Invalid query: unknown function <${fn}>`);
      if (args.length < d.min || args.length > d.max) throw badRequest(`Invalid query: wrong number of arguments for ${fn}: ${args.length}`);
      // Resolved and checked once here, so a row pays only the call.
      const call = d.fn;
      if (args.length === 1) {
        const [a] = args as [ExprFn];
        return (f) => call([a(f)], fctx);
      }
      if (args.length === 2) {
        const [a, b] = args as [ExprFn, ExprFn];
        return (f) => call([a(f), b(f)], fctx);
      }
      return (f) => call(args.map((a) => a(f)), fctx);
    }
  }
}

/** Evaluate to a boolean for FILTER: errors are false. */
export function test(fn: ExprFn, f: Frame): boolean {
  try { return ebv(fn(f)); } catch (e) { if (isExprError(e)) return false; throw e; }
}

/** Evaluate, or undefined on an evaluation error (BIND, projections, grouping keys). */
export function tryEval(fn: ExprFn, f: Frame): Term | undefined {
  try { return fn(f); } catch (e) { if (isExprError(e)) return undefined; throw e; }
}
