/**
 * XPath regular expressions (F&O §5.6) on RE2 (the `re2js` port): matching takes time linear in
 * the text, so no pattern can make a query backtrack for seconds (`^(a+)+$` is as cheap as `^a+$`).
 * The XPath dialect (\i \c name classes, Unicode \d \w, \p{IsBlock}, class subtraction, the
 * s m i x q flags) is translated into RE2 syntax; fn:replace's `$n` / `\$` replacement syntax is
 * evaluated here. RE2 has no back-references, so a pattern with `\1`..`\9` is refused with an
 * error (docs/sparql.md). Class subtraction, which RE2 lacks too, is computed into explicit
 * code-point ranges once per pattern.
 */
import { RE2JS } from 're2js';
import { ExprError } from '../../rdf/expr-error.js';

/** Name classes of XML (\i: NameStartChar, \c: NameChar) as code-point ranges. */
const NAME_START_RANGES: [number, number][] = [
  [0x3a, 0x3a], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a], [0xc0, 0xd6], [0xd8, 0xf6], [0xf8, 0x2ff], [0x370, 0x37d],
  [0x37f, 0x1fff], [0x200c, 0x200d], [0x2070, 0x218f], [0x2c00, 0x2fef], [0x3001, 0xd7ff], [0xf900, 0xfdcf],
  [0xfdf0, 0xfffd], [0x10000, 0xeffff],
];
const NAME_CHAR_RANGES: [number, number][] = [
  ...NAME_START_RANGES, [0x2d, 0x2e], [0x30, 0x39], [0xb7, 0xb7], [0x300, 0x36f], [0x203f, 0x2040],
];

/** The pattern syntax a translation is written in: RE2 for matching, JS (`u` mode) to compute subtractions. */
type Dialect = 're2' | 'js';

function hex(cp: number, d: Dialect): string {
  return d === 're2' ? `\\x{${cp.toString(16)}}` : `\\u{${cp.toString(16)}}`;
}

/** Ranges as the body of a character class. */
function rangesBody(ranges: readonly [number, number][], d: Dialect): string {
  return ranges.map(([lo, hi]) => (lo === hi ? hex(lo, d) : hex(lo, d) + '-' + hex(hi, d))).join('');
}

const NAME_START = (d: Dialect) => rangesBody(NAME_START_RANGES, d);
const NAME_CHAR = (d: Dialect) => rangesBody(NAME_CHAR_RANGES, d);

/** A few Unicode blocks XPath's \p{IsX} names (JS has no block escapes). */
const BLOCKS: Record<string, [number, number]> = {
  BasicLatin: [0x0000, 0x007F], 'Latin-1Supplement': [0x0080, 0x00FF], 'LatinExtended-A': [0x0100, 0x017F],
  'LatinExtended-B': [0x0180, 0x024F], IPAExtensions: [0x0250, 0x02AF], Greek: [0x0370, 0x03FF],
  GreekandCoptic: [0x0370, 0x03FF], Cyrillic: [0x0400, 0x04FF], Armenian: [0x0530, 0x058F],
  Hebrew: [0x0590, 0x05FF], Arabic: [0x0600, 0x06FF], Devanagari: [0x0900, 0x097F], Thai: [0x0E00, 0x0E7F],
  Hiragana: [0x3040, 0x309F], Katakana: [0x30A0, 0x30FF], CJKUnifiedIdeographs: [0x4E00, 0x9FFF],
  HangulSyllables: [0xAC00, 0xD7AF], GeneralPunctuation: [0x2000, 0x206F], CurrencySymbols: [0x20A0, 0x20CF],
  Arrows: [0x2190, 0x21FF], MathematicalOperators: [0x2200, 0x22FF], BoxDrawing: [0x2500, 0x257F],
};

const SINGLE_ESCAPES = new Set(['n', 'r', 't', '\\', '|', '.', '?', '*', '+', '(', ')', '{', '}', '-', '[', ']', '^', '$']);
const isWs = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r';

class Translator {
  i = 0;
  constructor(readonly src: string, readonly extended: boolean, readonly dotAll: boolean, readonly dialect: Dialect) {}

  fail(msg: string): never { throw new ExprError(`invalid regular expression ${JSON.stringify(this.src)}: ${msg}`); }

  /** The whole pattern. */
  run(): string {
    let out = '';
    const s = this.src;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (this.extended && isWs(c)) { this.i++; continue; }
      if (c === '\\') out += this.escape(false);
      else if (c === '[') out += this.charClass();
      // Without s, XPath's . excludes only \n and \r (JS's also excludes U+2028/U+2029).
      else if (c === '.') { out += this.dotAll ? '.' : '[^\\n\\r]'; this.i++; }
      else { out += c; this.i++; }
    }
    return out;
  }

  /** An escape at this.i; `inClass` selects the form usable inside [...]. */
  escape(inClass: boolean): string {
    const s = this.src;
    const c = s[this.i + 1];
    if (c === undefined) this.fail('trailing backslash');
    this.i += 2;
    if (SINGLE_ESCAPES.has(c)) {
      if (c === '-') return inClass ? '\\-' : '-';
      return '\\' + c;
    }
    switch (c) {
      case 'd': return '\\p{Nd}';
      case 'D': return '\\P{Nd}';
      case 's': return inClass ? ' \\t\\n\\r' : '[ \\t\\n\\r]';
      case 'S': return inClass ? '\\S' : '[^ \\t\\n\\r]';
      // \w is everything but punctuation, separators and "other": exactly letters, marks, numbers, symbols.
      case 'w': return inClass ? '\\p{L}\\p{M}\\p{N}\\p{S}' : '[\\p{L}\\p{M}\\p{N}\\p{S}]';
      case 'W': return inClass ? '\\p{P}\\p{Z}\\p{C}' : '[\\p{P}\\p{Z}\\p{C}]';
      case 'i': return inClass ? NAME_START(this.dialect) : `[${NAME_START(this.dialect)}]`;
      case 'c': return inClass ? NAME_CHAR(this.dialect) : `[${NAME_CHAR(this.dialect)}]`;
      case 'I': if (inClass) this.fail('\\I inside a character class'); return `[^${NAME_START(this.dialect)}]`;
      case 'C': if (inClass) this.fail('\\C inside a character class'); return `[^${NAME_CHAR(this.dialect)}]`;
      case 'p': case 'P': {
        if (s[this.i] !== '{') this.fail('\\p without {');
        const end = s.indexOf('}', this.i);
        if (end < 0) this.fail('unterminated \\p{');
        const name = s.slice(this.i + 1, end);
        this.i = end + 1;
        if (name.startsWith('Is')) {
          const block = BLOCKS[name.slice(2)];
          if (!block) this.fail(`unsupported block ${name}`);
          const range = rangesBody([block], this.dialect);
          if (c === 'P' && inClass) this.fail('\\P{Is...} inside a character class');
          return inClass ? range : c === 'p' ? `[${range}]` : `[^${range}]`;
        }
        if (!/^[A-Z][a-z]?$/.test(name)) this.fail(`unknown category ${name}`);
        return `\\${c}{${name}}`;
      }
      // Word boundaries are not XPath, but Java-based stores accept them and queries use them.
      case 'b': case 'B': if (inClass) this.fail(`\\${c} inside a character class`); return '\\' + c;
      default:
        if (c >= '1' && c <= '9' && !inClass) {
          if (this.dialect === 'js') return '\\' + c;
          return this.fail(`back-reference \\${c}: back-references are not supported (regular expressions run on a linear-time engine)`);
        }
        return this.fail(`invalid escape \\${c}`);
    }
  }

  /** A character class at this.i, including XPath subtraction [a-z-[aeiou]]. */
  charClass(): string {
    const s = this.src;
    const start = this.i;
    this.i++; // '['
    let neg = false;
    if (s[this.i] === '^') { neg = true; this.i++; }
    let body = '';
    let sub: string | undefined;
    for (;;) {
      const c = s[this.i];
      if (c === undefined) this.fail('unterminated character class');
      if (c === ']') { this.i++; break; }
      if (c === '-' && s[this.i + 1] === '[') {
        this.i++;
        sub = this.charClass();
        if (s[this.i] !== ']') this.fail('subtraction must end the class');
        this.i++;
        break;
      }
      if (c === '\\') body += this.escape(true);
      else if (c === '[') this.fail('unescaped [ in a character class');
      else { body += c; this.i++; }
    }
    if (body === '') this.fail('empty character class');
    const cls = `[${neg ? '^' : ''}${body}]`;
    if (sub === undefined) return cls;
    if (this.dialect === 'js') return `(?:(?!${sub})${cls})`;
    // RE2 has no subtraction (nor lookahead): list the code points the JS form accepts.
    const js = new Translator(s, this.extended, this.dotAll, 'js');
    js.i = start;
    return subtractedClass(js.charClass());
  }
}

/** Classes with subtraction, as explicit RE2 classes, by their JS form. */
const subtracted = new Map<string, string>();

/** The code points a one-character JS pattern accepts, as an RE2 character class. */
function subtractedClass(jsClass: string): string {
  let out = subtracted.get(jsClass);
  if (out !== undefined) return out;
  const re = new RegExp('^' + jsClass + '$', 'u');
  const ranges: [number, number][] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp === 0xd800) cp = 0xe000; // lone surrogates are no characters of a string's text
    if (!re.test(String.fromCodePoint(cp))) continue;
    const last = ranges[ranges.length - 1];
    if (last && last[1] === cp - 1) last[1] = cp; else ranges.push([cp, cp]);
  }
  // An empty set must still be a class that matches nothing.
  out = ranges.length ? `[${rangesBody(ranges, 're2')}]` : '[^\\x{0}-\\x{10ffff}]';
  if (subtracted.size > 64) subtracted.clear();
  subtracted.set(jsClass, out);
  return out;
}

const cache = new Map<string, RE2JS>();

/**
 * Compile an XPath pattern with XPath flags (s, m, i, x, q) into an RE2 program. Invalid patterns
 * or flags, and back-references, throw ExprError.
 */
export function compileRegex(pattern: string, flags: string): RE2JS {
  const key = pattern + '\u0000' + flags;
  let re = cache.get(key);
  if (re) return re;
  let f = 0;
  for (const c of flags) {
    if (!'smixq'.includes(c)) throw new ExprError(`invalid regular expression flag ${JSON.stringify(c)}`);
    if (c === 's') f |= RE2JS.DOTALL;
    else if (c === 'm') f |= RE2JS.MULTILINE;
    else if (c === 'i') f |= RE2JS.CASE_INSENSITIVE;
  }
  const source = flags.includes('q') ? RE2JS.quote(pattern) : new Translator(pattern, flags.includes('x'), flags.includes('s'), 're2').run();
  try {
    re = RE2JS.compile(source, f);
  } catch (e) {
    throw new ExprError(`invalid regular expression ${JSON.stringify(pattern)}: ${(e as Error).message}`);
  }
  if (cache.size > 512) cache.clear();
  cache.set(key, re);
  return re;
}

/** fn:matches. */
export function regexMatches(text: string, pattern: string, flags: string): boolean {
  return compileRegex(pattern, flags).test(text);
}

/**
 * fn:replace: every non-overlapping match replaced; `$n` in the replacement is group n (the
 * longest digit run naming an existing group; a missing group gives ""), `\$` and `\\` are
 * literal. A pattern that matches the empty string is an error, as XPath requires.
 */
export function regexReplace(text: string, pattern: string, replacement: string, flags: string): string {
  const re = compileRegex(pattern, flags);
  if (re.test('')) throw new ExprError(`REPLACE: pattern ${JSON.stringify(pattern)} matches the empty string`);
  const groups = re.groupCount();
  const parts: (string | number)[] = [];
  if (flags.includes('q')) parts.push(replacement);
  else {
    let lit = '';
    for (let i = 0; i < replacement.length; i++) {
      const c = replacement[i]!;
      if (c === '\\') {
        const n = replacement[i + 1];
        if (n !== '\\' && n !== '$') throw new ExprError(`REPLACE: invalid replacement ${JSON.stringify(replacement)}`);
        lit += n; i++;
      } else if (c === '$') {
        let j = i + 1;
        if (!/[0-9]/.test(replacement[j] ?? '')) throw new ExprError(`REPLACE: invalid replacement ${JSON.stringify(replacement)}`);
        let n = Number(replacement[j++]);
        while (j < replacement.length && /[0-9]/.test(replacement[j]!) && n * 10 + Number(replacement[j]) <= groups) n = n * 10 + Number(replacement[j++]);
        if (lit) { parts.push(lit); lit = ''; }
        parts.push(n);
        i = j - 1;
      } else lit += c;
    }
    if (lit) parts.push(lit);
  }
  let out = '';
  let at = 0;
  for (const m of re.matchAll(text)) {
    const index = m.index ?? 0;
    out += text.slice(at, index);
    for (const p of parts) out += typeof p === 'string' ? p : p <= groups ? m[p] ?? '' : '';
    at = index + m[0].length;
  }
  return out + text.slice(at);
}
