/**
 * Float and double values passed between operators as JS numbers, without building a literal.
 * `xsd:float(str(?price)) < ?avgPrice` or `SUM(xsd:double(str(?price)))` would otherwise make a
 * literal per row (the cast's canonical lexical form: for a float, the shortest digits that read
 * back as the same float32, several toExponential calls) only for the next operator to read its
 * number back. A numeric form covers the shapes analytic queries use — a float/double cast of a
 * variable or of STR(variable), a variable holding a float/double, a float/double constant — and
 * answers `undefined` whenever the value is anything else (another type, an unbound variable, a
 * lexical form the cast rejects): the caller then runs the ordinary expression, which gives the
 * same result or raises the same error, so the fast path never changes an answer.
 */
import { XSDT, parseDoubleLexical } from '../../rdf/datatypes.js';
import { numericValue } from '../../rdf/values.js';
import type { Expr } from '../algebra/algebra.js';
import type { QueryIds } from './ids.js';
import { UNBOUND } from './types.js';

/** A numeric form: the value as a JS number, or undefined ("use the ordinary expression"). */
export type NumFn = (f: { rows: Int32Array; off: number }) => number | undefined;

/** A compiled numeric form and the XSD type of its value ('any': float or double, per row). */
export interface NumForm { fn: NumFn; kind: 'float' | 'double' | 'any' }

/** The numeric form of `e`, when it has one. */
export function compileNum(e: Expr, ids: QueryIds, slot: (name: string) => number): NumForm | undefined {
  if (e.type === 'term') {
    const t = e.term;
    if (t.termType !== 'Literal') return undefined;
    const v = numericValue(t);
    if (!v || (v.kind !== 'float' && v.kind !== 'double')) return undefined;
    const num = v.num;
    return { fn: () => num, kind: v.kind };
  }
  if (e.type === 'var') {
    const s = slot(e.name);
    return {
      fn: (f) => {
        const id = f.rows[f.off + s]!;
        if (id === UNBOUND) return undefined;
        const v = numericValue(ids.term(id));
        return v && (v.kind === 'float' || v.kind === 'double') ? v.num : undefined;
      },
      kind: 'any',
    };
  }
  if (e.type !== 'call' || e.args.length !== 1 || (e.fn !== XSDT.float && e.fn !== XSDT.double)) return undefined;
  const float = e.fn === XSDT.float;
  const kind = float ? 'float' : 'double';
  const a = e.args[0]!;
  // xsd:float(STR(?x)): the text of an IRI or literal, parsed as the cast parses a string.
  if (a.type === 'call' && a.fn.toLowerCase() === 'str' && a.args.length === 1 && a.args[0]!.type === 'var') {
    const s = slot(a.args[0]!.name);
    return {
      fn: (f) => {
        const id = f.rows[f.off + s]!;
        if (id === UNBOUND) return undefined;
        const t = ids.term(id);
        if (t.termType === 'BlankNode') return undefined;
        const n = parseDoubleLexical(t.value.trim());
        return n === undefined ? undefined : float ? Math.fround(n) : n;
      },
      kind,
    };
  }
  // xsd:float(?x) of a float/double value keeps the number (rounded to float32 for a float cast).
  const inner = compileNum(a, ids, slot);
  if (!inner) return undefined;
  const g = inner.fn;
  return { fn: float ? (f) => { const n = g(f); return n === undefined ? undefined : Math.fround(n); } : g, kind };
}
