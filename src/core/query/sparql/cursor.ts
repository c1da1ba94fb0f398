/**
 * Token cursor and term helpers shared by the SPARQL grammar files: keyword and punctuation
 * matching, errors that point at the offending token, the prologue's prefixes and base, IRI and
 * literal construction, and fresh blank nodes for `[]` and collections.
 */
import { isLedgraphError, type LedgraphError } from '../../errors.js';
import { excerpt } from '../../excerpt.js';
import { blankNode, literal, namedNode, variable, type BlankNode, type Literal, type NamedNode, type Variable } from '../../rdf/terms.js';
import { xsd } from '../../rdf/vocab.js';
import { resolveIri } from '../exec/functions-term.js';
import { syntaxErrorAt, type Token } from './lexer.js';

export type GTerm = NamedNode | BlankNode | Literal | Variable;

export class Cursor {
  i = 0;
  base: string | undefined;
  readonly prefixes: Record<string, string>;
  private blanks = 0;

  constructor(readonly text: string, readonly toks: Token[], base: string | undefined, prefixes: Record<string, string>) {
    this.base = base;
    this.prefixes = { ...prefixes };
  }

  /** The token `k` ahead. */
  peek(k = 0): Token { return this.toks[Math.min(this.i + k, this.toks.length - 1)]!; }
  /** Consume and return the current token. */
  next(): Token {
    const t = this.toks[this.i]!;
    if (t.kind !== 'eof') this.i++;
    return t;
  }

  /** Is the token the keyword `w` (case-insensitive)? */
  isWord(w: string, k = 0): boolean {
    const t = this.peek(k);
    return t.kind === 'word' && t.value.toUpperCase() === w;
  }
  isPunct(p: string, k = 0): boolean {
    const t = this.peek(k);
    return t.kind === 'punct' && t.value === p;
  }
  eatWord(w: string): boolean { if (this.isWord(w)) { this.i++; return true; } return false; }
  eatPunct(p: string): boolean { if (this.isPunct(p)) { this.i++; return true; } return false; }
  expectWord(w: string): void { if (!this.eatWord(w)) throw this.error(`expected ${w}`); }
  expectPunct(p: string): void { if (!this.eatPunct(p)) throw this.error(`expected '${p}'`); }

  /** A syntax error at the current (or given) token. */
  error(msg: string, t: Token = this.peek()): LedgraphError {
    const found = t.kind === 'eof' ? 'end of query' : JSON.stringify(this.text.slice(t.start, t.end));
    return syntaxErrorAt(this.text, t.start, `${msg}, found ${found}`);
  }

  /** Resolve an IRI reference against the base. */
  iri(ref: string, t: Token): NamedNode {
    try {
      return namedNode(resolveIri(ref, this.base));
    } catch (e) {
      if (isLedgraphError(e)) throw e;
      // Without a base, a relative reference stays as written: `FROM <crm>` names a ledger.
      if (this.base === undefined) return namedNode(ref);
      throw syntaxErrorAt(this.text, t.start, `cannot resolve relative IRI <${ref}> against the base IRI`);
    }
  }

  /** Expand a prefixed name. */
  pname(t: Token): NamedNode {
    const ns = this.prefixes[t.prefix!];
    if (ns === undefined) throw syntaxErrorAt(this.text, t.start, `unknown prefix "${excerpt(t.prefix ?? '')}:"`);
    return namedNode(ns + t.value);
  }

  /** The current token as an IRI (IRIREF or prefixed name), or undefined. */
  tryIri(): NamedNode | undefined {
    const t = this.peek();
    if (t.kind === 'iri') { this.i++; return this.iri(t.value, t); }
    if (t.kind === 'pname') { this.i++; return this.pname(t); }
    return undefined;
  }
  expectIri(): NamedNode {
    const v = this.tryIri();
    if (!v) throw this.error('expected an IRI');
    return v;
  }

  /** A fresh blank node for `[]`, property lists and collections. */
  fresh(): BlankNode { return blankNode(`!${this.blanks++}`); }

  /** A variable token. */
  tryVar(): Variable | undefined {
    const t = this.peek();
    if (t.kind !== 'var') return undefined;
    this.i++;
    return variable(t.value);
  }

  /** A literal (string with optional tag/datatype, number, boolean), or undefined. Signed numbers allowed. */
  tryLiteral(signed = true): Literal | undefined {
    const t = this.peek();
    if (t.kind === 'string') {
      this.i++;
      const n = this.peek();
      if (n.kind === 'lang') { this.i++; return literal(t.value, n.value); }
      if (n.kind === 'punct' && n.value === '^^') { this.i++; return literal(t.value, this.expectIri()); }
      return literal(t.value);
    }
    if (t.kind === 'integer' || t.kind === 'decimal' || t.kind === 'double') { this.i++; return number(t.value, t.kind); }
    if (signed && t.kind === 'punct' && (t.value === '-' || t.value === '+')) {
      const n = this.peek(1);
      if ((n.kind === 'integer' || n.kind === 'decimal' || n.kind === 'double') && n.start === t.end) {
        this.i += 2;
        return number((t.value === '-' ? '-' : '+') + n.value, n.kind);
      }
    }
    if (this.isWord('TRUE') || this.isWord('FALSE')) {
      const v = this.next().value.toLowerCase();
      return literal(v, namedNode(xsd.boolean));
    }
    return undefined;
  }
}

function number(lex: string, kind: 'integer' | 'decimal' | 'double'): Literal {
  return literal(lex, namedNode(kind === 'integer' ? xsd.integer : kind === 'decimal' ? xsd.decimal : xsd.double));
}
