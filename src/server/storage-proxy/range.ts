/**
 * The single byte range of a `Range` header (RFC 9110 §14): `bytes=a-b`, `bytes=a-` and the suffix
 * form `bytes=-n`. Several ranges, other units or a malformed header are ignored (the whole object
 * is sent with 200, which RFC 9110 allows); a range starting past the end is unsatisfiable (416).
 */

/** What to send: everything, one inclusive range, or 416. */
export type RangeChoice = { kind: 'all' } | { kind: 'range'; start: number; end: number } | { kind: 'unsatisfiable' };

/** Interpret a Range header against an object of `size` bytes. */
export function chooseRange(header: string | undefined | null, size: number): RangeChoice {
  if (!header) return { kind: 'all' };
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return { kind: 'all' };
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0) return { kind: 'unsatisfiable' };
    return size === 0 ? { kind: 'unsatisfiable' } : { kind: 'range', start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? Infinity : Number(m[2]);
  if (!Number.isSafeInteger(start) || end < start) return { kind: 'all' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'range', start, end: Math.min(end, size - 1) };
}
