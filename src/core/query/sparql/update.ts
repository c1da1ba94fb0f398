/**
 * SPARQL 1.1 Update text -> a `sparql-update` TxnRequest for the one write pipeline (W3C SPARQL 1.1
 * Update §3). update-grammar.ts does the grammar, in steps (a large request must not hold the event
 * loop; docs/isolation.md), with sparqljs as the second opinion on short texts it rejects;
 * this file maps each operation (sparqljs's shape, from either parser) onto `UpdateOperation`,
 * enforces the static rules sparqljs leaves out (no blank nodes in DELETE DATA / DELETE WHERE /
 * DELETE templates inside GRAPH blocks, ground DATA), scopes blank node labels per operation,
 * applies the protocol's `using-graph-uri` / `using-named-graph-uri` (http-api §4.2 rules 1-2) and
 * turns every rejection into a 400 err:db/BadRequest, with line and column when the grammar failed.
 */
import sparqljs from 'sparqljs';
import type * as S from 'sparqljs';
import { badRequest, isLedgraphError, type LedgraphError } from '../../errors.js';
import { capMessage, excerpt } from '../../excerpt.js';
import { isStackOverflow, tooComplexError, withinStack } from '../../limits.js';
import { blankNode, defaultGraph, fromRdfJs, namedNode, type BlankNode, type NamedNode, type Term, type Variable } from '../../rdf/terms.js';
import type { GraphRef, TemplateQuad, TxnQuad, TxnRequest, UpdateOperation } from '../../transact/txn-request.js';
import { SECOND_OPINION_CHARS, whereEnv } from './parse.js';
import { findToken, positionAt, Tokenizer, unescapeCodepoints } from './lexer.js';
import { checkSparqlNesting, checkTokenNesting } from './nesting-scan.js';
import { translateGroupSteps } from './parse-pattern.js';
import { drain, type Steps } from './steps.js';
import { asUpdateError, scanTokens } from './update-data.js';
import { UpdateGrammar } from './update-grammar.js';
import { TimeSlice } from '../../util/next-turn.js';

export interface UpdateParseOptions {
  /** Base IRI for relative IRIs (a BASE in the request overrides it). */
  baseIri?: string;
  /** Protocol `using-graph-uri` values: the WHERE default graph of every DELETE/INSERT ... WHERE. */
  usingGraphUris?: string[];
  /** Protocol `using-named-graph-uri` values: the WHERE named graphs of every DELETE/INSERT ... WHERE. */
  usingNamedGraphUris?: string[];
}


/** Tokens read between two steps of tokenizing. */
const TOKENIZE_STEP = 512;

/** Parse SPARQL 1.1 Update text into one `sparql-update` request; a syntax or static error is a 400. */
export function parseSparqlUpdate(text: string, opts: UpdateParseOptions = {}): TxnRequest {
  const steps = updateSteps(text, opts);
  for (;;) {
    const r = step(steps);
    if (r.done) return r.value;
  }
}

/**
 * parseSparqlUpdate for a server: gives the event loop a turn every `sliceMs` of parsing, so a
 * large update (a 20,000-triple template takes about 150 ms to parse) does not hold up other requests.
 */
export async function parseSparqlUpdateSliced(text: string, opts: UpdateParseOptions = {}, sliceMs = 2): Promise<TxnRequest> {
  const slice = new TimeSlice(sliceMs);
  const steps = updateSteps(text, opts);
  for (;;) {
    const r = step(steps);
    if (r.done) return r.value;
    if (slice.due()) await slice.pause();
  }
}

/** One step, a stack overflow in it answered as a 400. */
function step<T>(steps: Steps<T>): IteratorResult<void, T> {
  return withinStack('the SPARQL update', () => steps.next());
}

/**
 * The fast path (fastUpdate); should it reject a short text, or fail other than with a 400,
 * the whole text goes through sparqljs instead, so a gap in the fast path costs speed, not
 * correctness, where sparqljs is cheap. A long text's rejection stands: sparqljs would hold the
 * event loop for seconds to say the same (the two agree on the W3C suite and on generated requests).
 */
function* updateSteps(text: string, opts: UpdateParseOptions): Steps<TxnRequest> {
  try {
    return yield* fastUpdate(text, opts);
  } catch (e) {
    if (e !== NEEDS_SPARQLJS && isLedgraphError(e) && text.length > SECOND_OPINION_CHARS) throw asUpdateError(e);
    return parseSparqlUpdateWithSparqljs(text, opts);
  }
}

/** The fast path alone, without sparqljs's second opinion (tests compare it with parseSparqlUpdateWithSparqljs); undefined where it defers to sparqljs. */
export function parseSparqlUpdateFast(text: string, opts: UpdateParseOptions = {}): TxnRequest | undefined {
  const steps = fastUpdate(text, opts);
  try {
    for (;;) {
      const r = step(steps);
      if (r.done) return r.value;
    }
  } catch (e) {
    if (e === NEEDS_SPARQLJS) return undefined;
    throw asUpdateError(e);
  }
}

/** Thrown by the fast path for text it leaves to sparqljs. */
const NEEDS_SPARQLJS = new Error('left to sparqljs');

/**
 * Tokenize, check the tokens (nesting, DATA blocks), parse (update-grammar.ts) and translate,
 * each a generator step at a time.
 */
function* fastUpdate(text: string, opts: UpdateParseOptions): Steps<TxnRequest> {
  const src = unescapeCodepoints(text);
  // An escaped backslash could form a new escape, which sparqljs would decode a second time.
  if (src !== text && /\\(?:u005[cC]|U0000005[cC])/.test(text)) throw NEEDS_SPARQLJS;
  const tokenizer = new Tokenizer(src);
  while (!tokenizer.run(TOKENIZE_STEP)) yield;
  const toks = tokenizer.tokens;
  yield* checkTokenNesting(toks, 'the SPARQL update');
  yield* scanTokens(src, toks);
  const updates = yield* new UpdateGrammar(src, toks, opts.baseIri).update();
  checkInsertDataLabels(updates);
  return yield* translateUpdates(updates, opts);
}

/** A blank node label may not appear in two INSERT DATA operations (§3.1.1; sparqljs's check). */
function checkInsertDataLabels(updates: S.UpdateOperation[]): void {
  const seen = new Map<string, S.UpdateOperation>();
  for (const u of updates) {
    if (!('updateType' in u) || u.updateType !== 'insert') continue;
    for (const q of u.insert) for (const t of q.triples) for (const x of [t.subject, t.object]) {
      if ((x as { termType: string }).termType !== 'BlankNode') continue;
      if ((seen.get(x.value as string) ?? u) !== u) throw invalid(REUSED_LABEL);
      seen.set(x.value as string, u);
    }
  }
}

/** sparqljs's operations of a (small) update text; a syntax error is a 400. */
function sparqljsUpdates(text: string, opts: UpdateParseOptions): S.UpdateOperation[] {
  let parsed: S.SparqlQuery | { type?: undefined };
  try {
    const parser = new sparqljs.Parser({ baseIRI: opts.baseIri, sparqlStar: false });
    // Labels of `[]` and lists count up process-wide otherwise; the same text should give the same request.
    parser._resetBlanks();
    parsed = parser.parse(text) as S.SparqlQuery | { type?: undefined };
  } catch (e) {
    if (isStackOverflow(e)) throw tooComplexError('the SPARQL update');
    throw updateSyntaxError(e, text);
  }
  if (parsed.type === 'query') throw invalid('this is a SPARQL query, not an update; send it to /query');
  // An empty request (only a prologue, or nothing) is a valid update with no operations.
  return parsed.type === 'update' ? parsed.updates : [];
}

/** Parse with sparqljs only, the whole text (before the fast path; tests compare the two). */
export function parseSparqlUpdateWithSparqljs(text: string, opts: UpdateParseOptions = {}): TxnRequest {
  checkSparqlNesting(text, 'the SPARQL update');
  const updates = sparqljsUpdates(text, opts);
  return withinStack('the SPARQL update', () => drain(translateUpdates(updates, opts)));
}

/** The request for parsed operations (sparqljs's shape), in steps. */
function* translateUpdates(updates: S.UpdateOperation[], opts: UpdateParseOptions): Steps<TxnRequest> {
  const protocol = protocolDataset(opts);
  if (protocol && updates.some((u) => 'updateType' in u && u.updateType === 'deletewhere')) {
    throw invalid('using-graph-uri / using-named-graph-uri cannot be combined with DELETE WHERE, which has no USING form');
  }
  const ops: UpdateOperation[] = [];
  for (let i = 0; i < updates.length; i++) {
    const op = yield* translateOperation(updates[i]!, i + 1, protocol);
    if (op) ops.push(op);
    if ((i & 63) === 63) yield;
  }
  return { kind: 'sparql-update', ops, meta: [], opts: {} };
}

const REUSED_LABEL = 'a blank node label is used in two INSERT DATA operations; labels are scoped to the request';

function invalid(msg: string): LedgraphError { return badRequest(`Invalid SPARQL update: ${msg}`); }

interface ProtocolDataset { using: NamedNode[]; usingNamed: NamedNode[] }

/** The protocol's dataset, when any using-* parameter is given (rule 1). */
function protocolDataset(opts: UpdateParseOptions): ProtocolDataset | undefined {
  const d = opts.usingGraphUris ?? [], n = opts.usingNamedGraphUris ?? [];
  if (d.length === 0 && n.length === 0) return undefined;
  const iri = (name: string) => (v: string): NamedNode => {
    if (!/^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"{}|\\^`]*$/.test(v)) throw invalid(`${name} must be an absolute IRI, got "${v}"`);
    return namedNode(v);
  };
  // As with USING / FROM: naming only one kind leaves the other empty.
  return { using: d.map(iri('using-graph-uri')), usingNamed: n.map(iri('using-named-graph-uri')) };
}

function* translateOperation(u: S.UpdateOperation, n: number, protocol: ProtocolDataset | undefined): Steps<UpdateOperation | undefined> {
  if ('updateType' in u) {
    // Blank node labels are scoped to the operation (sparqljs already rejects one label reused
    // across INSERT DATA operations); the op prefix keeps template labels of different operations,
    // which the pipeline mints per solution within the one commit, apart too.
    const label = opLabeler(n);
    switch (u.updateType) {
      case 'insert': return { type: 'insertData', quads: yield* dataQuads(u.insert, 'INSERT DATA', label) };
      case 'delete': return { type: 'deleteData', quads: yield* dataQuads(u.delete, 'DELETE DATA', null) };
      case 'deletewhere': {
        for (const q of u.delete) for (const t of q.triples) if (hasBlank(t)) throw invalid('blank nodes are not allowed in DELETE WHERE');
        const where = yield* translateGroupSteps(u.delete.map(asPattern), whereEnv());
        return { type: 'modify', where, delete: yield* templateQuads(u.delete, 'delete', label), insert: [] };
      }
      case 'insertdelete': {
        const where = yield* translateGroupSteps(u.where, whereEnv());
        const op: UpdateOperation & { type: 'modify' } = {
          type: 'modify',
          where,
          delete: yield* templateQuads(u.delete ?? [], 'delete', label),
          insert: yield* templateQuads(u.insert ?? [], 'insert', label),
        };
        if (u.graph) op.with = namedNode(u.graph.value);
        if (u.using) {
          op.using = u.using.default.map((t) => namedNode(t.value));
          op.usingNamed = u.using.named.map((t) => namedNode(t.value));
        }
        if (protocol) {
          if (u.using || u.graph) throw invalid(`operation ${n} has its own ${u.graph ? 'WITH' : 'USING'} clause; it cannot be combined with using-graph-uri / using-named-graph-uri`);
          op.using = [...protocol.using];
          op.usingNamed = [...protocol.usingNamed];
        }
        return op;
      }
    }
  }
  switch (u.type) {
    case 'clear': case 'drop': return { type: u.type, target: graphTarget(u.graph), silent: !!u.silent };
    case 'create':
      if (!u.graph.name) throw invalid('CREATE needs a graph IRI');
      return { type: 'create', graph: namedNode(u.graph.name.value), silent: !!u.silent };
    case 'add': case 'move': case 'copy':
      return { type: u.type, from: graphOrDefault(u.source), to: graphOrDefault(u.destination), silent: !!u.silent };
    case 'load':
      // Valid syntax; the pipeline refuses it (no network here), or skips it when SILENT (§3.1.4).
      return { type: 'load', source: namedNode(u.source.value), ...(u.destination ? { into: namedNode(u.destination.value) } : {}), silent: !!u.silent };
  }
}

/** Maps sparqljs blank node labels (`e_<label>` as written, `g_<n>` for `[]` and lists) to per-operation labels. */
function opLabeler(n: number): (b: BlankNode) => BlankNode {
  return (b) => {
    const v = b.value;
    if (v.startsWith('g_')) return blankNode(`op${n}_${v.slice(2)}`);
    return blankNode(`op${n}-${v.startsWith('e_') ? v.slice(2) : v}`);
  };
}

function hasBlank(t: S.Triple): boolean {
  return t.subject.termType === 'BlankNode' || (t.predicate as { termType?: string }).termType === 'BlankNode' || t.object.termType === 'BlankNode';
}

/** A template block as a group graph pattern (for DELETE WHERE's WHERE). */
function asPattern(q: S.Quads): S.Pattern {
  const bgp: S.BgpPattern = { type: 'bgp', triples: q.triples };
  return q.type === 'graph' ? { type: 'graph', name: q.name, patterns: [bgp] } as S.GraphPattern : bgp;
}

function quadTerm(t: S.Term | S.PropertyPath, what: string): Term | Variable {
  if (!('termType' in t)) throw invalid(`property paths are not allowed in ${what}`);
  if (t.termType === 'Quad') throw invalid('quoted triples are not supported');
  return fromRdfJs(t) as Term | Variable;
}

/** INSERT DATA / DELETE DATA: ground quads; `label` maps blank nodes (null: they are an error). */
function* dataQuads(blocks: S.Quads[], what: string, label: ((b: BlankNode) => BlankNode) | null): Steps<TxnQuad[]> {
  const out: TxnQuad[] = [];
  for (const block of blocks) {
    yield;
    let graph: GraphRef = defaultGraph;
    if (block.type === 'graph') {
      if (block.name.termType !== 'NamedNode') throw invalid(`a variable graph name is not allowed in ${what}`);
      graph = namedNode(block.name.value);
    }
    for (const t of block.triples) {
      out.push(dataQuad(t, graph, what, label));
      if ((out.length & 255) === 0) yield;
    }
  }
  return out;
}

/** One ground quad of INSERT DATA / DELETE DATA. */
function dataQuad(t: S.Triple, graph: GraphRef, what: string, label: ((b: BlankNode) => BlankNode) | null): TxnQuad {
  const ground = (x: Term | Variable): Term => {
    if (x.termType === 'Variable') throw invalid(`variables are not allowed in ${what} (?${x.value})`);
    if (x.termType === 'BlankNode') {
      if (!label) throw invalid(`blank nodes are not allowed in ${what}`);
      return label(x);
    }
    return x;
  };
  const s = ground(quadTerm(t.subject as S.Term, what));
  const p = ground(quadTerm(t.predicate, what));
  const o = ground(quadTerm(t.object, what));
  if (s.termType === 'Literal') throw invalid(`a literal cannot be a subject in ${what}`);
  if (p.termType !== 'NamedNode') throw invalid(`a predicate must be an IRI in ${what}`);
  return { subject: s, predicate: p, object: o, graph };
}

/**
 * DELETE / INSERT templates. Triples outside GRAPH blocks keep the default graph (the pipeline
 * applies WITH). A literal subject can never form a triple, so such a template is dropped, as
 * SPARQL drops ill-formed instantiations (§3.1.3).
 */
function* templateQuads(blocks: S.Quads[], kind: 'insert' | 'delete', label: (b: BlankNode) => BlankNode): Steps<TemplateQuad[]> {
  const what = kind === 'insert' ? 'an INSERT template' : 'a DELETE template';
  const out: TemplateQuad[] = [];
  let k = 0;
  for (const block of blocks) {
    const graph: GraphRef | Variable = block.type === 'graph' ? fromRdfJs(block.name) as NamedNode | Variable : defaultGraph;
    for (const t of block.triples) {
      if ((++k & 255) === 0) yield;
      const node = (x: Term | Variable): Term | Variable => {
        if (x.termType !== 'BlankNode') return x;
        if (kind === 'delete') throw invalid('blank nodes are not allowed in a DELETE template');
        return label(x);
      };
      const s = node(quadTerm(t.subject as S.Term, what));
      const p = node(quadTerm(t.predicate, what));
      const o = node(quadTerm(t.object, what));
      if (s.termType === 'Literal') continue;
      if (p.termType !== 'NamedNode' && p.termType !== 'Variable') continue;
      out.push({ subject: s, predicate: p, object: o, graph });
    }
  }
  return out;
}

function graphTarget(g: S.GraphReference): 'default' | 'named' | 'all' | NamedNode {
  if (g.all) return 'all';
  if (g.named) return 'named';
  if (g.default) return 'default';
  if (!g.name) throw invalid('missing graph name');
  return namedNode(g.name.value);
}

function graphOrDefault(g: S.GraphOrDefault): GraphRef {
  if (g.default || !g.name) return defaultGraph;
  return namedNode(g.name.value);
}

/** A sparqljs failure as a 400 naming the line and column where the grammar says. */
function updateSyntaxError(e: unknown, text: string): LedgraphError {
  const place = (offset: number) => positionAt(text, offset);
  if (isLedgraphError(e)) return e;
  const msg = e instanceof Error ? e.message : String(e);
  const hash = (e as { hash?: JisonHash }).hash;
  if (hash?.loc) {
    const got = hash.token === 'EOF' ? 'end of input' : hash.text ? `"${excerpt(hash.text)}"` : String(hash.token);
    const expected = hash.expected && hash.expected.length <= 8 ? `; expecting ${hash.expected.join(', ')}` : '';
    return invalid(`syntax error${place(lookaheadOffset(text, hash))}: unexpected ${got}${expected}`);
  }
  const prefix = /^Unknown prefix: (\S*)/.exec(msg);
  if (prefix) {
    const at = findToken(text, prefix[1]! + ':');
    return invalid(`unknown prefix "${excerpt(prefix[1]!)}:"${at < 0 ? '' : place(at)}`);
  }
  const known: Record<string, string> = {
    'Detected illegal blank node in BGP': 'blank nodes are not allowed in DELETE DATA, DELETE WHERE or a DELETE template',
    'Detected illegal variable in BGP': 'variables are not allowed in INSERT DATA or DELETE DATA',
    'Detected illegal variable in GRAPH': 'a variable graph name is not allowed in INSERT DATA or DELETE DATA',
    'Detected reuse blank node across different INSERT DATA clauses': REUSED_LABEL,
    'SPARQL-star support is not enabled': 'quoted triples are not supported',
  };
  return invalid(known[msg] ?? capMessage(msg.replace(/\s+/g, ' ').trim()));
}

interface JisonHash {
  /** Location of the last token the parser accepted (not of the offending one). */
  loc?: { first_line: number; first_column: number; last_line: number; last_column: number };
  text?: string;
  token?: string;
  expected?: string[];
}

/**
 * Offset of the offending token. jison reports where the last accepted token ends (line and
 * column); the offending one starts after the white space and comments that follow it.
 */
function lookaheadOffset(text: string, hash: JisonHash): number {
  if (hash.token === 'EOF') return text.length;
  const loc = hash.loc!;
  let offset = 0;
  for (let line = 1; line < loc.last_line && offset < text.length; offset++) {
    const c = text.charCodeAt(offset);
    if (c === 10 || (c === 13 && text.charCodeAt(offset + 1) !== 10)) line++;
  }
  const skip = /(?:\s|#[^\n\r]*)*/y;
  skip.lastIndex = Math.min(offset + loc.last_column, text.length);
  skip.exec(text);
  return skip.lastIndex;
}
