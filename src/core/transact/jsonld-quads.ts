/**
 * Expanded JSON-LD (jsonld.js output) -> transaction quads (jsonld-transactions.md §3): node
 * objects, `@type`, `@reverse`, `@included`, named graphs, value and list objects. Lists become
 * ordered values with a list index (§3.3), never rdf:first/rest chains; every IRI must be absolute
 * (a relative one is a 400 naming it); unlabeled blank nodes get labels b0, b1, ... once the whole
 * document is seen. In update templates, variables arrive as placeholder IRIs (`VAR_PREFIX`).
 * Statements JSON-LD's toRdf drops (an ill-formed IRI or language tag, a blank-node property) are
 * dropped here too, and each dropped value is named in `warnings()` for the receipt.
 */
import { badRequest } from '../errors.js';
import { quote } from '../excerpt.js';
import {
  type BlankNode, type NamedNode, type Term, type Variable, blankNode, defaultGraph, literal, namedNode, variable,
} from '../rdf/terms.js';
import { F, OWL, RDF, RDFS, SHACL, XSD, rdf } from '../rdf/vocab.js';
import { coerceJsonValue, doubleLiteral, typedLiteral } from '../rdf/values.js';
import { canonicalDouble, isKnownDatatype } from '../rdf/datatypes.js';
import { jsonLiteral, jsonNumberLiteral } from '../query/jsonld/expr.js';
import type { GraphName, TemplateQuad } from './txn-request.js';
import { relativeIriError, type Expanded } from './jsonld-expand.js';
import { MAX_GRAPH_IRI_BYTES, utf8Length } from './txn-opts.js';

/** Placeholder IRI prefix standing for a template variable while jsonld.js expands a template. */
export const VAR_PREFIX = 'urn:x-ledgraph-variable:';
/** Property carrying a node's `"@graph": "<IRI>"` (Ledgraph extension, §7) through expansion. */
export const GRAPH_KEY = 'urn:x-ledgraph-node-graph';
/** The graph name "default" through expansion. */
export const DEFAULT_GRAPH_IRI = 'urn:x-ledgraph-default-graph';

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const INVALID_IRI_CHARS = /[\u0000-\u0020<>"{}|^`\\]/;
const BUILTIN_PREFIXES: Readonly<Record<string, string>> = { rdf: RDF, rdfs: RDFS, xsd: XSD, owl: OWL, sh: SHACL, f: F };
const LANG_TAG = /^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$/;

type Subject = NamedNode | BlankNode | Variable;
/** A graph target: default, named by an IRI or a blank node, or a variable (update templates). */
export type GraphTarget = GraphName | Variable;
/** What the writer produces: plain data, or delete / insert templates of an update. */
export type WriteMode = 'data' | 'delete' | 'insert';

/** Accumulates quads from expanded node objects. */
export class ExpandedWriter {
  readonly quads: TemplateQuad[] = [];
  mode: WriteMode;
  private readonly anon: BlankNode[] = [];
  private readonly used = new Set<string>();
  /** IRIs (and blank-node property keys) whose statements JSON-LD drops, with why. */
  private readonly unstorable = new Map<string, string>();
  /** Dropped values -> statements not stored, in order of discovery. */
  private readonly dropped = new Map<string, { what: string; n: number }>();

  constructor(mode: WriteMode) { this.mode = mode; }

  private get templates(): boolean { return this.mode !== 'data'; }

  /**
   * Write one expanded node object's facts into graph `g`; returns its subject. `nested` = it is
   * the value of a property (so it needs a subject even without properties).
   */
  node(n: Expanded, g: GraphTarget, nested: boolean): Subject | undefined {
    let graph = g;
    const own = n[GRAPH_KEY] as Expanded[] | undefined;
    if (own !== undefined) graph = this.graphOf(own);
    const types = n['@type'] as string[] | undefined;
    const content = n['@graph'] as Expanded[] | undefined;
    const reverse = n['@reverse'] as Record<string, Expanded[]> | undefined;
    const props = Object.keys(n).filter((k) => !k.startsWith('@') && k !== GRAPH_KEY);
    const id = n['@id'] as string | undefined;
    // A node with @graph names a graph: by its @id, else by a fresh blank node (JSON-LD 1.1 node map
    // generation); only the top of a document form is the default graph (parse-jsonld.ts).
    const needSubject = nested || types !== undefined || props.length > 0 || reverse !== undefined || content !== undefined;
    const subject = needSubject ? this.subject(id) : undefined;
    if (content) {
      const cg: GraphTarget = subject!.termType === 'NamedNode' ? checkedGraph(subject!.value, this.lenientIri) : subject!;
      for (const x of content) this.node(x, cg, false);
    }
    for (const x of (n['@included'] as Expanded[] | undefined) ?? []) this.node(x, graph, false);
    if (!subject) return undefined;
    if (types !== undefined) {
      const p = namedNode(rdf.type);
      for (const t of types) this.push(subject, p, this.ref(t, '@type'), graph, undefined, false);
    }
    for (const key of props) {
      const p = this.predicate(key);
      for (const v of n[key] as Expanded[]) this.value(subject, p, v, graph, undefined);
    }
    if (reverse) {
      for (const [key, values] of Object.entries(reverse)) {
        const p = this.predicate(key);
        if (p.termType === 'NamedNode' && p.value === rdf.type) throw badRequest('@type cannot be written as a reverse property');
        for (const v of values) {
          const o = isReference(v) ? this.ref(v['@id'] as string, 'reverse reference') : this.node(v, graph, true)!;
          this.push(o, p, subject, graph, undefined, false);
        }
      }
    }
    return subject;
  }

  private predicate(key: string): NamedNode | Variable {
    if (key.startsWith(VAR_PREFIX)) return this.variableOf(key);
    if (key.startsWith('_:')) {
      // Not RDF (generalized RDF only): JSON-LD drops the statements, so do we, and say so.
      this.unstorable.set(key, 'blank-node property');
      return namedNode(key);
    }
    const p = this.lenientIri(key, 'property');
    if (p.value === rdf.type) throw badRequest(`${key} cannot be used as a property: write the type with @type`);
    return p;
  }

  private subject(id: string | undefined): Subject {
    if (id === undefined) {
      if (this.mode === 'delete') throw badRequest('a delete template cannot contain a node without @id: use a variable ("@id": "?x")');
      const b = blankNode('');
      this.anon.push(b);
      return b;
    }
    return this.ref(id, '@id');
  }

  /** An IRI, blank node or variable written as an expanded IRI string. */
  private ref(s: string, what: string): NamedNode | BlankNode | Variable {
    if (s.startsWith(VAR_PREFIX)) return this.variableOf(s);
    if (s.startsWith('_:')) return this.labeled(s.slice(2));
    return this.lenientIri(s, what);
  }

  /** An absolute IRI; an ill-formed one is kept as a term whose statements `push` drops. */
  private readonly lenientIri = (raw: string, what: string): NamedNode => {
    const known = checkedIris.get(raw);
    if (known !== undefined) return known;
    const { node, wellFormed } = parseIri(raw, what);
    if (!wellFormed) this.unstorable.set(node.value, 'ill-formed IRI');
    return node;
  };

  /** Count one statement not stored because of `value`. */
  private drop(value: string, what: string): void {
    const d = this.dropped.get(value);
    if (d) d.n++; else this.dropped.set(value, { what, n: 1 });
  }

  /** `drop` for valueTerm, bound once (values are the hot path). */
  private readonly dropValue = (value: string, what: string): void => this.drop(value, what);

  /** One warning per dropped value: what it is, the value, how many statements were not stored. */
  warnings(): string[] {
    return [...this.dropped].map(([value, { what, n }]) => `${what} ${quote(value)}: ${n} statement${n === 1 ? '' : 's'} not stored (JSON-LD drops ${n === 1 ? 'it' : 'them'})`);
  }

  private variableOf(placeholder: string): Variable {
    if (!this.templates) throw badRequest('variables are only allowed in update templates');
    return variable(placeholder.slice(VAR_PREFIX.length));
  }

  private labeled(label: string): BlankNode {
    if (label === '') throw badRequest('invalid blank node identifier "_:"');
    this.used.add(label);
    return blankNode(label);
  }

  private graphOf(values: Expanded[]): GraphTarget {
    const id = values.length === 1 ? values[0]!['@id'] : undefined;
    if (typeof id !== 'string') throw badRequest('@graph on a node must be one graph IRI');
    if (id === DEFAULT_GRAPH_IRI) return defaultGraph;
    if (id.startsWith(VAR_PREFIX)) return this.variableOf(id);
    return this.graphName(id);
  }

  /** The graph an expanded `@id` names: a blank node (labelled like subjects) or a checked IRI. */
  graphName(id: string): GraphName {
    return id.startsWith('_:') ? this.labeled(id.slice(2)) : checkedGraph(id, this.lenientIri);
  }

  /** Write one expanded value (value object, list object, reference or nested node). */
  private value(s: Subject, p: NamedNode | Variable, v: Expanded, g: GraphTarget, listIndex: number | undefined): void {
    if ('@value' in v) {
      const value = valueTerm(v, this.dropValue);
      if (value !== undefined) this.push(s, p, value.term, g, listIndex, value.loose);
      return;
    }
    if ('@list' in v) {
      if (listIndex !== undefined) throw badRequest('nested lists are not supported: a list item cannot be a list');
      let i = 0;
      for (const item of v['@list'] as Expanded[]) this.value(s, p, item, g, i++);
      return;
    }
    // {"@id": null} (e.g. an @id that looked like a keyword) refers to nothing: JSON-LD ignores it.
    if (v['@id'] === null && Object.keys(v).every((k) => k === '@id' || k === '@index')) return;
    const o = isReference(v) ? this.ref(v['@id'] as string, 'reference') : this.node(v, g, true)!;
    this.push(s, p, o, g, listIndex, false);
  }

  private push(s: Subject, p: NamedNode | Variable, o: Term | Variable, g: GraphTarget, listIndex: number | undefined, loose: boolean): void {
    if (this.unstorable.size > 0) {
      for (const t of [s, p, o, g]) {
        const why = t.termType === 'NamedNode' ? this.unstorable.get(t.value) : undefined;
        if (why !== undefined) { this.drop(t.value, why); return; }
      }
    }
    if (s.termType === 'BlankNode') this.used.add(s.value);
    if (o.termType === 'BlankNode') this.used.add(o.value);
    const q: TemplateQuad = { subject: s, predicate: p, object: o, graph: g };
    if (listIndex !== undefined) q.listIndex = listIndex;
    if (loose && this.mode === 'delete') q.looseObject = true;
    this.quads.push(q);
  }

  /** Give unlabeled blank nodes their labels (b0, b1, ... skipping used ones) and drop duplicates. */
  finish(): TemplateQuad[] {
    let n = 0;
    for (const b of this.anon) {
      while (this.used.has('b' + n)) n++;
      (b as { value: string }).value = 'b' + n++;
    }
    this.anon.length = 0;
    return dedupeQuads(this.quads);
  }
}

/** A node reference: an object with `@id` and nothing else that writes facts. */
function isReference(v: Expanded): boolean {
  for (const k of Object.keys(v)) if (k !== '@id' && k !== '@index') return false;
  return typeof v['@id'] === 'string';
}

/**
 * The literal of an expanded value object (§3.3–3.4). `loose`: a plain JSON scalar without
 * datatype or language, which a delete matches by value (§3.5). With `drop`, an ill-formed
 * language tag or datatype IRI is reported to it and there is no literal (JSON-LD drops the
 * statement); without, it is a 400.
 */
export function valueTerm(v: Expanded, drop?: (value: string, what: string) => void): { term: Term; loose: boolean } | undefined {
  const value = v['@value'];
  const type = v['@type'] as string | undefined;
  const lang = v['@language'] as string | undefined;
  if (type === '@json') return { term: jsonLiteral(value), loose: false };
  if (value === null || typeof value === 'object') throw badRequest('@value must be a string, number or boolean unless @type is @json');
  const scalar = value as string | number | boolean;
  if (lang !== undefined) {
    if (!LANG_TAG.test(lang)) {
      if (drop) { drop(lang, 'ill-formed language tag'); return undefined; }
      throw badRequest(`invalid @language ${quote(lang)}: not a BCP 47 language tag`);
    }
    return { term: literal(String(scalar), lang), loose: false };
  }
  if (type !== undefined) {
    if (typeof type !== 'string') throw badRequest(`invalid typed value: @type of a value object must be one IRI, got ${quote(type)}`);
    if (type.startsWith(VAR_PREFIX) || type.startsWith('_:')) throw badRequest(`invalid datatype ${quote(type)}`);
    const { node, wellFormed } = parseIri(type, 'datatype');
    if (!wellFormed) {
      if (drop) { drop(node.value, 'ill-formed IRI'); return undefined; }
      throw illFormedIri(node.value, 'datatype');
    }
    const dt = node.value;
    // A JSON number with a datatype Ledgraph does not know keeps JSON-LD's lexical form (canonical xsd:double text unless integral).
    if (typeof scalar === 'number' && !isKnownDatatype(dt)) return { term: typedLiteral(jsonLdNumberText(scalar), dt), loose: false };
    return { term: coerceJsonValue(scalar, dt), loose: false };
  }
  if (typeof scalar === 'string') return { term: literal(scalar), loose: true };
  if (typeof scalar === 'number') {
    // JSON-LD: integral numbers below 10^21 are xsd:integer, every other number xsd:double.
    return { term: isJsonLdInteger(scalar) || !Number.isInteger(scalar) ? jsonNumberLiteral(scalar) : doubleLiteral(scalar), loose: true };
  }
  return { term: coerceJsonValue(scalar, 'http://www.w3.org/2001/XMLSchema#boolean'), loose: true };
}

/** IRIs already checked (vocabulary and datatype IRIs repeat in every document). */
const checkedIris = new Map<string, NamedNode>();
const CHECKED_LIMIT = 10_000;

function isJsonLdInteger(n: number): boolean { return Number.isInteger(n) && Math.abs(n) < 1e21; }

function jsonLdNumberText(n: number): string {
  if (!Number.isFinite(n)) throw badRequest(`invalid number ${n}`);
  return isJsonLdInteger(n) ? String(n) : canonicalDouble(n);
}

/** An absolute IRI term: a relative reference or a string no IRI may contain is a 400 naming it. */
export function iri(raw: string, what: string): NamedNode {
  const known = checkedIris.get(raw);
  if (known !== undefined) return known;
  const { node, wellFormed } = parseIri(raw, what);
  if (!wellFormed) throw illFormedIri(node.value, what);
  return node;
}

/**
 * An absolute IRI term, and whether it is well-formed (no spaces, `<>"{}|^`\` or second `#`:
 * JSON-LD drops such statements). Empty and relative references are 400s naming the value.
 */
export function parseIri(raw: string, what: string): { node: NamedNode; wellFormed: boolean } {
  const known = checkedIris.get(raw);
  if (known !== undefined) return { node: known, wellFormed: true };
  if (raw === '') throw badRequest(`empty IRI in ${what}`);
  const s = withBuiltinPrefix(raw);
  if (!SCHEME.test(s)) throw relativeIriError(s);
  const n = namedNode(s);
  if (INVALID_IRI_CHARS.test(s) || s.indexOf('#') !== s.lastIndexOf('#')) return { node: n, wellFormed: false };
  if (checkedIris.size >= CHECKED_LIMIT) checkedIris.clear();
  checkedIris.set(raw, n);
  return { node: n, wellFormed: true };
}

function illFormedIri(s: string, what: string) { return badRequest(`invalid IRI ${quote(s)} in ${what}`); }

/**
 * `rdf:`, `rdfs:`, `xsd:`, `owl:`, `sh:` and `f:` expand even when the context does not declare
 * them (jsonld-query.md §2.2); JSON-LD leaves such an undeclared compact IRI as written.
 */
function withBuiltinPrefix(s: string): string {
  const colon = s.indexOf(':');
  if (colon < 1 || colon > 4) return s;
  const ns = BUILTIN_PREFIXES[s.slice(0, colon)];
  return ns !== undefined && !s.startsWith('//', colon + 1) ? ns + s.slice(colon + 1) : s;
}

/** A named graph IRI, enforcing the reserved names and the size limit (§7); `toIri` checks the IRI. */
export function checkedGraph(g: string, toIri: (raw: string, what: string) => NamedNode = iri): NamedNode {
  if (g === 'txn-meta' || g === 'default') throw badRequest(`the graph name "${g}" is reserved`);
  if (utf8Length(g) > MAX_GRAPH_IRI_BYTES) throw badRequest(`graph IRI too long: at most ${MAX_GRAPH_IRI_BYTES} bytes`);
  return toIri(g, 'graph');
}

/** Quads without duplicates (same terms, graph, list index and matching mode). */
export function dedupeQuads(quads: TemplateQuad[]): TemplateQuad[] {
  const seen = new Set<string>();
  const out: TemplateQuad[] = [];
  for (const q of quads) {
    const k = part(q.subject) + part(q.predicate) + part(q.object) + part(q.graph) + (q.listIndex ?? '') + (q.looseObject ? '~' : '');
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(q);
  }
  return out;
}

/** An unambiguous key part: kind, then length-prefixed strings. */
function part(t: Term | Variable | GraphName): string {
  if (t.termType === 'Literal') return `L${t.value.length}:${t.value}${t.language.length}:${t.language}${t.datatype.value.length}:${t.datatype.value}`;
  return `${t.termType[0]}${t.value.length}:${t.value}`;
}
