/**
 * The SPARQL 1.1 tokenizer (grammar §19.8 terminals). Codepoint escapes (\uXXXX, \UXXXXXXXX) are
 * replaced in one pass before tokenizing (§19.2), so an escape that produces a backslash never
 * starts another escape. Tokens keep their offset so errors can name a line and column and the
 * parser can tell `-1` (a signed number) from `- 1`.
 */
import { badRequest, type LedgraphError } from '../../errors.js';
import { capMessage } from '../../excerpt.js';
import { TimeSlice } from '../../util/next-turn.js';

export type TokKind =
  | 'iri' | 'pname' | 'bnode' | 'var' | 'string' | 'lang' | 'integer' | 'decimal' | 'double'
  | 'word' | 'punct' | 'nil' | 'anon' | 'eof';

export interface Token {
  kind: TokKind;
  /** Decoded value: IRI text, prefix:local (local unescaped), label, variable name, string content, word (as written), punctuation. */
  value: string;
  /** For pname: the prefix (without ':'). */
  prefix?: string;
  /** Offset in the (escape-processed) text. */
  start: number;
  end: number;
}

const PN_CHARS_BASE = 'A-Za-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
const PN_CHARS_U = PN_CHARS_BASE + '_';
const PN_CHARS = PN_CHARS_U + '\\-0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040';
const PN_PREFIX = `[${PN_CHARS_BASE}](?:[${PN_CHARS}.]*[${PN_CHARS}])?`;
const PLX = '%[0-9A-Fa-f]{2}|\\\\[_~.\\-!$&\'()*+,;=/?#@%]';
const PN_LOCAL = `(?:[${PN_CHARS_U}:0-9]|${PLX})(?:(?:[${PN_CHARS}.:]|${PLX})*(?:[${PN_CHARS}:]|${PLX}))?`;

const RE = {
  ws: /(?:\s+|#[^\n\r]*)+/y,
  iri: /<([^<>"{}|^`\\\u0000-\u0020]*)>/y,
  pname: new RegExp(`(${PN_PREFIX})?:(${PN_LOCAL})?`, 'uy'),
  bnode: new RegExp(`_:((?:[${PN_CHARS_U}0-9])(?:[${PN_CHARS}.]*[${PN_CHARS}])?)`, 'uy'),
  var: new RegExp(`[?$]((?:[${PN_CHARS_U}0-9])[${PN_CHARS_U}0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040]*)`, 'uy'),
  lang: /@([a-zA-Z]+(?:-[a-zA-Z0-9]+)*)/y,
  double: /(?:[0-9]+\.[0-9]*[eE][+-]?[0-9]+|\.[0-9]+[eE][+-]?[0-9]+|[0-9]+[eE][+-]?[0-9]+)/y,
  decimal: /[0-9]*\.[0-9]+/y,
  integer: /[0-9]+/y,
  word: /[A-Za-z_][A-Za-z0-9_]*/y,
  nil: /\((?:\s|#[^\n\r]*)*\)/y,
  anon: /\[(?:\s|#[^\n\r]*)*\]/y,
  punct: /\^\^|&&|\|\||!=|<=|>=|[{}()[\];,.=<>!+\-*/^|?]/y,
  string: /'''((?:'{0,2}(?:[^'\\]|\\[tbnrf"'\\]))*)'''|"""((?:"{0,2}(?:[^"\\]|\\[tbnrf"'\\]))*)"""|'((?:[^'\\\n\r]|\\[tbnrf"'\\])*)'|"((?:[^"\\\n\r]|\\[tbnrf"'\\])*)"/y,
};

const ESCAPES: Record<string, string> = { t: '\t', b: '\b', n: '\n', r: '\r', f: '\f', '"': '"', "'": "'", '\\': '\\' };

/** A syntax error at an offset of the text. */
export function syntaxErrorAt(text: string, offset: number, message: string): LedgraphError {
  return badRequest(`Invalid SPARQL query: syntax error${positionAt(text, offset)}: ${capMessage(message)}`);
}

/** ` at line L, column C` of an offset of the text. */
export function positionAt(text: string, offset: number): string {
  let line = 1, lineStart = 0;
  for (let k = 0; k < offset; k++) {
    const c = text.charCodeAt(k);
    if (c === 10 || (c === 13 && text.charCodeAt(k + 1) !== 10)) { line++; lineStart = k + 1; }
  }
  return ` at line ${line}, column ${offset - lineStart + 1}`;
}

const DELIMITER = /[\s{}();,.[\]^/|!]/;

/**
 * ` at line L, column C` of the first place `token` starts a token (at the start or after a
 * delimiter), or '' when it does not occur. No regular expression is built from the token, which
 * may be as long as the text.
 */
export function locateToken(text: string, token: string): string {
  const i = findToken(text, token);
  return i < 0 ? '' : positionAt(text, i);
}

/** Offset of the first place `token` starts a token (at the start or after a delimiter), or -1. */
export function findToken(text: string, token: string): number {
  for (let i = text.indexOf(token); i >= 0; i = text.indexOf(token, i + 1)) {
    if (i > 0 && !DELIMITER.test(text[i - 1]!)) continue;
    return i;
  }
  return -1;
}

/** Replace \u and \U codepoint escapes, once, left to right. */
export function unescapeCodepoints(text: string): string {
  if (!text.includes('\\u') && !text.includes('\\U')) return text;
  return text.replace(/\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})/g, (m, a: string | undefined, b: string | undefined, at: number) => {
    const cp = parseInt(a ?? b!, 16);
    if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) throw syntaxErrorAt(text, at, `invalid codepoint escape ${m}`);
    return String.fromCodePoint(cp);
  });
}

function unescapeString(s: string): string {
  return s.includes('\\') ? s.replace(/\\(.)/g, (_m, c: string) => ESCAPES[c]!) : s;
}

function unescapeLocal(s: string): string {
  return s.includes('\\') ? s.replace(/\\(.)/g, '$1') : s;
}

/** tokenize, giving the event loop a turn every `sliceMs` (long texts on a server). */
export async function tokenizeSliced(text: string, sliceMs = 2): Promise<Token[]> {
  const t = new Tokenizer(text);
  const slice = new TimeSlice(sliceMs);
  while (!t.run(512)) if (slice.due()) await slice.pause();
  return t.tokens;
}

/** Tokenize the whole (escape-processed) query text. */
export function tokenize(text: string): Token[] {
  const t = new Tokenizer(text);
  t.run(Infinity);
  return t.tokens;
}

/**
 * A tokenizer that can stop after a number of tokens and go on later, so a caller can give the
 * event loop a turn between slices of a long text (update.ts). `tokens` ends with an `eof` token
 * once `run` has returned true.
 */
export class Tokenizer {
  readonly tokens: Token[] = [];
  private i = 0;

  constructor(readonly text: string) {}

  /** Read up to `budget` more tokens; true when the text is done. */
  run(budget: number): boolean {
    const { text, tokens: out } = this;
    const n = text.length;
    let i = this.i;
    const at = (re: RegExp): RegExpExecArray | null => {
      re.lastIndex = i;
      return re.exec(text);
    };
    const push = (kind: TokKind, value: string, len: number, prefix?: string) => {
      const t: Token = { kind, value, start: i, end: i + len };
      if (prefix !== undefined) t.prefix = prefix;
      out.push(t);
      i += len;
    };
    for (let left = budget; left > 0; left--) {
      const ws = at(RE.ws);
      if (ws) i += ws[0].length;
      if (i >= n) {
        out.push({ kind: 'eof', value: '', start: n, end: n });
        this.i = i;
        return true;
      }
      const c = text.charCodeAt(i);
      let m: RegExpExecArray | null = null;
      if (c === 60 /* < */ && (m = at(RE.iri))) { push('iri', m[1]!, m[0].length); continue; }
      if ((c === 63 || c === 36) /* ? $ */ && (m = at(RE.var))) { push('var', m[1]!, m[0].length); continue; }
      if ((c === 34 || c === 39) /* " ' */) {
        m = at(RE.string);
        if (!m) throw syntaxErrorAt(text, i, 'unterminated or invalid string literal');
        push('string', unescapeString(m[1] ?? m[2] ?? m[3] ?? m[4] ?? ''), m[0].length);
        continue;
      }
      if (c === 64 /* @ */) {
        m = at(RE.lang);
        if (!m) throw syntaxErrorAt(text, i, 'invalid language tag');
        push('lang', m[1]!, m[0].length);
        continue;
      }
      if (c === 95 /* _ */ && text.charCodeAt(i + 1) === 58 /* : */) {
        m = at(RE.bnode);
        if (!m) throw syntaxErrorAt(text, i, 'invalid blank node label');
        push('bnode', m[1]!, m[0].length);
        continue;
      }
      if ((c >= 48 && c <= 57) || (c === 46 && /[0-9]/.test(text[i + 1] ?? ''))) {
        if ((m = at(RE.double))) { push('double', m[0], m[0].length); continue; }
        if ((m = at(RE.decimal))) { push('decimal', m[0], m[0].length); continue; }
        if ((m = at(RE.integer))) {
          // A prefixed name may start with a digit only in its local part, never here; but "1:" is no pname either.
          push('integer', m[0], m[0].length);
          continue;
        }
      }
      if ((m = at(RE.pname))) {
        push('pname', unescapeLocal(m[2] ?? ''), m[0].length, m[1] ?? '');
        continue;
      }
      if (c === 40 /* ( */ && (m = at(RE.nil))) { push('nil', '()', m[0].length); continue; }
      if (c === 91 /* [ */ && (m = at(RE.anon))) { push('anon', '[]', m[0].length); continue; }
      if ((m = at(RE.word))) { push('word', m[0], m[0].length); continue; }
      if ((m = at(RE.punct))) { push('punct', m[0], m[0].length); continue; }
      throw syntaxErrorAt(text, i, `unexpected character ${JSON.stringify(String.fromCodePoint(text.codePointAt(i)!))}`);
    }
    this.i = i;
    return false;
  }
}
