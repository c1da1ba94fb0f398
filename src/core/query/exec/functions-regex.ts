/**
 * XPath regular expressions (F&O §5.6) on JavaScript RegExp: translate the XPath dialect
 * (\i \c name classes, Unicode \d \w, class subtraction, the x and q flags) into a `u`-mode JS
 * pattern, and evaluate fn:replace's `$n` / `\$` replacement syntax.
 */
import { ExprError } from '../../rdf/expr-error.js';

const NAME_START = ':A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
const NAME_CHAR = NAME_START + '\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040';

/** A few Unicode blocks XPath's \p{IsX} names (JS has no block escapes). */
const BLOCKS: Record<string, string> = {
  BasicLatin: '\\u0000-\\u007F', 'Latin-1Supplement': '\\u0080-\\u00FF', 'LatinExtended-A': '\\u0100-\\u017F',
  'LatinExtended-B': '\\u0180-\\u024F', IPAExtensions: '\\u0250-\\u02AF', Greek: '\\u0370-\\u03FF',
  GreekandCoptic: '\\u0370-\\u03FF', Cyrillic: '\\u0400-\\u04FF', Armenian: '\\u0530-\\u058F', Hebrew: '\\u0590-\\u05FF',
  Arabic: '\\u0600-\\u06FF', Devanagari: '\\u0900-\\u097F', Thai: '\\u0E00-\\u0E7F', Hiragana: '\\u3040-\\u309F',
  Katakana: '\\u30A0-\\u30FF', CJKUnifiedIdeographs: '\\u4E00-\\u9FFF', HangulSyllables: '\\uAC00-\\uD7AF',
  GeneralPunctuation: '\\u2000-\\u206F', CurrencySymbols: '\\u20A0-\\u20CF', Arrows: '\\u2190-\\u21FF',
  MathematicalOperators: '\\u2200-\\u22FF', BoxDrawing: '\\u2500-\\u257F',
};

const SINGLE_ESCAPES = new Set(['n', 'r', 't', '\\', '|', '.', '?', '*', '+', '(', ')', '{', '}', '-', '[', ']', '^', '$']);
const isWs = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r';

class Translator {
  i = 0;
  constructor(readonly src: string, readonly extended: boolean, readonly dotAll: boolean) {}

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
      case 'i': return inClass ? NAME_START : `[${NAME_START}]`;
      case 'c': return inClass ? NAME_CHAR : `[${NAME_CHAR}]`;
      case 'I': if (inClass) this.fail('\\I inside a character class'); return `[^${NAME_START}]`;
      case 'C': if (inClass) this.fail('\\C inside a character class'); return `[^${NAME_CHAR}]`;
      case 'p': case 'P': {
        if (s[this.i] !== '{') this.fail('\\p without {');
        const end = s.indexOf('}', this.i);
        if (end < 0) this.fail('unterminated \\p{');
        const name = s.slice(this.i + 1, end);
        this.i = end + 1;
        if (name.startsWith('Is')) {
          const range = BLOCKS[name.slice(2)];
          if (!range) this.fail(`unsupported block ${name}`);
          if (c === 'P' && inClass) this.fail('\\P{Is...} inside a character class');
          return inClass ? range : c === 'p' ? `[${range}]` : `[^${range}]`;
        }
        if (!/^[A-Z][a-z]?$/.test(name)) this.fail(`unknown category ${name}`);
        return `\\${c}{${name}}`;
      }
      // Word boundaries are not XPath, but Java-based stores accept them and queries use them.
      case 'b': case 'B': if (inClass) this.fail(`\\${c} inside a character class`); return '\\' + c;
      default:
        if (c >= '1' && c <= '9' && !inClass) return '\\' + c;
        return this.fail(`invalid escape \\${c}`);
    }
  }

  /** A character class at this.i, including XPath subtraction [a-z-[aeiou]]. */
  charClass(): string {
    const s = this.src;
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
    return sub === undefined ? cls : `(?:(?!${sub})${cls})`;
  }
}

/** Characters escaped when the q flag makes the whole pattern literal. */
function quote(s: string): string { return s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'); }

const cache = new Map<string, RegExp>();

/**
 * Compile an XPath pattern with XPath flags (s, m, i, x, q) into a JS RegExp (`u` mode, plus `g`
 * when `global`). Invalid patterns or flags throw ExprError.
 */
export function compileRegex(pattern: string, flags: string, global = false): RegExp {
  const key = pattern + '\u0000' + flags + (global ? 'g' : '');
  let re = cache.get(key);
  if (re) { re.lastIndex = 0; return re; }
  let js = 'u' + (global ? 'g' : '');
  for (const f of flags) {
    if (!'smixq'.includes(f)) throw new ExprError(`invalid regular expression flag ${JSON.stringify(f)}`);
    if ((f === 's' || f === 'm' || f === 'i') && !js.includes(f)) js += f;
  }
  const source = flags.includes('q') ? quote(pattern) : new Translator(pattern, flags.includes('x'), flags.includes('s')).run();
  try {
    re = new RegExp(source, js);
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
  const re = compileRegex(pattern, flags, true);
  if (compileRegex(pattern, flags).test('')) throw new ExprError(`REPLACE: pattern ${JSON.stringify(pattern)} matches the empty string`);
  const groups = new RegExp(re.source + '|', 'u').exec('')!.length - 1;
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
  re.lastIndex = 0;
  return text.replace(re, (...m: unknown[]) => {
    let out = '';
    for (const p of parts) out += typeof p === 'string' ? p : p <= groups ? (m[p] as string | undefined) ?? '' : '';
    return out;
  });
}
