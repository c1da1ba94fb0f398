/**
 * A recursive-descent parser for SPARQL 1.1 Query (grammar §19.8) producing the same AST shape as
 * sparqljs, so the one translator to the algebra serves both. It exists for speed (sparqljs's
 * generated parser costs milliseconds per query, more than running a selective query) and for
 * errors that name a line and column. Static rules (scoping, grouping) are checked by the translator.
 */
import type * as S from 'sparqljs';
import { badRequest } from '../../errors.js';
import { namedNode } from '../../rdf/terms.js';
import { rdf } from '../../rdf/vocab.js';
import { Cursor, type GTerm } from './cursor.js';
import { bracketted, builtinCall, expression, type ExprHost } from './grammar-expr.js';
import { tokenize, unescapeCodepoints, type Token } from './lexer.js';
import { drain, type Steps } from './steps.js';

type Triple = S.Triple;
type PathLike = S.IriTerm | S.PropertyPath;

const UPDATE_WORDS = new Set(['INSERT', 'DELETE', 'LOAD', 'CLEAR', 'CREATE', 'DROP', 'COPY', 'MOVE', 'ADD', 'WITH']);
// Our terms have the RDF/JS shape sparqljs uses, minus `equals` (never called on the AST).
const RDF_TYPE = namedNode(rdf.type) as unknown as S.IriTerm;
const RDF_FIRST = namedNode(rdf.first);
const RDF_REST = namedNode(rdf.rest);
const RDF_NIL = namedNode(rdf.nil);

/** Tokens read between two steps of a parse. */
const STEP_TOKENS = 256;

/** Parse SPARQL 1.1 Query text into a sparqljs-shaped query object. */
export function parseQueryAst(text: string, base?: string, prefixes: Record<string, string> = {}): S.Query {
  const src = unescapeCodepoints(text);
  return drain(new Grammar(src, tokenize(src), base, prefixes).query());
}

/** parseQueryAst in steps, over text already escape-processed and tokenized (`tokens` of `src`). */
export function parseQueryTokens(src: string, tokens: Token[], base?: string, prefixes: Record<string, string> = {}): Steps<S.Query> {
  return new Grammar(src, tokens, base, prefixes).query();
}

/**
 * The grammar. Rules that can span much of a text (queries, groups, UNION chains, VALUES blocks,
 * triples) are generators that yield every STEP_TOKENS tokens; the small ones (expressions,
 * paths, modifiers) run in one piece. update-grammar.ts extends it with the update rules.
 */
export class Grammar extends Cursor implements ExprHost {
  /** Token index at the last step. */
  private mark = 0;

  constructor(text: string, tokens: Token[], base: string | undefined, prefixes: Record<string, string>) {
    super(text, tokens, base, prefixes);
  }

  /** True (and a new step begins) when STEP_TOKENS tokens were read since the last step. */
  protected due(): boolean {
    if (this.i - this.mark < STEP_TOKENS) return false;
    this.mark = this.i;
    return true;
  }

  *query(): Steps<S.Query> {
    this.prologue();
    const t = this.peek();
    let q: S.Query;
    if (this.isWord('SELECT')) q = yield* this.select(true);
    else if (this.eatWord('CONSTRUCT')) q = yield* this.construct();
    else if (this.eatWord('DESCRIBE')) q = yield* this.describe();
    else if (this.eatWord('ASK')) {
      const from = this.datasets();
      q = { type: 'query', queryType: 'ASK', prefixes: this.prefixes, where: yield* this.whereClause(), ...from } as S.AskQuery;
      this.modifiers(q as unknown as Partial<S.SelectQuery>);
    } else if (t.kind === 'word' && UPDATE_WORDS.has(t.value.toUpperCase())) {
      throw badRequest('Invalid SPARQL query: this is a SPARQL UPDATE request, not a query');
    } else throw this.error('expected SELECT, CONSTRUCT, DESCRIBE or ASK');
    if (this.eatWord('VALUES')) q.values = yield* this.dataBlock();
    if (this.peek().kind !== 'eof') throw this.error('unexpected text after the query');
    if (this.base !== undefined) q.base = this.base;
    return q;
  }

  protected prologue(): void {
    for (;;) {
      if (this.eatWord('BASE')) {
        const t = this.next();
        if (t.kind !== 'iri') throw this.error('expected an IRI after BASE', t);
        this.base = this.iri(t.value, t).value;
      } else if (this.eatWord('PREFIX')) {
        const p = this.next();
        if (p.kind !== 'pname' || p.value !== '') throw this.error('expected a prefix name like ex:', p);
        const t = this.next();
        if (t.kind !== 'iri') throw this.error('expected an IRI', t);
        this.prefixes[p.prefix!] = this.iri(t.value, t).value;
      } else return;
    }
  }

  private datasets(): { from?: { default: S.IriTerm[]; named: S.IriTerm[] } } {
    const from = { default: [] as S.IriTerm[], named: [] as S.IriTerm[] };
    let any = false;
    while (this.eatWord('FROM')) {
      any = true;
      if (this.eatWord('NAMED')) from.named.push(this.expectIri() as unknown as S.IriTerm);
      else from.default.push(this.expectIri() as unknown as S.IriTerm);
    }
    return any ? { from } : {};
  }

  private *whereClause(): Steps<S.Pattern[]> {
    this.eatWord('WHERE');
    return yield* this.group();
  }

  /** SELECT query or subquery (with its own VALUES when nested). */
  private *select(top: boolean): Steps<S.SelectQuery> {
    this.expectWord('SELECT');
    const q = { type: 'query', queryType: 'SELECT', prefixes: this.prefixes } as S.SelectQuery;
    if (this.eatWord('DISTINCT')) q.distinct = true;
    else if (this.eatWord('REDUCED')) q.reduced = true;
    if (this.eatPunct('*')) q.variables = [{ termType: 'Wildcard', value: '*' } as unknown as S.Wildcard];
    else {
      const vars: S.Variable[] = [];
      for (;;) {
        const v = this.tryVar();
        if (v) { vars.push(v as S.VariableTerm); continue; }
        if (!this.eatPunct('(')) break;
        const expr = expression(this);
        this.expectWord('AS');
        const as = this.tryVar();
        if (!as) throw this.error('expected a variable after AS');
        this.expectPunct(')');
        vars.push({ expression: expr, variable: as as S.VariableTerm });
      }
      if (!vars.length) throw this.error('expected variables or * after SELECT');
      q.variables = vars;
    }
    if (top) Object.assign(q, this.datasets());
    q.where = yield* this.whereClause();
    this.modifiers(q);
    if (!top && this.eatWord('VALUES')) q.values = yield* this.dataBlock();
    return q;
  }

  private *construct(): Steps<S.ConstructQuery> {
    const q = { type: 'query', queryType: 'CONSTRUCT', prefixes: this.prefixes } as S.ConstructQuery;
    if (this.isPunct('{')) {
      q.template = yield* this.templateBlock();
      Object.assign(q, this.datasets());
      q.where = yield* this.whereClause();
    } else {
      Object.assign(q, this.datasets());
      this.expectWord('WHERE');
      q.template = yield* this.templateBlock();
      q.where = [{ type: 'bgp', triples: q.template }];
    }
    this.modifiers(q as unknown as Partial<S.SelectQuery>);
    return q;
  }

  private *templateBlock(): Steps<Triple[]> {
    this.expectPunct('{');
    const triples: Triple[] = [];
    while (!this.isPunct('}')) {
      yield* this.triplesSameSubject(triples, false);
      if (!this.eatPunct('.')) break;
    }
    this.expectPunct('}');
    return triples;
  }

  private *describe(): Steps<S.DescribeQuery> {
    const q = { type: 'query', queryType: 'DESCRIBE', prefixes: this.prefixes } as S.DescribeQuery;
    if (this.eatPunct('*')) q.variables = [{ termType: 'Wildcard', value: '*' } as unknown as S.Wildcard];
    else {
      const vs: (S.VariableTerm | S.IriTerm)[] = [];
      for (;;) {
        const v = this.tryVar() ?? this.tryIri();
        if (!v) break;
        vs.push(v as S.VariableTerm | S.IriTerm);
      }
      if (!vs.length) throw this.error('expected variables, IRIs or * after DESCRIBE');
      q.variables = vs;
    }
    Object.assign(q, this.datasets());
    if (this.isWord('WHERE') || this.isPunct('{')) q.where = yield* this.whereClause();
    else q.where = [];
    this.modifiers(q as unknown as Partial<S.SelectQuery>);
    return q;
  }

  /** GROUP BY, HAVING, ORDER BY, LIMIT / OFFSET. */
  private modifiers(q: Partial<S.SelectQuery>): void {
    if (this.isWord('GROUP') && this.isWord('BY', 1)) {
      this.i += 2;
      const group: S.Grouping[] = [];
      for (;;) {
        if (this.eatPunct('(')) {
          const expression_ = expression(this);
          const g: S.Grouping = { expression: expression_ };
          if (this.eatWord('AS')) {
            const v = this.tryVar();
            if (!v) throw this.error('expected a variable after AS');
            g.variable = v as S.VariableTerm;
          }
          this.expectPunct(')');
          group.push(g);
          continue;
        }
        const v = this.tryVar();
        if (v) { group.push({ expression: v as S.VariableTerm }); continue; }
        const c = this.constraintCall();
        if (!c) break;
        group.push({ expression: c });
      }
      if (!group.length) throw this.error('expected a GROUP BY condition');
      q.group = group;
    }
    if (this.eatWord('HAVING')) {
      const having: S.Expression[] = [];
      for (;;) {
        const c = this.isPunct('(') ? bracketted(this) : this.constraintCall();
        if (!c) break;
        having.push(c);
      }
      if (!having.length) throw this.error('expected a HAVING condition');
      q.having = having;
    }
    if (this.isWord('ORDER') && this.isWord('BY', 1)) {
      this.i += 2;
      const order: S.Ordering[] = [];
      for (;;) {
        if (this.isWord('ASC') || this.isWord('DESC')) {
          const desc = this.next().value.toUpperCase() === 'DESC';
          order.push(desc ? { expression: bracketted(this), descending: true } : { expression: bracketted(this) });
          continue;
        }
        const v = this.tryVar();
        if (v) { order.push({ expression: v as S.VariableTerm }); continue; }
        const c = this.isPunct('(') ? bracketted(this) : this.constraintCall();
        if (!c) break;
        order.push({ expression: c });
      }
      if (!order.length) throw this.error('expected an ORDER BY condition');
      q.order = order;
    }
    for (let k = 0; k < 2; k++) {
      if (q.limit === undefined && this.eatWord('LIMIT')) q.limit = this.integer();
      else if (q.offset === undefined && this.eatWord('OFFSET')) q.offset = this.integer();
    }
  }

  private integer(): number {
    const t = this.next();
    if (t.kind !== 'integer') throw this.error('expected an integer', t);
    return Number(t.value);
  }

  /** Constraint [69] without brackets: a built-in call or a function call. */
  private constraintCall(): S.Expression | undefined {
    const b = builtinCall(this);
    if (b) return b;
    const t = this.peek();
    if ((t.kind === 'iri' || t.kind === 'pname') && (this.isPunct('(', 1) || this.peek(1).kind === 'nil')) {
      // Reuse the expression parser: a primary that is an IRI followed by arguments is a call.
      return expression(this);
    }
    return undefined;
  }

  /** GroupGraphPattern [53] in one piece (for EXISTS in expressions). */
  groupGraphPattern(): S.Pattern[] { return drain(this.group()); }

  /** GroupGraphPattern [53]: the patterns inside `{ ... }`. */
  protected *group(): Steps<S.Pattern[]> {
    this.expectPunct('{');
    if (this.isWord('SELECT')) {
      const sub = yield* this.select(false);
      this.expectPunct('}');
      return [{ type: 'group', patterns: [sub as unknown as S.Pattern] }];
    }
    const out: S.Pattern[] = [];
    let bgp: Triple[] | undefined;
    const flush = () => { if (bgp?.length) out.push({ type: 'bgp', triples: bgp }); bgp = undefined; };
    for (;;) {
      if (this.due()) yield;
      if (this.eatPunct('}')) break;
      const p = yield* this.graphPatternNotTriples();
      if (p) {
        flush();
        out.push(p);
        this.eatPunct('.');
        continue;
      }
      bgp ??= [];
      yield* this.triplesSameSubject(bgp, true);
      if (this.eatPunct('.')) continue;
      if (this.isPunct('}')) continue;
      if (this.graphPatternStarts()) continue;
      throw this.error("expected '.', '}' or a graph pattern");
    }
    flush();
    return out;
  }

  private graphPatternStarts(): boolean {
    if (this.isPunct('{')) return true;
    const t = this.peek();
    return t.kind === 'word' && ['OPTIONAL', 'MINUS', 'GRAPH', 'SERVICE', 'FILTER', 'BIND', 'VALUES'].includes(t.value.toUpperCase());
  }

  private *graphPatternNotTriples(): Steps<S.Pattern | undefined> {
    if (this.isPunct('{')) {
      const first = yield* this.group();
      if (!this.isWord('UNION')) return { type: 'group', patterns: first };
      const branches: S.Pattern[] = [{ type: 'group', patterns: first }];
      while (this.eatWord('UNION')) branches.push({ type: 'group', patterns: yield* this.group() });
      return { type: 'union', patterns: branches };
    }
    if (this.eatWord('OPTIONAL')) return { type: 'optional', patterns: yield* this.group() };
    if (this.eatWord('MINUS')) return { type: 'minus', patterns: yield* this.group() };
    if (this.eatWord('GRAPH')) {
      const name = this.tryVar() ?? this.expectIri();
      return { type: 'graph', name: name as S.IriTerm, patterns: yield* this.group() };
    }
    if (this.eatWord('SERVICE')) {
      const silent = this.eatWord('SILENT');
      const name = this.tryVar() ?? this.expectIri();
      return { type: 'service', name: name as S.IriTerm, silent, patterns: yield* this.group() };
    }
    if (this.eatWord('FILTER')) {
      const e = this.isPunct('(') ? bracketted(this) : this.constraintCall();
      if (!e) throw this.error('expected a filter constraint');
      return { type: 'filter', expression: e };
    }
    if (this.eatWord('BIND')) {
      this.expectPunct('(');
      const e = expression(this);
      this.expectWord('AS');
      const v = this.tryVar();
      if (!v) throw this.error('expected a variable after AS');
      this.expectPunct(')');
      return { type: 'bind', expression: e, variable: v as S.VariableTerm };
    }
    if (this.eatWord('VALUES')) return { type: 'values', values: yield* this.dataBlock() };
    return undefined;
  }

  /** DataBlock [62]: VALUES rows keyed `?name`, UNDEF as undefined. */
  private *dataBlock(): Steps<S.ValuePatternRow[]> {
    const vars: string[] = [];
    let single = false;
    const v1 = this.tryVar();
    if (v1) { vars.push('?' + v1.value); single = true; }
    else if (this.peek().kind === 'nil') this.i++;
    else {
      this.expectPunct('(');
      for (let v = this.tryVar(); v; v = this.tryVar()) vars.push('?' + v.value);
      this.expectPunct(')');
    }
    this.expectPunct('{');
    const rows: S.ValuePatternRow[] = [];
    const value = (): S.ValuePatternRow[string] => {
      if (this.eatWord('UNDEF')) return undefined;
      const v = this.tryIri() ?? this.tryLiteral();
      if (!v) throw this.error('expected a data value or UNDEF');
      return v as S.IriTerm;
    };
    while (!this.eatPunct('}')) {
      if (this.due()) yield;
      const row: S.ValuePatternRow = {};
      if (single) row[vars[0]!] = value();
      else if (this.peek().kind === 'nil') {
        this.i++;
        if (vars.length) throw this.error('a VALUES row has too few values');
      } else {
        const start = this.peek();
        this.expectPunct('(');
        const vals: S.ValuePatternRow[string][] = [];
        while (!this.eatPunct(')')) vals.push(value());
        if (vals.length !== vars.length) throw this.error(`a VALUES row has ${vals.length} values for ${vars.length} variables`, start);
        vars.forEach((k, i) => { row[k] = vals[i]; });
      }
      rows.push(row);
    }
    return rows;
  }

  // ---- triples --------------------------------------------------------------------------

  /**
   * TriplesSameSubject(Path): appends the triples it states, in sparqljs's order: the subject's
   * own property list first, then the triples of nested `[...]` objects, then those of a
   * `[...]` or collection subject.
   */
  protected *triplesSameSubject(out: Triple[], paths: boolean): Steps<void> {
    const t = this.peek();
    if (t.kind === 'punct' && (t.value === '[' || t.value === '(')) {
      const subj: Triple[] = [];
      const s = yield* this.triplesNode(subj, paths);
      if (!this.isPunct('.') && !this.isPunct('}') && !this.graphPatternStarts()) yield* this.propertyList(s, out, paths, false);
      for (const x of subj) out.push(x);
      return;
    }
    const s = this.varOrTerm();
    yield* this.propertyList(s, out, paths, true);
  }

  private *propertyList(s: GTerm, out: Triple[], paths: boolean, required: boolean): Steps<void> {
    const nested: Triple[] = [];
    let first = true;
    for (;;) {
      const verb = this.verb(paths);
      if (!verb) {
        if (first && required) throw this.error('expected a predicate');
        break;
      }
      first = false;
      do {
        const o = yield* this.graphNode(nested, paths);
        out.push({ subject: s, predicate: verb, object: o } as Triple);
        if (this.due()) yield;
      } while (this.eatPunct(','));
      if (!this.eatPunct(';')) break;
      while (this.eatPunct(';')) { /* repeated semicolons are allowed */ }
    }
    for (const x of nested) out.push(x);
  }

  private verb(paths: boolean): S.IriTerm | S.VariableTerm | S.PropertyPath | undefined {
    const v = this.tryVar();
    if (v) return v as S.VariableTerm;
    const t = this.peek();
    if (!paths) return this.simpleVerb(t);
    const startsPath = t.kind === 'iri' || t.kind === 'pname' || (t.kind === 'word' && t.value === 'a')
      || (t.kind === 'punct' && (t.value === '^' || t.value === '!' || t.value === '(')) || t.kind === 'nil';
    if (!startsPath) return undefined;
    const p = this.pathAlternative();
    if (!paths && !('termType' in p)) throw this.error('property paths are not allowed here', t);
    return p;
  }

  /**
   * Verb [78] where paths are not allowed (templates, DATA): an IRI or `a` only, so `a +3` is the
   * verb `a` and the object 3; a path is refused by name.
   */
  private simpleVerb(t: Token): S.IriTerm | undefined {
    if (t.kind === 'word' && t.value === 'a') { this.i++; return RDF_TYPE; }
    const iri = this.tryIri();
    if (iri && !this.isPunct('/') && !this.isPunct('|')) return iri as unknown as S.IriTerm;
    if (iri || (t.kind === 'punct' && (t.value === '^' || t.value === '!'))) throw this.error('property paths are not allowed here', t);
    return undefined;
  }

  private *graphNode(out: Triple[], paths: boolean): Steps<GTerm> {
    if (this.isPunct('[') || this.isPunct('(')) return yield* this.triplesNode(out, paths);
    return this.varOrTerm();
  }

  /** `[ property list ]` or a collection `( ... )`: returns its node, appends its triples. */
  private *triplesNode(out: Triple[], paths: boolean): Steps<GTerm> {
    if (this.eatPunct('[')) {
      const b = this.fresh();
      yield* this.propertyList(b, out, paths, true);
      this.expectPunct(']');
      return b;
    }
    this.expectPunct('(');
    const items: GTerm[] = [];
    const inner: Triple[] = [];
    while (!this.eatPunct(')')) {
      items.push(yield* this.graphNode(inner, paths));
      if (this.due()) yield;
    }
    if (!items.length) throw this.error('empty collection');
    const nodes = items.map(() => this.fresh());
    items.forEach((it, k) => {
      out.push({ subject: nodes[k]!, predicate: RDF_FIRST, object: it } as Triple);
      out.push({ subject: nodes[k]!, predicate: RDF_REST, object: k + 1 < nodes.length ? nodes[k + 1]! : RDF_NIL } as Triple);
    });
    for (const x of inner) out.push(x);
    return nodes[0]!;
  }

  protected varOrTerm(): GTerm {
    const t = this.peek();
    switch (t.kind) {
      case 'var': this.i++; return { termType: 'Variable', value: t.value };
      case 'iri': case 'pname': return this.expectIri();
      case 'bnode': this.i++; return { termType: 'BlankNode', value: t.value };
      case 'anon': this.i++; return this.fresh();
      case 'nil': this.i++; return RDF_NIL;
      default: {
        const l = this.tryLiteral();
        if (l) return l;
        throw this.error('expected a variable or an RDF term');
      }
    }
  }

  // ---- property paths -------------------------------------------------------------------

  private pathAlternative(): PathLike {
    const items = [this.pathSequence()];
    while (this.eatPunct('|')) items.push(this.pathSequence());
    return items.length === 1 ? items[0]! : { type: 'path', pathType: '|', items };
  }

  private pathSequence(): PathLike {
    const items = [this.pathEltOrInverse()];
    while (this.eatPunct('/')) items.push(this.pathEltOrInverse());
    return items.length === 1 ? items[0]! : { type: 'path', pathType: '/', items };
  }

  private pathEltOrInverse(): PathLike {
    if (this.eatPunct('^')) return { type: 'path', pathType: '^', items: [this.pathElt()] };
    return this.pathElt();
  }

  private pathElt(): PathLike {
    const prim = this.pathPrimary();
    const t = this.peek();
    if (t.kind === 'punct' && (t.value === '?' || t.value === '*' || t.value === '+')) {
      this.i++;
      return { type: 'path', pathType: t.value as '?' | '*' | '+', items: [prim] };
    }
    return prim;
  }

  private pathPrimary(): PathLike {
    if (this.isWord('A') && this.peek().value === 'a') { this.i++; return RDF_TYPE; }
    const iri = this.tryIri();
    if (iri) return iri as unknown as S.IriTerm;
    if (this.eatPunct('!')) return this.negatedSet();
    if (this.eatPunct('(')) {
      const p = this.pathAlternative();
      this.expectPunct(')');
      return p;
    }
    throw this.error('expected a property path');
  }

  private negatedSet(): S.PropertyPath {
    const one = (): S.IriTerm | S.PropertyPath => {
      if (this.eatPunct('^')) return { type: 'path', pathType: '^', items: [this.oneIri()] };
      return this.oneIri();
    };
    if (this.peek().kind === 'nil') { this.i++; return { type: 'path', pathType: '!', items: [] } as unknown as S.PropertyPath; }
    if (!this.eatPunct('(')) return { type: 'path', pathType: '!', items: [one()] } as S.PropertyPath;
    const items = [one()];
    while (this.eatPunct('|')) items.push(one());
    this.expectPunct(')');
    return { type: 'path', pathType: '!', items: items.length === 1 ? items : [{ type: 'path', pathType: '|', items }] } as S.PropertyPath;
  }

  private oneIri(): S.IriTerm {
    if (this.isWord('A') && this.peek().value === 'a') { this.i++; return RDF_TYPE; }
    return this.expectIri() as unknown as S.IriTerm;
  }
}
