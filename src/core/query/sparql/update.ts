/**
 * SPARQL 1.1 Update text -> a `sparql-update` TxnRequest for the one write pipeline (W3C SPARQL 1.1
 * Update §3). sparqljs does the grammar; this file maps each operation onto `UpdateOperation`,
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
import type { Op } from '../algebra/algebra.js';
import { HIDDEN_PREFIX } from '../algebra/vars.js';
import { parseSparql } from './parse.js';
import { locateToken } from './lexer.js';
import { checkSparqlNesting } from './nesting-scan.js';
import { translateGroup, type PatternEnv } from './parse-pattern.js';

export interface UpdateParseOptions {
  /** Base IRI for relative IRIs (a BASE in the request overrides it). */
  baseIri?: string;
  /** Protocol `using-graph-uri` values: the WHERE default graph of every DELETE/INSERT ... WHERE. */
  usingGraphUris?: string[];
  /** Protocol `using-named-graph-uri` values: the WHERE named graphs of every DELETE/INSERT ... WHERE. */
  usingNamedGraphUris?: string[];
}


/** Parse SPARQL 1.1 Update text into one `sparql-update` request; a syntax or static error is a 400. */
export function parseSparqlUpdate(text: string, opts: UpdateParseOptions = {}): TxnRequest {
  checkSparqlNesting(text, 'the SPARQL update');
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
  const updates = parsed.type === 'update' ? parsed.updates : [];
  const protocol = protocolDataset(opts);
  if (protocol && updates.some((u) => 'updateType' in u && u.updateType === 'deletewhere')) {
    throw invalid('using-graph-uri / using-named-graph-uri cannot be combined with DELETE WHERE, which has no USING form');
  }
  const ops: UpdateOperation[] = [];
  withinStack('the SPARQL update', () => updates.forEach((u, i) => {
    const op = translateOperation(u, i + 1, protocol);
    if (op) ops.push(op);
  }));
  return { kind: 'sparql-update', ops, meta: [], opts: {} };
}

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

function translateOperation(u: S.UpdateOperation, n: number, protocol: ProtocolDataset | undefined): UpdateOperation | undefined {
  if ('updateType' in u) {
    // Blank node labels are scoped to the operation (sparqljs already rejects one label reused
    // across INSERT DATA operations); the op prefix keeps template labels of different operations,
    // which the pipeline mints per solution within the one commit, apart too.
    const label = opLabeler(n);
    switch (u.updateType) {
      case 'insert': return { type: 'insertData', quads: dataQuads(u.insert, 'INSERT DATA', label) };
      case 'delete': return { type: 'deleteData', quads: dataQuads(u.delete, 'DELETE DATA', null) };
      case 'deletewhere': {
        for (const q of u.delete) for (const t of q.triples) if (hasBlank(t)) throw invalid('blank nodes are not allowed in DELETE WHERE');
        const where = translateGroup(u.delete.map(asPattern), patternEnv());
        return { type: 'modify', where, delete: templateQuads(u.delete, 'delete', label), insert: [] };
      }
      case 'insertdelete': {
        const op: UpdateOperation & { type: 'modify' } = {
          type: 'modify',
          where: translateGroup(u.where, patternEnv()),
          delete: templateQuads(u.delete ?? [], 'delete', label),
          insert: templateQuads(u.insert ?? [], 'insert', label),
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
function dataQuads(blocks: S.Quads[], what: string, label: ((b: BlankNode) => BlankNode) | null): TxnQuad[] {
  const out: TxnQuad[] = [];
  for (const block of blocks) {
    let graph: GraphRef = defaultGraph;
    if (block.type === 'graph') {
      if (block.name.termType !== 'NamedNode') throw invalid(`a variable graph name is not allowed in ${what}`);
      graph = namedNode(block.name.value);
    }
    for (const t of block.triples) {
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
      out.push({ subject: s, predicate: p, object: o, graph });
    }
  }
  return out;
}

/**
 * DELETE / INSERT templates. Triples outside GRAPH blocks keep the default graph (the pipeline
 * applies WITH). A literal subject can never form a triple, so such a template is dropped, as
 * SPARQL drops ill-formed instantiations (§3.1.3).
 */
function templateQuads(blocks: S.Quads[], kind: 'insert' | 'delete', label: (b: BlankNode) => BlankNode): TemplateQuad[] {
  const what = kind === 'insert' ? 'an INSERT template' : 'a DELETE template';
  const out: TemplateQuad[] = [];
  for (const block of blocks) {
    const graph: GraphRef | Variable = block.type === 'graph' ? fromRdfJs(block.name) as NamedNode | Variable : defaultGraph;
    for (const t of block.triples) {
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

/**
 * Translation state for one WHERE clause. parse.ts keeps its subquery translator private, so a
 * subquery goes back to text (sparqljs's generator writes full IRIs) and through parseSparql; its
 * hidden variables are projected away, so names it reuses cannot clash with this clause's.
 */
function patternEnv(): PatternEnv {
  let n = 0;
  return {
    fresh: (kind) => `${HIDDEN_PREFIX}u${kind}${n++}`,
    subquery: (q): Op => parseSparql(new sparqljs.Generator().stringify(q)).op,
  };
}

/** A sparqljs failure as a 400 naming the line and column where the grammar says. */
function updateSyntaxError(e: unknown, text: string): LedgraphError {
  if (isLedgraphError(e)) return e;
  const msg = e instanceof Error ? e.message : String(e);
  const hash = (e as { hash?: JisonHash }).hash;
  if (hash?.loc) {
    const got = hash.token === 'EOF' ? 'end of input' : hash.text ? `"${excerpt(hash.text)}"` : String(hash.token);
    const expected = hash.expected && hash.expected.length <= 8 ? `; expecting ${hash.expected.join(', ')}` : '';
    return invalid(`syntax error${lookaheadAt(text, hash)}: unexpected ${got}${expected}`);
  }
  const prefix = /^Unknown prefix: (\S*)/.exec(msg);
  if (prefix) return invalid(`unknown prefix "${excerpt(prefix[1]!)}:"${locateToken(text, prefix[1]! + ':')}`);
  const known: Record<string, string> = {
    'Detected illegal blank node in BGP': 'blank nodes are not allowed in DELETE DATA, DELETE WHERE or a DELETE template',
    'Detected illegal variable in BGP': 'variables are not allowed in INSERT DATA or DELETE DATA',
    'Detected illegal variable in GRAPH': 'a variable graph name is not allowed in INSERT DATA or DELETE DATA',
    'Detected reuse blank node across different INSERT DATA clauses': 'a blank node label is used in two INSERT DATA operations; labels are scoped to the request',
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
 * ` at line L, column C` of the offending token. jison reports where the last accepted token
 * ends; the offending one starts after the whitespace and comments that follow it.
 */
function lookaheadAt(text: string, hash: JisonHash): string {
  const loc = hash.loc!;
  const lines = text.split(/\r\n|\r|\n/);
  if (hash.token === 'EOF') return ` at line ${lines.length}, column ${lines[lines.length - 1]!.length + 1}`;
  let line = loc.last_line, col = loc.last_column;
  for (;;) {
    const rest = lines[line - 1]?.slice(col) ?? '';
    const skip = /^(?:\s|#.*$)*/.exec(rest)![0].length;
    if (skip < rest.length || line >= lines.length) { col += skip; break; }
    line++; col = 0;
  }
  return ` at line ${line}, column ${col + 1}`;
}

/** ` at line L, column C` of the first occurrence of `token` that starts a word, or ''. */

