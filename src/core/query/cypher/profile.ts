/**
 * What the literal values of one property look like in one view (compile.ts): whether any node has
 * more than one, and which kinds of value occur. Exact, not an estimate: one scan of the property's
 * facts in the default graph, cached per view (a snapshot never changes; a policy view scans only
 * what it shows). When a property has at most one plain value per node, `n.key` is exactly one
 * triple pattern's variable and the compiled query needs no per-row guard.
 */
import type { DbView } from '../../index/view.js';
import { namedNode, type Term } from '../../rdf/terms.js';
import { numericValue } from '../../rdf/values.js';
import { RDF, XSD } from '../../rdf/vocab.js';
import { fromTerm } from './values.js';

/** Kinds of literal value; 'other' is anything the compiled translation does not claim to match exactly. */
export type Kind = 'int' | 'double' | 'string' | 'bool' | 'temporal' | 'other';

/**
 * `numerals`: every value's lexical form is a plain decimal numeral (optional sign, digits, point,
 * exponent; no spaces, INF or NaN), where Cypher's `toFloat` (JavaScript's Number of the value or
 * its string) and SPARQL's `xsd:double(str(…))` give the same double.
 */
export interface PropProfile {
  functional: boolean; kinds: ReadonlySet<Kind>; numerals: boolean;
  /** No object of the property is an IRI or blank node: its triple pattern binds literals only. */
  literalsOnly: boolean;
  /** The datatype IRIs of its values. */
  datatypes: ReadonlySet<string>;
}

const NUMERAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** The kind of a literal, where Cypher's reading (fromTerm) and SPARQL's agree. */
export function kindOf(t: Term): Kind {
  if (t.termType !== 'Literal') return 'other';
  const dt = t.datatype.value;
  if (dt === XSD + 'integer') return numericValue(t) !== undefined && typeof fromTerm(t) === 'bigint' ? 'int' : 'other';
  if (dt === XSD + 'double') { const v = fromTerm(t); return numericValue(t) !== undefined && typeof v === 'number' && !Number.isNaN(v) ? 'double' : 'other'; }
  if (dt === XSD + 'string' || dt === RDF + 'langString') return 'string';
  if (dt === XSD + 'boolean') return t.value === 'true' || t.value === 'false' ? 'bool' : 'other';
  if (dt === XSD + 'date' || dt === XSD + 'dateTime' || dt === XSD + 'time') return 'temporal';
  return 'other';
}

const cache = new WeakMap<object, Map<string, Promise<PropProfile>>>();

/** The profile of property `iri` in `view` (default graph). */
export function profileOf(view: DbView, iri: string, signal?: AbortSignal): Promise<PropProfile> {
  let m = cache.get(view);
  if (!m) cache.set(view, m = new Map());
  let p = m.get(iri);
  if (!p) {
    p = scanProfile(view, iri, signal);
    m.set(iri, p);
    p.catch(() => m!.delete(iri));
  }
  return p;
}

async function scanProfile(view: DbView, iri: string, signal?: AbortSignal): Promise<PropProfile> {
  const dict = view.dict;
  const pid = dict.idOf(namedNode(iri));
  const kinds = new Set<Kind>();
  let functional = true;
  let numerals = true;
  let literalsOnly = true;
  const datatypes = new Set<string>();
  if (pid === undefined) return { functional, kinds, numerals, literalsOnly, datatypes };
  const seen = new Set<number>();
  const kindById = new Map<number, Kind>();
  for await (const b of view.scan({ g: 0, p: pid }, signal ? { signal } : undefined)) {
    for (let k = 0; k < b.n; k++) {
      const o = b.o[k]!;
      if (dict.kind(o) !== 2) { literalsOnly = false; continue; }
      const s = b.s[k]!;
      if (seen.has(s)) functional = false;
      else seen.add(s);
      let kind = kindById.get(o);
      if (kind === undefined) {
        const t = dict.term(o);
        kindById.set(o, kind = kindOf(t));
        if (numerals && !NUMERAL.test(t.value)) numerals = false;
        if (t.termType === 'Literal') datatypes.add(t.datatype.value);
      }
      kinds.add(kind);
    }
  }
  return { functional, kinds, numerals, literalsOnly, datatypes };
}
