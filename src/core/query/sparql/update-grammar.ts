/**
 * SPARQL 1.1 Update grammar (§19.8 rules [29]-[52]) in steps, without sparqljs: the request's
 * operations in sparqljs's shape (update.ts maps them onto `UpdateOperation`, as it maps
 * sparqljs's own). sparqljs costs about 0.15 ms per triple or operator and cannot stop halfway,
 * so a 20,000-triple template or 5,000 operations held the event loop for seconds; here every
 * rule that can span much of a request (operations, DATA blocks, templates, the WHERE group) is
 * a generator step of grammar.ts's, so the caller can give the event loop a turn between steps.
 *
 * What sparqljs does, this does too, so the two give the same request (tests compare them on
 * every W3C update file and on generated requests): blank node labels `e_<label>` as written and
 * `g_<n>` for `[]` and collections; IRIs resolved as sparqljs resolves them; numbers in its
 * lexical forms; a block's triples before its first GRAPH block placed after the GRAPH blocks.
 */
import type * as S from 'sparqljs';
import { badRequest } from '../../errors.js';
import { excerpt } from '../../excerpt.js';
import { blankNode, literal, namedNode, type BlankNode, type Literal, type NamedNode } from '../../rdf/terms.js';
import { xsd } from '../../rdf/vocab.js';
import type { GTerm } from './cursor.js';
import { Grammar } from './grammar.js';
import { positionAt, type Token } from './lexer.js';
import type { Steps } from './steps.js';

const QUERY_FORMS = new Set(['SELECT', 'CONSTRUCT', 'DESCRIBE', 'ASK']);

type Iri = S.IriTerm;
type GraphRef = { type: 'graph'; default?: true; name?: Iri };

export class UpdateGrammar extends Grammar {
  private blankCount = 0;

  constructor(text: string, tokens: Token[], base: string | undefined) {
    super(text, tokens, base, {});
  }

  /** Update [29]: `Prologue ( Update1 ( ';' Update )? )?`, every prologue applying to what follows. */
  *update(): Steps<S.UpdateOperation[]> {
    const ops: S.UpdateOperation[] = [];
    for (;;) {
      this.prologue();
      const t = this.peek();
      if (t.kind === 'eof') return ops;
      if (ops.length === 0 && t.kind === 'word' && QUERY_FORMS.has(t.value.toUpperCase())) {
        throw badRequest('Invalid SPARQL update: this is a SPARQL query, not an update; send it to /query');
      }
      ops.push(yield* this.operation());
      if (this.due()) yield;
      if (!this.eatPunct(';')) break;
    }
    if (this.peek().kind !== 'eof') throw this.error("expected ';' or the end of the update");
    return ops;
  }

  /** Update1 [30]. */
  private *operation(): Steps<S.UpdateOperation> {
    const t = this.peek();
    const w = t.kind === 'word' ? t.value.toUpperCase() : '';
    switch (w) {
      case 'LOAD': {
        this.i++;
        const silent = this.eatWord('SILENT');
        const op = { type: 'load', silent, source: this.expectIri() } as S.LoadOperation;
        if (this.eatWord('INTO')) op.destination = this.graphRef();
        return op;
      }
      case 'CLEAR': case 'DROP': {
        this.i++;
        const silent = this.eatWord('SILENT');
        return { type: w.toLowerCase(), silent, graph: this.graphRefAll() } as S.ClearDropOperation;
      }
      case 'CREATE': {
        this.i++;
        const silent = this.eatWord('SILENT');
        return { type: 'create', silent, graph: { type: 'graph', name: this.graphRef() } } as S.CreateOperation;
      }
      case 'ADD': case 'MOVE': case 'COPY': {
        this.i++;
        const silent = this.eatWord('SILENT');
        const source = this.graphOrDefault();
        this.expectWord('TO');
        return { type: w.toLowerCase(), silent, source, destination: this.graphOrDefault() } as S.CopyMoveAddOperation;
      }
      case 'INSERT':
        if (this.isWord('DATA', 1)) { this.i += 2; return { updateType: 'insert', insert: yield* this.quads() } as S.InsertDeleteOperation; }
        return yield* this.modify();
      case 'DELETE':
        if (this.isWord('DATA', 1)) { this.i += 2; return { updateType: 'delete', delete: yield* this.quads() } as S.InsertDeleteOperation; }
        if (this.isWord('WHERE', 1)) { this.i += 2; return { updateType: 'deletewhere', delete: yield* this.quads() } as S.InsertDeleteOperation; }
        return yield* this.modify();
      case 'WITH': return yield* this.modify();
      default: throw this.error('expected an update operation (INSERT, DELETE, LOAD, CLEAR, CREATE, DROP, ADD, MOVE, COPY or WITH)');
    }
  }

  /** Modify [41]: `( 'WITH' iri )? ( DeleteClause InsertClause? | InsertClause ) UsingClause* 'WHERE' GroupGraphPattern`. */
  private *modify(): Steps<S.InsertDeleteOperation> {
    const op = { updateType: 'insertdelete' } as { updateType: 'insertdelete'; graph?: Iri; delete: S.Quads[]; insert: S.Quads[]; using?: { default: Iri[]; named: Iri[] }; where: S.Pattern[] };
    if (this.eatWord('WITH')) op.graph = this.expectIri() as unknown as Iri;
    if (this.eatWord('DELETE')) {
      op.delete = yield* this.quads();
      op.insert = this.eatWord('INSERT') ? yield* this.quads() : [];
    } else {
      this.expectWord('INSERT');
      op.delete = [];
      op.insert = yield* this.quads();
    }
    while (this.eatWord('USING')) {
      op.using ??= { default: [], named: [] };
      if (this.eatWord('NAMED')) op.using.named.push(this.expectIri() as unknown as Iri);
      else op.using.default.push(this.expectIri() as unknown as Iri);
    }
    this.expectWord('WHERE');
    op.where = yield* this.group();
    return op as unknown as S.InsertDeleteOperation;
  }

  /** GraphRef [46]: `'GRAPH' iri`. */
  private graphRef(): Iri {
    this.expectWord('GRAPH');
    return this.expectIri() as unknown as Iri;
  }

  /** GraphRefAll [47]: a GraphRef, DEFAULT, NAMED or ALL (sparqljs's shapes). */
  private graphRefAll(): S.GraphReference {
    if (this.eatWord('DEFAULT')) return { type: 'graph', default: true } as S.GraphReference;
    if (this.eatWord('NAMED')) return { named: true } as unknown as S.GraphReference;
    if (this.eatWord('ALL')) return { all: true } as unknown as S.GraphReference;
    if (!this.isWord('GRAPH')) throw this.error('expected GRAPH, DEFAULT, NAMED or ALL');
    return { type: 'graph', name: this.graphRef() } as S.GraphReference;
  }

  /** GraphOrDefault [45]: `'DEFAULT' | 'GRAPH'? iri`. */
  private graphOrDefault(): S.GraphOrDefault {
    if (this.eatWord('DEFAULT')) return { type: 'graph', default: true } as GraphRef as S.GraphOrDefault;
    this.eatWord('GRAPH');
    return { type: 'graph', name: this.expectIri() as unknown as Iri } as GraphRef as S.GraphOrDefault;
  }

  /**
   * QuadPattern / QuadData [48]-[51]: `'{' TriplesTemplate? ( 'GRAPH' VarOrIri '{' TriplesTemplate? '}' '.'? TriplesTemplate? )* '}'`,
   * in sparqljs's order: each GRAPH block and the triples after it, then the triples before the first.
   */
  private *quads(): Steps<S.Quads[]> {
    this.expectPunct('{');
    const lead = yield* this.triplesTemplate();
    const out: S.Quads[] = [];
    while (this.eatWord('GRAPH')) {
      const name = (this.tryVar() ?? this.expectIri()) as unknown as Iri;
      this.expectPunct('{');
      const triples = yield* this.triplesTemplate();
      this.expectPunct('}');
      out.push({ type: 'graph', name, triples } as S.GraphQuads);
      this.eatPunct('.');
      const after = yield* this.triplesTemplate();
      if (after.length) out.push({ type: 'bgp', triples: after });
    }
    if (!this.isPunct('}')) throw this.error("expected '.', GRAPH or '}'");
    this.i++;
    if (lead.length) out.push({ type: 'bgp', triples: lead });
    return out;
  }

  /** TriplesTemplate [52]: statements separated by `.`, up to `}` or GRAPH (none: empty). */
  private *triplesTemplate(): Steps<S.Triple[]> {
    const out: S.Triple[] = [];
    while (!this.isPunct('}') && !this.isWord('GRAPH')) {
      yield* this.triplesSameSubject(out, false);
      if (!this.eatPunct('.')) break;
    }
    return out;
  }

  /** A labelled blank node is `e_<label>`, as sparqljs names it. */
  protected override varOrTerm(): GTerm {
    const t = this.peek();
    if (t.kind === 'bnode') { this.i++; return blankNode(`e_${t.value}`); }
    return super.varOrTerm();
  }

  /** An IRI reference resolved as sparqljs resolves it, so an update means what it meant before. */
  override iri(ref: string, t: Token): NamedNode { return namedNode(this.resolve(ref, t)); }

  override pname(t: Token): NamedNode {
    if (!Object.hasOwn(this.prefixes, t.prefix!)) return super.pname(t); // the unknown-prefix error
    return namedNode(this.resolve(this.prefixes[t.prefix!]! + t.value, t));
  }

  /**
   * sparqljs's resolution (SparqlParser.js `resolveIRI`): simpler than RFC 3986 §5.2 (no dot
   * segments removed), but it is what updates always got, and stored data keeps its IRIs.
   */
  private resolve(ref: string, t: Token): string {
    if (/^[a-z][a-z0-9.+-]*:/i.test(ref)) return ref;
    const base = this.base;
    if (!base) throw badRequest(`Invalid SPARQL update: cannot resolve the relative IRI <${excerpt(ref)}> without a base IRI${positionAt(this.text, t.start)}`);
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
