/** Names ↔ IRIs through the ledger's default context (cypher.md §3). */
import type { Term } from '../../rdf/terms.js';
import { F, OWL, RDF, RDFS, SHACL, XSD } from '../../rdf/vocab.js';

const BUILTIN: Record<string, string> = { rdf: RDF, rdfs: RDFS, xsd: XSD, owl: OWL, sh: SHACL, f: F };

/** A processed default context: terms, prefixes and @vocab. */
export class Names {
  private terms = new Map<string, string>();
  private vocab: string | undefined;
  private base: string | undefined;
  /** IRI → its shortest (then lexically first) term. */
  private byIri = new Map<string, string>();

  constructor(context: unknown) {
    const ctxs = Array.isArray(context) ? context : [context];
    for (const c of ctxs) {
      if (typeof c !== 'object' || c === null) continue;
      for (const [k, raw] of Object.entries(c as Record<string, unknown>)) {
        if (k === '@vocab' && typeof raw === 'string') { this.vocab = raw; continue; }
        if (k === '@base' && typeof raw === 'string') { this.base = raw; continue; }
        if (k.startsWith('@')) continue;
        const iri = typeof raw === 'string' ? raw : typeof raw === 'object' && raw !== null && typeof (raw as { '@id'?: unknown })['@id'] === 'string' ? (raw as { '@id': string })['@id'] : undefined;
        if (iri !== undefined) this.terms.set(k, iri);
      }
    }
    for (const [k] of this.terms) this.terms.set(k, this.expandPrefixed(this.terms.get(k)!));
    for (const [k, iri] of this.terms) {
      const cur = this.byIri.get(iri);
      if (cur === undefined || k.length < cur.length || (k.length === cur.length && k < cur)) this.byIri.set(iri, k);
    }
  }

  private expandPrefixed(s: string): string {
    const i = s.indexOf(':');
    if (i <= 0 || s.startsWith('//', i + 1)) return s;
    const p = s.slice(0, i);
    const ns = this.terms.get(p) ?? BUILTIN[p];
    return ns !== undefined && ns !== s ? ns + s.slice(i + 1) : s;
  }

  /** The IRI a label, type or key name addresses (§3 name → IRI). */
  iri(name: string): string {
    const t = this.terms.get(name);
    if (t !== undefined) return t;
    if (name.includes(':')) return this.expandPrefixed(name);
    if (this.vocab !== undefined) return this.vocab + name;
    return name;
  }

  /** An `@id` value expanded like JSON-LD (prefixes, @base). */
  id(value: string): string {
    if (value.includes(':')) return this.expandPrefixed(value);
    return this.base !== undefined ? new URL(value, this.base).href : value;
  }

  /** The name of an IRI (§3 IRI → name). */
  name(iri: string): string {
    const t = this.byIri.get(iri);
    if (t !== undefined) return t;
    if (this.vocab !== undefined && iri.startsWith(this.vocab) && iri.length > this.vocab.length) return iri.slice(this.vocab.length);
    return iri;
  }

  /** Prefixes a node identity may be compacted with: namespaces ending in `/`, `#`, `:` or `?`. */
  private prefixes: [string, string][] | undefined;

  /** A node identity compacted with prefixes only (never @vocab); blank nodes as stored. */
  nodeId(t: Term): string {
    return t.termType === 'BlankNode' ? '_:' + t.value : this.compact(t.value);
  }

  /** nodeId memoised for one result (its rows repeat their nodes). */
  memo(): Pick<Names, 'nodeId' | 'name'> {
    const seen = new Map<string, string>();
    return {
      name: (iri: string) => this.name(iri),
      nodeId: (t: Term) => {
        if (t.termType === 'BlankNode') return '_:' + t.value;
        let c = seen.get(t.value);
        if (c === undefined) seen.set(t.value, c = this.compact(t.value));
        return c;
      },
    };
  }

  private compact(iri: string): string {
    const ps = this.prefixes ??= [...this.terms].filter(([, ns]) => /[/#:?]$/.test(ns));
    let best: string | undefined;
    for (const [k, ns] of ps) {
      if (iri.length > ns.length && iri.startsWith(ns)) {
        const c = `${k}:${iri.slice(ns.length)}`;
        if (best === undefined || c.length < best.length) best = c;
      }
    }
    return best ?? iri;
  }
}
