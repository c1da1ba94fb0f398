/**
 * Exact decimal arithmetic for xsd:decimal: a bigint mantissa scaled by a power of ten, so
 * "0.1" + "0.2" is exactly "0.3" (no binary float rounding).
 */
import { LedgraphError } from '../errors.js';

/** value = mant × 10^-scale; normalised so scale >= 0 and mant has no trailing zero when scale > 0. */
export interface Decimal { mant: bigint; scale: number }

/** Digits kept after the point by a non-terminating division (XPath asks for at least 18). */
export const DIVISION_SCALE = 24;

const DEC_RE = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/;

const pow10Cache: bigint[] = [];
/** 10^n as a bigint (n >= 0). */
export function pow10(n: number): bigint {
  if (n < 64) {
    let p = pow10Cache[n];
    if (p === undefined) { p = 10n ** BigInt(n); pow10Cache[n] = p; }
    return p;
  }
  return 10n ** BigInt(n);
}

const E8 = 100_000_000n;

/** Strip trailing zeros so equal values have one representation. */
export function decNormalize(mant: bigint, scale: number): Decimal {
  if (mant === 0n) return { mant: 0n, scale: 0 };
  // Eight zeros at a time first: a quotient at the division scale (an AVG) has up to ~20 to strip.
  while (scale >= 8 && mant % E8 === 0n) { mant /= E8; scale -= 8; }
  while (scale > 0 && mant % 10n === 0n) { mant /= 10n; scale--; }
  while (scale < 0) { mant *= 10n; scale++; }
  return { mant, scale };
}

/**
 * Parse a decimal numeral; with `allowExponent` also scientific notation (used to turn a double's
 * shortest string into an exact decimal). Returns undefined for anything else.
 */
export function decParse(s: string, allowExponent = false): Decimal | undefined {
  const m = DEC_RE.exec(s);
  if (!m) return undefined;
  const [, sign, int = '', frac = '', exp] = m;
  if (int === '' && frac === '') return undefined;
  if (exp !== undefined && !allowExponent) return undefined;
  let mant = BigInt((int || '0') + frac);
  if (sign === '-') mant = -mant;
  return decNormalize(mant, frac.length - (exp ? Number(exp) : 0));
}

/** An integer as a decimal. */
export function decFromBigInt(b: bigint): Decimal { return { mant: b, scale: 0 }; }

/** The decimal a finite JS number denotes, via its shortest round-trip digits (0.1 -> 0.1). */
export function decFromNumber(n: number): Decimal {
  if (!Number.isFinite(n)) throw new LedgraphError(400, 'err:db/BadRequest', `${n} is not a decimal value`);
  return decParse(String(n), true)!;
}

/** The nearest JS number. */
export function decToNumber(d: Decimal): number {
  return Number(decToPlain(d));
}

function align(a: Decimal, b: Decimal): [bigint, bigint, number] {
  if (a.scale === b.scale) return [a.mant, b.mant, a.scale];
  if (a.scale > b.scale) return [a.mant, b.mant * pow10(a.scale - b.scale), a.scale];
  return [a.mant * pow10(b.scale - a.scale), b.mant, b.scale];
}

/** -1, 0 or 1. */
export function decCompare(a: Decimal, b: Decimal): number {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** a + b. */
export function decAdd(a: Decimal, b: Decimal): Decimal { const [x, y, s] = align(a, b); return decNormalize(x + y, s); }
/** a - b. */
export function decSub(a: Decimal, b: Decimal): Decimal { const [x, y, s] = align(a, b); return decNormalize(x - y, s); }
/** a × b (exact). */
export function decMul(a: Decimal, b: Decimal): Decimal { return decNormalize(a.mant * b.mant, a.scale + b.scale); }
/** -a. */
export function decNeg(a: Decimal): Decimal { return { mant: -a.mant, scale: a.scale }; }
/** |a|. */
export function decAbs(a: Decimal): Decimal { return a.mant < 0n ? decNeg(a) : a; }
/** Is a zero? */
export function decIsZero(a: Decimal): boolean { return a.mant === 0n; }

/** a ÷ b, exact when it terminates within DIVISION_SCALE digits, else rounded half away from zero. Throws 400 on b = 0. */
export function decDiv(a: Decimal, b: Decimal): Decimal {
  if (b.mant === 0n) throw new LedgraphError(400, 'err:db/BadRequest', 'decimal division by zero');
  const scale = Math.max(DIVISION_SCALE, a.scale, b.scale);
  // a.mant/10^as ÷ b.mant/10^bs = (a.mant × 10^(scale + bs - as) / b.mant) / 10^scale
  const shift = scale + b.scale - a.scale;
  let num = a.mant * pow10(shift) * 10n; // one guard digit for rounding
  let den = b.mant;
  if (den < 0n) { num = -num; den = -den; }
  let q = num / den;
  const guard = q % 10n;
  q /= 10n;
  if (guard >= 5n) q += 1n;
  else if (guard <= -5n) q -= 1n;
  return decNormalize(q, scale);
}

/** Truncate toward zero to an integer. */
export function decTrunc(a: Decimal): bigint { return a.mant / pow10(a.scale); }

/** Largest integer <= a. */
export function decFloor(a: Decimal): bigint {
  const t = decTrunc(a);
  return a.mant < 0n && t * pow10(a.scale) !== a.mant ? t - 1n : t;
}

/** Smallest integer >= a. */
export function decCeil(a: Decimal): bigint {
  const t = decTrunc(a);
  return a.mant > 0n && t * pow10(a.scale) !== a.mant ? t + 1n : t;
}

/** fn:round: nearest integer, halves toward positive infinity (2.5 -> 3, -2.5 -> -2). */
export function decRound(a: Decimal): bigint {
  return decFloor(decAdd(a, { mant: 5n, scale: 1 }));
}

/** Digits without exponent; integral values have no point ("3", "-0.5"), as XPath casts to string. */
export function decToPlain(a: Decimal): string {
  const neg = a.mant < 0n;
  let digits = (neg ? -a.mant : a.mant).toString();
  if (a.scale === 0) return (neg ? '-' : '') + digits;
  if (digits.length <= a.scale) digits = '0'.repeat(a.scale - digits.length + 1) + digits;
  const cut = digits.length - a.scale;
  return (neg ? '-' : '') + digits.slice(0, cut) + '.' + digits.slice(cut);
}

/**
 * XSD 1.0 canonical decimal: always a point and at least one digit on each side ("3.0", "-0.5").
 * The form of computed decimals: arithmetic, SUM/AVG and casts (docs/sparql.md "Numeric results").
 */
export function decToCanonical(a: Decimal): string {
  const s = decToPlain(a);
  return a.scale === 0 ? s + '.0' : s;
}

/**
 * XSD 1.1 canonical decimal (decimalCanonicalMap): whole numbers without a point ("3", "-2"),
 * others as in XSD 1.0 ("-0.5"). The form of the decimals the §17.4 functions return
 * (ABS, CEIL, FLOOR, ROUND, SECONDS; docs/sparql.md "Numeric results").
 */
export function decToCanonical11(a: Decimal): string {
  return decToPlain(a);
}
