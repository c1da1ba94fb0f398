/** Tokens of Cypher text (openCypher 9 lexical rules, the subset Ledgraph reads). */
import { syntaxError } from './errors.js';

export type TokKind = 'ident' | 'qident' | 'string' | 'int' | 'float' | 'param' | 'punct' | 'eof';
export interface Token { kind: TokKind; text: string; pos: number }

const PUNCT = ['<>', '<=', '>=', '=~', '..', '->', '<-', '+=', '(', ')', '[', ']', '{', '}', ',', ':', '.', '|', '=', '<', '>', '+', '-', '*', '/', '%', '^', ';', '$'];

function unescape(text: string, s: string, pos: number): string {
  return s.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_m, c: string) => {
    if (c.length === 5) return String.fromCharCode(parseInt(c.slice(1), 16));
    const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '\\': '\\', "'": "'", '"': '"' };
    if (map[c] === undefined) throw syntaxError(text, pos, `invalid escape \\${c}`);
    return map[c]!;
  });
}

/** Split Cypher text into tokens; line and block comments and whitespace are dropped. */
export function lex(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const ch = text[i]!;
    if (/\s/.test(ch)) { i++; continue; }
    if (text.startsWith('//', i)) { while (i < n && text[i] !== '\n') i++; continue; }
    if (text.startsWith('/*', i)) {
      const e = text.indexOf('*/', i + 2);
      if (e < 0) throw syntaxError(text, i, 'unterminated comment');
      i = e + 2; continue;
    }
    const start = i;
    if (ch === '"' || ch === "'") {
      i++;
      while (i < n && text[i] !== ch) i += text[i] === '\\' ? 2 : 1;
      if (i >= n) throw syntaxError(text, start, 'unterminated string');
      out.push({ kind: 'string', text: unescape(text, text.slice(start + 1, i), start), pos: start });
      i++; continue;
    }
    if (ch === '`') {
      const e = text.indexOf('`', i + 1);
      if (e < 0) throw syntaxError(text, start, 'unterminated quoted name');
      out.push({ kind: 'qident', text: text.slice(i + 1, e), pos: start });
      i = e + 1; continue;
    }
    const num = /^(?:0x[0-9a-fA-F]+|\d+\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+|\.\d+(?:[eE][+-]?\d+)?|\d+)/.exec(text.slice(i, i + 64));
    if (num && !(num[0].startsWith('.') && out.length && out[out.length - 1]!.kind !== 'punct')) {
      // `1..2` in a range: an integer followed by `..`
      let t = num[0];
      if (/^\d+\.\d/.test(t) && text.startsWith('..', i + t.indexOf('.'))) t = t.slice(0, t.indexOf('.'));
      out.push({ kind: /[.eE]/.test(t) && !t.startsWith('0x') ? 'float' : 'int', text: t, pos: start });
      i += t.length; continue;
    }
    if (/[A-Za-z_]/.test(ch)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i, i + 512))!;
      out.push({ kind: 'ident', text: m[0], pos: start });
      i += m[0].length; continue;
    }
    if (ch === '$') {
      const m = /^\$([A-Za-z_][A-Za-z0-9_]*|\d+)/.exec(text.slice(i, i + 512));
      if (!m) throw syntaxError(text, i, 'expected a parameter name after $');
      out.push({ kind: 'param', text: m[1]!, pos: start });
      i += m[0].length; continue;
    }
    const p = PUNCT.find((x) => text.startsWith(x, i));
    if (!p) throw syntaxError(text, i, `unexpected character '${ch}'`);
    out.push({ kind: 'punct', text: p, pos: start });
    i += p.length;
  }
  out.push({ kind: 'eof', text: '', pos: n });
  return out;
}
