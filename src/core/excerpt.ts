/**
 * Short excerpts of request input for error messages: a parser error may quote what it choked on,
 * but never more than a line's worth, however large the body (a 95 MiB body must not come back as
 * a 95 MiB error).
 */

/** Longest quoted excerpt of input, in characters. */
export const EXCERPT_CHARS = 200;
/** Longest error message built around a third-party parser's text. */
export const MESSAGE_CHARS = 1000;

/** At most `max` characters of `text`, with an ellipsis when cut (a surrogate pair is never split). */
export function excerpt(text: string, max = EXCERPT_CHARS): string {
  if (text.length <= max) return text;
  let end = max;
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return text.slice(0, end) + '…';
}

/** A parser's own message, capped (some parsers quote the whole unexpected input). */
export function capMessage(msg: string, max = MESSAGE_CHARS): string {
  return excerpt(msg, max);
}

/** A value as JSON for an error message, cut to an excerpt (strings are cut before they are encoded). */
export function quote(value: unknown, max = EXCERPT_CHARS): string {
  if (typeof value === 'string') return JSON.stringify(excerpt(value, max));
  let s: string | undefined;
  try { s = JSON.stringify(value); } catch { s = String(value); }
  return excerpt(s ?? String(value), max);
}
