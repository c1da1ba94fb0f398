/**
 * Numeric operators and functions (SPARQL 1.1 §17.3 / §17.4.4 via XPath op:numeric-*): type
 * promotion integer < decimal < float < double, integer ÷ integer gives a decimal, division by
 * zero is an error for integer/decimal and IEEE (INF/NaN) for float/double. Operators return XSD
 * 1.0 canonical forms ("3.0"^^xsd:decimal); the functions ABS, CEIL, FLOOR and ROUND return XSD
 * 1.1 canonical forms ("3"^^xsd:decimal) — docs/sparql.md "Numeric results".
 */
import { type NumericKind, promoteNumeric } from '../../rdf/datatypes.js';
import {
  type Decimal, decAbs, decAdd, decCeil, decDiv, decFloor, decFromBigInt, decMul, decNeg, decRound, decSub,
} from '../../rdf/decimal.js';
import { ExprError } from '../../rdf/expr-error.js';
import type { Term } from '../../rdf/terms.js';
import { type NumericValue, doubleLiteral, numericLiteral, numericLiteral11, numericToDecimal, numericToNumber } from '../../rdf/values.js';
import { type FunctionDef, def, numArg } from './functions-common.js';

type Op = '+' | '-' | '*' | '/';

function dec(d: Decimal): NumericValue { return { kind: 'decimal', mant: d.mant, scale: d.scale }; }

function decimalOp(op: Op, x: Decimal, y: Decimal): Decimal {
  switch (op) {
    case '+': return decAdd(x, y);
    case '-': return decSub(x, y);
    case '*': return decMul(x, y);
    case '/':
      if (y.mant === 0n) throw new ExprError('division by zero');
      return decDiv(x, y);
  }
}

/** a op b on numeric values with XPath promotion; throws ExprError on integer/decimal division by zero. */
export function arithmetic(op: Op, a: NumericValue, b: NumericValue): NumericValue {
  let k: NumericKind = promoteNumeric(a.kind, b.kind);
  if (op === '/' && k === 'integer') k = 'decimal';
  switch (k) {
    case 'integer': {
      const x = (a as { big: bigint }).big, y = (b as { big: bigint }).big;
      return { kind: 'integer', big: op === '+' ? x + y : op === '-' ? x - y : x * y };
    }
    case 'decimal': return dec(decimalOp(op, numericToDecimal(a), numericToDecimal(b)));
    case 'float': case 'double': {
      let x = numericToNumber(a), y = numericToNumber(b);
      if (k === 'float') { x = Math.fround(x); y = Math.fround(y); }
      const r = op === '+' ? x + y : op === '-' ? x - y : op === '*' ? x * y : x / y;
      return k === 'float' ? { kind: 'float', num: Math.fround(r) } : { kind: 'double', num: r };
    }
  }
}

/** Unary minus, keeping the primitive type. */
export function negate(v: NumericValue): NumericValue {
  switch (v.kind) {
    case 'integer': return { kind: 'integer', big: -v.big };
    case 'decimal': return dec(decNeg(v));
    default: return { kind: v.kind, num: -v.num };
  }
}

/** abs/ceil/floor/round keep the primitive type of the argument (xsd:int -> xsd:integer). */
function rounding(kind: 'abs' | 'ceil' | 'floor' | 'round', v: NumericValue): NumericValue {
  switch (v.kind) {
    case 'integer': return kind === 'abs' && v.big < 0n ? { kind: 'integer', big: -v.big } : { kind: 'integer', big: v.big };
    case 'decimal': {
      if (kind === 'abs') return dec(decAbs(v));
      const f = kind === 'ceil' ? decCeil : kind === 'floor' ? decFloor : decRound;
      return dec(decFromBigInt(f(v)));
    }
    default: {
      // Math.round rounds halves toward +∞, as fn:round requires (round(-2.5) = -2), and keeps -0.
      const f = kind === 'abs' ? Math.abs : kind === 'ceil' ? Math.ceil : kind === 'floor' ? Math.floor : Math.round;
      return { kind: v.kind, num: f(v.num) };
    }
  }
}

function binary(op: Op): FunctionDef {
  return def(2, 2, ([a, b]) => numericLiteral(arithmetic(op, numArg(a!, op), numArg(b!, op))));
}

function unary(name: 'abs' | 'ceil' | 'floor' | 'round'): FunctionDef {
  return def(1, 1, ([a]) => numericLiteral11(rounding(name, numArg(a!, name))));
}

/** `-` and `+` double as unary minus/plus when given one argument. */
function signOrBinary(op: '+' | '-'): FunctionDef {
  return def(1, 2, (args) => {
    if (args.length === 2) return numericLiteral(arithmetic(op, numArg(args[0]!, op), numArg(args[1]!, op)));
    const v = numArg(args[0]!, op);
    return numericLiteral(op === '-' ? negate(v) : v);
  });
}

/** The numeric operator/function entries of the registry. */
export const NUMERIC_FUNCTIONS: Record<string, FunctionDef> = {
  '+': signOrBinary('+'),
  '-': signOrBinary('-'),
  '*': binary('*'),
  '/': binary('/'),
  neg: def(1, 1, ([a]) => numericLiteral(negate(numArg(a!, 'unary -')))),
  pos: def(1, 1, ([a]) => numericLiteral(numArg(a!, 'unary +'))),
  abs: unary('abs'),
  ceil: unary('ceil'),
  floor: unary('floor'),
  round: unary('round'),
  rand: def(0, 0, (): Term => doubleLiteral(Math.random())),
};
