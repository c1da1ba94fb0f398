/**
 * The `INSERT DATA` / `DELETE DATA` blocks of a SPARQL update (§3.1.1-3.1.2, grammar [48]-[52]),
 * parsed without sparqljs. sparqljs costs about 0.15 ms per triple and cannot stop halfway, so a
 * 20,000-triple INSERT DATA held the event loop for 3 s; here the text is tokenized and the blocks
 * parsed in generator steps (a `yield` every few hundred tokens), so the caller can give the event
 * loop a turn between steps (update.ts). The rest of the request (the skeleton, with the blocks'
 * insides blanked out) is small and still goes to sparqljs.
 *
 * The parse produces sparqljs's triples (same order; blank node labels `e_<label>` as written,
 * `g_<n>` for `[]` and collections), so update.ts maps both the same way. Tests compare the two
 * parsers on every W3C update text and on generated blocks.
 */
import type * as S from 'sparqljs';
import { badRequest, isLedgraphError, type LedgraphError } from '../../errors.js';
import { excerpt } from '../../excerpt.js';
import { shapeLimitError, inputLimits } from '../../limits.js';
import { blankNode, literal, namedNode, type BlankNode, type Literal, type NamedNode } from '../../rdf/terms.js';
import { rdf, xsd } from '../../rdf/vocab.js';
import { Cursor, type GTerm } from './cursor.js';
import { positionAt, type Token } from './lexer.js';

/** An INSERT DATA or DELETE DATA block: token indexes of its `{` and of the matching `}` (or of eof). */
export interface DataBlock { kind: 'insert' | 'delete'; open: number; close: number }

/** Tokens read between two steps of a block parse. */
const STEP_TOKENS = 256;

const RDF_TYPE = namedNode(rdf.type);
const RDF_FIRST = namedNode(rdf.first);
const RDF_REST = namedNode(rdf.rest);
const RDF_NIL = namedNode(rdf.nil);

function updateError(text: string, t: Token, msg: string): LedgraphError {
  return badRequest(`Invalid SPARQL update: ${msg}${positionAt(text, t.start)}`);
}

/**
 * One pass over the tokens: refuses nesting deeper than the limit (as nesting-scan.ts does for
 * text), finds the DATA blocks and refuses what their grammar rules out before anything is parsed:
 * variables in either, blank nodes (`_:x`, `[]`, `[ ... ]`, collections) in DELETE DATA.
 */
export function* scanTokens(text: string, toks: Token[]): Generator<void, DataBlock[]> {
  const limit = inputLimits().maxNestingDepth;
  const blocks: DataBlock[] = [];
  const open: number[] = []; // token indexes of the unclosed `{` of each level
  let block: DataBlock | undefined, blockDepth = 0;
  for (let k = 0; k < toks.length; k++) {
    if ((k & 1023) === 1023) yield;
    const t = toks[k]!;
    if (t.kind === 'punct') {
      const v = t.value;
      if (v === '{' || v === '(' || v === '[') {
        open.push(k);
        if (open.length > limit) throw shapeLimitError('maxNestingDepth', 'the SPARQL update is nested too deeply in { }, ( ) or [ ]');
        if (v === '{' && !block && isDataStart(toks, k)) {
          block = { kind: toks[k - 2]!.value.toUpperCase() === 'INSERT' ? 'insert' : 'delete', open: k, close: -1 };
          blockDepth = open.length;
        } else if (block?.kind === 'delete' && v !== '{') {
          throw updateError(text, t, 'blank nodes are not allowed in DELETE DATA');
        }
      } else if (v === '}' || v === ')' || v === ']') {
        if (block && v === '}' && open.length === blockDepth) {
          block.close = k;
          blocks.push(block);
          block = undefined;
        }
        open.pop();
      }
    } else if ((t.kind === 'nil' || t.kind === 'anon') && open.length + 1 > limit) {
      throw shapeLimitError('maxNestingDepth', 'the SPARQL update is nested too deeply in { }, ( ) or [ ]');
    } else if (block) {
      if (t.kind === 'var') {
        const graph = toks[k - 1]!.kind === 'word' && toks[k - 1]!.value.toUpperCase() === 'GRAPH';
        throw updateError(text, t, graph ? 'a variable graph name is not allowed in INSERT DATA or DELETE DATA'
          : `variables are not allowed in ${block.kind === 'insert' ? 'INSERT' : 'DELETE'} DATA`);
      }
      if (block.kind === 'delete' && (t.kind === 'bnode' || t.kind === 'anon')) throw updateError(text, t, 'blank nodes are not allowed in DELETE DATA');
    }
  }
  if (block) { block.close = toks.length - 1; blocks.push(block); } // unterminated: the parse reports it
  return blocks;
}

/** `INSERT DATA {` or `DELETE DATA {` ending at token k. */
function isDataStart(toks: Token[], k: number): boolean {
  const d = toks[k - 1], w = toks[k - 2];
  if (!d || !w || d.kind !== 'word' || w.kind !== 'word' || d.value.toUpperCase() !== 'DATA') return false;
  const kw = w.value.toUpperCase();
  return kw === 'INSERT' || kw === 'DELETE';
}

/** Receives the triples of one statement and the graph they belong to (undefined: the default graph). */
export type TripleSink = (triples: S.Triple[], graph: NamedNode | undefined) => void;

/**
 * Parses the DATA blocks of one request. Walks the tokens in order so each block sees the
 * PREFIX and BASE declarations that precede it (a prologue may open every operation).
 */
export class DataGrammar extends Cursor {
  private blankCount = 0;
  private mark = 0;

  /** Parse every block, in order; `sink(n)` gets the n-th block's sink. */
  *blocks(blocks: DataBlock[], sink: (n: number) => TripleSink): Generator<void, void> {
    let b = 0;
    while (this.peek().kind !== 'eof') {
      if (b < blocks.length && this.i === blocks[b]!.open) {
        yield* this.quadData(sink(b));
        b++;
        continue;
      }
      if (this.i - this.mark >= STEP_TOKENS * 4) { this.mark = this.i; yield; }
      if (!this.declaration()) this.i++;
    }
  }

  /** A BASE or PREFIX declaration at the cursor, applied; false (nothing consumed) when there is none. */
  private declaration(): boolean {
    const t = this.peek(), a = this.peek(1), b = this.peek(2);
    if (t.kind !== 'word') return false;
    const w = t.value.toUpperCase();
    if (w === 'BASE' && a.kind === 'iri') {
      this.base = this.iri(a.value, a).value;
      this.i += 2;
      return true;
    }
    if (w === 'PREFIX' && a.kind === 'pname' && a.value === '' && b.kind === 'iri') {
      this.prefixes[a.prefix!] = this.iri(b.value, b).value;
      this.i += 3;
      return true;
    }
    return false;
  }

  /** QuadData [49]-[52]: `{ TriplesTemplate? ( GRAPH VarOrIri { TriplesTemplate? } '.'? TriplesTemplate? )* }`. */
  private *quadData(sink: TripleSink): Generator<void, void> {
    this.expectPunct('{');
    for (;;) {
      if (this.isPunct('}')) break;
      if (this.eatWord('GRAPH')) {
        const g = this.expectIri();
        this.expectPunct('{');
        yield* this.triplesTemplate(g, sink);
        this.expectPunct('}');
        this.eatPunct('.');
        continue;
      }
      yield* this.triplesTemplate(undefined, sink);
      if (!this.isPunct('}') && !this.isWord('GRAPH')) throw this.error("expected '.', GRAPH or '}'");
    }
    this.expectPunct('}');
  }

  /** TriplesTemplate [52]: statements separated by `.`, up to `}` or GRAPH. */
  private *triplesTemplate(graph: NamedNode | undefined, sink: TripleSink): Generator<void, void> {
    while (!this.isPunct('}') && !this.isWord('GRAPH')) {
      const out: S.Triple[] = [];
      yield* this.triplesSameSubject(out);
      sink(out, graph);
      if (!this.eatPunct('.')) break;
    }
  }

  /*
   * The statement grammar below follows grammar.ts (triplesSameSubject and what it calls) with
   * paths and variables left out, and the same triple order, but as generators: one statement
   * (`<s> <p> 1, 2, 3, ...` or a long collection) can be as long as the request, and it must
   * be able to pause in the middle too.
   */

  private *triplesSameSubject(out: S.Triple[]): Generator<void, void> {
    if (this.isPunct('[') || this.isPunct('(')) {
      const subj: S.Triple[] = [];
      const s = yield* this.triplesNode(subj);
      if (!this.isPunct('.') && !this.isPunct('}') && !this.isWord('GRAPH')) yield* this.propertyList(s, out, false);
      for (const t of subj) out.push(t);
      return;
    }
    const s = this.term();
    yield* this.propertyList(s, out, true);
  }

  private *propertyList(s: GTerm, out: S.Triple[], required: boolean): Generator<void, void> {
    const nested: S.Triple[] = [];
    let first = true;
    for (;;) {
      const verb = this.verb();
      if (!verb) {
        if (first && required) throw this.error('expected a predicate');
        break;
      }
      first = false;
      do {
        const o = yield* this.graphNode(nested);
        out.push({ subject: s, predicate: verb, object: o } as S.Triple);
        if (this.i - this.mark >= STEP_TOKENS) { this.mark = this.i; yield; }
      } while (this.eatPunct(','));
      if (!this.eatPunct(';')) break;
      while (this.eatPunct(';')) { /* repeated semicolons are allowed */ }
    }
    for (const t of nested) out.push(t);
  }

  /** Verb [78] without variables: an IRI or `a`. */
  private verb(): NamedNode | undefined {
    const t = this.peek();
    if (t.kind === 'word' && t.value === 'a') { this.i++; return RDF_TYPE; }
    return this.tryIri();
  }

  private *graphNode(out: S.Triple[]): Generator<void, GTerm> {
    if (this.isPunct('[') || this.isPunct('(')) return yield* this.triplesNode(out);
    return this.term();
  }

  /** `[ property list ]` or a collection `( ... )`: returns its node, appends its triples. */
  private *triplesNode(out: S.Triple[]): Generator<void, GTerm> {
    if (this.eatPunct('[')) {
      const b = this.fresh();
      yield* this.propertyList(b, out, true);
      this.expectPunct(']');
      return b;
    }
    this.expectPunct('(');
    const items: GTerm[] = [];
    const inner: S.Triple[] = [];
    while (!this.eatPunct(')')) {
      items.push(yield* this.graphNode(inner));
      if (this.i - this.mark >= STEP_TOKENS) { this.mark = this.i; yield; }
    }
    if (!items.length) throw this.error('empty collection');
    const nodes = items.map(() => this.fresh());
    items.forEach((it, k) => {
      out.push({ subject: nodes[k]!, predicate: RDF_FIRST, object: it } as unknown as S.Triple);
      out.push({ subject: nodes[k]!, predicate: RDF_REST, object: k + 1 < nodes.length ? nodes[k + 1]! : RDF_NIL } as unknown as S.Triple);
    });
    for (const t of inner) out.push(t);
    return nodes[0]!;
  }

  /** VarOrTerm [106] without variables (scanTokens refused them). */
  private term(): GTerm {
    const t = this.peek();
    switch (t.kind) {
      case 'iri': case 'pname': return this.expectIri();
      case 'bnode': this.i++; return blankNode(`e_${t.value}`);
      case 'anon': this.i++; return this.fresh();
      case 'nil': this.i++; return RDF_NIL;
      default: {
        const l = this.tryLiteral();
        if (l) return l;
        throw this.error('expected an RDF term');
      }
    }
  }

  /** An IRI reference resolved as sparqljs resolves it, so DATA and the rest of the request agree. */
  override iri(ref: string, t: Token): NamedNode { return namedNode(this.resolve(ref, t)); }

  override pname(t: Token): NamedNode {
    if (!Object.hasOwn(this.prefixes, t.prefix!)) return super.pname(t); // the unknown-prefix error
    return namedNode(this.resolve(this.prefixes[t.prefix!]! + t.value, t));
  }

  /**
   * sparqljs's resolution (SparqlParser.js `resolveIRI`): simpler than RFC 3986 §5.2 (no dot
   * segments removed), but it is what the rest of an update gets, and a request's DATA and WHERE
   * must name the same IRIs.
   */
  private resolve(ref: string, t: Token): string {
    if (/^[a-z][a-z0-9.+-]*:/i.test(ref)) return ref;
    const base = this.base;
    if (!base) throw updateError(this.text, t, `cannot resolve the relative IRI <${excerpt(ref)}> without a base IRI`);
    switch (ref[0]) {
      case undefined: return base;
      case '#': return base + ref;
      case '?': return base.replace(/(?:\?.*)?$/, ref);
      case '/': return /^(?:[a-z]+:\/*)?[^/]*/.exec(base)![0] + ref;
      default: return base.replace(/[^/:]*$/, '') + ref;
    }
  }

  /**
   * Numbers as sparqljs writes them (the stored lexical form: DELETE DATA must name what an
   * earlier INSERT DATA stored): a double in lower case, a leading `+` dropped.
   */
  override tryLiteral(signed = true): Literal | undefined {
    const l = super.tryLiteral(signed);
    if (!l || l.language) return l;
    const dt = l.datatype.value;
    if (dt !== xsd.integer && dt !== xsd.decimal && dt !== xsd.double) return l;
    const t = this.toks[this.i - 1]!; // a number's last token: its lexical form as written
    if (t.kind !== 'integer' && t.kind !== 'decimal' && t.kind !== 'double') return l;
    let v = l.value.startsWith('+') ? l.value.slice(1) : l.value;
    if (dt === xsd.double) v = v.toLowerCase();
    return v === l.value ? l : literal(v, l.datatype);
  }

  /** sparqljs's label for `[]` and collection nodes; numbered across the request. */
  override fresh(): BlankNode { return blankNode(`g_${this.blankCount++}`); }
}

/** A fast-path error as an update error (the shared grammar helpers name queries). */
export function asUpdateError(e: unknown): unknown {
  if (!isLedgraphError(e) || !e.message.startsWith('Invalid SPARQL query:')) return e;
  return badRequest(e.message.replace(/^Invalid SPARQL query:/, 'Invalid SPARQL update:'));
}
