/**
 * Example queries built from a ledger's own statistics (`GET /info` stats.classes and
 * stats.properties), so the first query a person sees returns their data.
 */
import type { LedgerInfo } from './api.js';

/** A named example in both languages' form. */
export interface Example { label: string; lang: 'sparql' | 'jsonld'; text: string }

const iri = (s: string) => (/^[a-z][\w+.-]*:\/\//i.test(s) || s.startsWith('urn:') ? `<${s}>` : s);

/** Examples for a ledger: generic ones, then one per class and per property (at most 8 each). */
export function examplesFor(info: LedgerInfo | null): Example[] {
  const out: Example[] = [
    { label: 'All triples (SPARQL)', lang: 'sparql', text: 'SELECT ?s ?p ?o\nWHERE { ?s ?p ?o }\nLIMIT 1000' },
    { label: 'All subjects (JSON-LD)', lang: 'jsonld', text: JSON.stringify({ select: ['?s', '?p', '?o'], where: { '@id': '?s', '?p': '?o' }, limit: 1000 }, null, 2) },
    { label: 'Count triples (SPARQL)', lang: 'sparql', text: 'SELECT (COUNT(*) AS ?n)\nWHERE { ?s ?p ?o }' },
  ];
  const classes = Object.keys(info?.stats?.classes ?? {}).filter((c) => !c.startsWith('https://ns.ledgraph.dev/')).slice(0, 8);
  const props = Object.keys(info?.stats?.properties ?? {}).filter((p) => !p.startsWith('https://ns.ledgraph.dev/') && !p.endsWith('rdf-syntax-ns#type')).slice(0, 8);
  for (const c of classes) {
    out.push({ label: `Instances of ${short(c)} (SPARQL)`, lang: 'sparql', text: `SELECT ?s\nWHERE { ?s a ${iri(c)} }\nLIMIT 1000` });
    out.push({ label: `Instances of ${short(c)} (JSON-LD)`, lang: 'jsonld', text: JSON.stringify({ select: { '?s': ['*'] }, where: { '@id': '?s', '@type': c }, limit: 100 }, null, 2) });
  }
  for (const p of props) {
    out.push({ label: `Values of ${short(p)} (SPARQL)`, lang: 'sparql', text: `SELECT ?s ?o\nWHERE { ?s ${iri(p)} ?o }\nLIMIT 1000` });
    out.push({ label: `Values of ${short(p)} (JSON-LD)`, lang: 'jsonld', text: JSON.stringify({ select: ['?s', '?o'], where: { '@id': '?s', [p]: '?o' }, limit: 1000 }, null, 2) });
  }
  return out;
}

/** The last segment of an IRI, for labels. */
export function short(s: string): string {
  const m = /[#/:]([^#/:]+)$/.exec(s);
  return m ? m[1]! : s;
}

/** Class and property IRIs of a ledger, for completion. */
export function vocabulary(info: LedgerInfo | null): string[] {
  return [...Object.keys(info?.stats?.classes ?? {}), ...Object.keys(info?.stats?.properties ?? {})];
}
