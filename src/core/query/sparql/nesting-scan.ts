/**
 * A linear pre-scan of SPARQL text for bracket nesting, run before any parser: both the fast parser
 * (grammar.ts) and sparqljs recurse once per `{`, `(` or `[`, and sparqljs also slows down
 * quadratically with depth, so text nested past the limit is refused here in one pass. It knows
 * just enough of the lexical grammar (§19.8) not to count brackets inside strings, IRIs and
 * comments; where it cannot tell (an unterminated string) it keeps counting, so it may only
 * over-count, never let deeper text through.
 */
import { inputLimits, shapeLimitError } from '../../limits.js';
import { unescapeCodepoints, type Token } from './lexer.js';
import type { Steps } from './steps.js';

// IRIREF (§19.8 [139]): no brackets of ours can hide inside, and `<` that does not match is an operator.
const IRI = /<[^<>"{}|^`\\\u0000-\u0020]*>/y;

/** The deepest bracket nesting of `text`, giving up (returning a value above `limit`) once it passes `limit`. */
export function sparqlNestingDepth(text: string, limit = Infinity): number {
  let depth = 0, max = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    switch (c) {
      case 123: case 40: case 91: // { ( [
        if (++depth > max && (max = depth) > limit) return max;
        i++;
        break;
      case 125: case 41: case 93: // } ) ]
        if (depth > 0) depth--;
        i++;
        break;
      case 35: { // # comment to the end of the line
        let j = i + 1;
        while (j < n && text.charCodeAt(j) !== 10 && text.charCodeAt(j) !== 13) j++;
        i = j;
        break;
      }
      case 60: { // < IRI, or the operator
        IRI.lastIndex = i;
        i = IRI.test(text) ? IRI.lastIndex : i + 1;
        break;
      }
      case 34: case 39: // " '
        i = skipString(text, i, c);
        break;
      default:
        i++;
    }
  }
  return max;
}

/** Index after the string starting at `i`, or `i + 1` when it is not a well-formed string. */
function skipString(text: string, i: number, q: number): number {
  const n = text.length;
  const long = text.charCodeAt(i + 1) === q && text.charCodeAt(i + 2) === q;
  let j = long ? i + 3 : i + 1;
  while (j < n) {
    const c = text.charCodeAt(j);
    if (c === 92) { j += 2; continue; } // backslash escape
    if (c === q) {
      if (!long) return j + 1;
      if (text.charCodeAt(j + 1) === q && text.charCodeAt(j + 2) === q) return j + 3;
    } else if (!long && (c === 10 || c === 13)) {
      break; // a short string cannot span lines
    }
    j++;
  }
  return i + 1;
}

/**
 * Refuse SPARQL text nested deeper than maxNestingDepth (400). Codepoint escapes become characters
 * before SPARQL is tokenized (§19.2), so text that has them is scanned in that form too.
 */
export function checkSparqlNesting(text: string, what = 'SPARQL text'): void {
  const limit = inputLimits().maxNestingDepth;
  let depth = sparqlNestingDepth(text, limit);
  if (depth <= limit && (text.includes('\\u') || text.includes('\\U'))) {
    let unescaped: string | undefined;
    try { unescaped = unescapeCodepoints(text); } catch { /* the parser reports the bad escape */ }
    if (unescaped !== undefined) depth = Math.max(depth, sparqlNestingDepth(unescaped, limit));
  }
  if (depth > limit) throw shapeLimitError('maxNestingDepth', `${what} is nested too deeply in { }, ( ) or [ ]`);
}

/**
 * checkSparqlNesting over the tokens of an (escape-processed) text, in steps: where a long text is
 * tokenized in slices anyway, the limit is checked without a second pass over the characters in
 * one piece. `()` and `[]` are one token each but one level deeper, as in the text.
 */
export function* checkTokenNesting(toks: Token[], what: string): Steps<void> {
  const limit = inputLimits().maxNestingDepth;
  let depth = 0;
  for (let k = 0; k < toks.length; k++) {
    if ((k & 1023) === 1023) yield;
    const t = toks[k]!, b = bracketOf(t);
    if (b < 0) { if (depth > 0) depth--; continue; }
    const reached = b > 0 ? ++depth : t.kind === 'nil' || t.kind === 'anon' ? depth + 1 : 0;
    if (reached > limit) throw shapeLimitError('maxNestingDepth', `${what} is nested too deeply in { }, ( ) or [ ]`);
  }
}

/** +1 for a token that opens a bracket (`{ ( [`), -1 for one that closes one, 0 for any other. */
export function bracketOf(t: Token): number {
  if (t.kind !== 'punct') return 0;
  const v = t.value;
  return v === '{' || v === '(' || v === '[' ? 1 : v === '}' || v === ')' || v === ']' ? -1 : 0;
}
