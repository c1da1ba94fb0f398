/**
 * RDF terms in the RDF/JS shape (so n3 and sparqljs terms interoperate), plus the canonical
 * string key that identifies a term in dictionaries.
 *
 * Key grammar (unambiguous because IRIs cannot contain `|` and language tags are [A-Za-z0-9-]):
 *   IRI        -> the IRI itself (never starts with `_` `"` or `?`)
 *   blank node -> `_:` + label
 *   literal    -> `"` + datatype IRI + `|` + language + `|` + lexical form
 */
import { rdf, xsd } from './vocab.js';

export interface NamedNode { termType: 'NamedNode'; value: string }
export interface BlankNode { termType: 'BlankNode'; value: string }
export interface Literal { termType: 'Literal'; value: string; language: string; datatype: NamedNode }
export interface Variable { termType: 'Variable'; value: string }
export interface DefaultGraph { termType: 'DefaultGraph'; value: '' }
export type Term = NamedNode | BlankNode | Literal;
export type AnyTerm = Term | Variable | DefaultGraph;

/** A quad of terms; `graph` is the default graph or a named graph IRI. */
export interface Quad { subject: Term; predicate: NamedNode; object: Term; graph: NamedNode | DefaultGraph | BlankNode; listIndex?: number }

const nnCache = new Map<string, NamedNode>();
/** An IRI term (interned for common datatype IRIs). */
export function namedNode(value: string): NamedNode {
  let n = nnCache.get(value);
  if (n) return n;
  n = { termType: 'NamedNode', value };
  if (nnCache.size < 4096) nnCache.set(value, n);
  return n;
}
export function blankNode(label: string): BlankNode { return { termType: 'BlankNode', value: label }; }
export function variable(name: string): Variable { return { termType: 'Variable', value: name }; }
export const defaultGraph: DefaultGraph = { termType: 'DefaultGraph', value: '' };

/** A literal; a language tag implies rdf:langString, no datatype implies xsd:string. */
export function literal(value: string, languageOrDatatype?: string | NamedNode): Literal {
  if (typeof languageOrDatatype === 'string' && languageOrDatatype !== '' && !languageOrDatatype.includes(':')) {
    return { termType: 'Literal', value, language: languageOrDatatype.toLowerCase(), datatype: namedNode(rdf.langString) };
  }
  const dt = typeof languageOrDatatype === 'string'
    ? namedNode(languageOrDatatype || xsd.string)
    : languageOrDatatype ?? namedNode(xsd.string);
  return { termType: 'Literal', value, language: '', datatype: dt };
}

/** The dictionary key of a term (see the grammar above). */
export function termKey(t: Term): string {
  switch (t.termType) {
    case 'NamedNode': return t.value;
    case 'BlankNode': return '_:' + t.value;
    case 'Literal': return '"' + t.datatype.value + '|' + t.language + '|' + t.value;
  }
}

/** Decode a dictionary key back into a term. */
export function keyToTerm(key: string): Term {
  const c = key.charCodeAt(0);
  if (c === 34 /* " */) {
    const a = key.indexOf('|');
    const b = key.indexOf('|', a + 1);
    const dt = key.slice(1, a);
    const lang = key.slice(a + 1, b);
    return { termType: 'Literal', value: key.slice(b + 1), language: lang, datatype: namedNode(dt) };
  }
  if (c === 95 /* _ */ && key.charCodeAt(1) === 58 /* : */) return { termType: 'BlankNode', value: key.slice(2) };
  return namedNode(key);
}

/** Kind of a key without decoding it: 0 IRI, 1 blank node, 2 literal. */
export function keyKind(key: string): 0 | 1 | 2 {
  const c = key.charCodeAt(0);
  if (c === 34) return 2;
  if (c === 95 && key.charCodeAt(1) === 58) return 1;
  return 0;
}

/**
 * The graph table key of a graph name: the IRI itself, or `_:` + label for a blank-node graph name
 * (the dictionary key grammar above, so the two can never collide).
 */
export function graphNameKey(g: NamedNode | BlankNode): string {
  return g.termType === 'BlankNode' ? '_:' + g.value : g.value;
}

/** The graph name a graph table key stands for (inverse of `graphNameKey`). */
export function graphNameTerm(key: string): NamedNode | BlankNode {
  return key.charCodeAt(0) === 95 /* _ */ && key.charCodeAt(1) === 58 /* : */ ? blankNode(key.slice(2)) : namedNode(key);
}

/** RDF term equality (sameTerm). */
export function termEquals(a: AnyTerm | null | undefined, b: AnyTerm | null | undefined): boolean {
  if (!a || !b) return a === b;
  if (a.termType !== b.termType || a.value !== b.value) return false;
  if (a.termType === 'Literal') {
    const bl = b as Literal;
    return a.language === bl.language && a.datatype.value === bl.datatype.value;
  }
  return true;
}

/** Convert any RDF/JS term (n3, sparqljs) into ours. */
export function fromRdfJs(t: { termType: string; value: string; language?: string; datatype?: { value: string } }): AnyTerm {
  switch (t.termType) {
    case 'NamedNode': return namedNode(t.value);
    case 'BlankNode': return blankNode(t.value);
    case 'Variable': return variable(t.value);
    case 'DefaultGraph': return defaultGraph;
    case 'Literal':
      if (t.language) return literal(t.value, t.language);
      return literal(t.value, namedNode(t.datatype?.value ?? xsd.string));
    default: throw new Error('unsupported term type ' + t.termType);
  }
}
