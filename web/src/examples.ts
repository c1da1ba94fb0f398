/**
 * Example queries built from a ledger's own statistics (`GET /info` stats.classes and
 * stats.properties), so the first query a person sees returns their data.
 */
import type { LedgerInfo } from './api.js';

/** A named example in both languages' form. */
export interface Example { label: string; lang: 'sparql' | 'jsonld' | 'graphql' | 'cypher'; text: string }

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
    if (/^[A-Za-z_]\w*$/.test(short(c))) out.push({ label: `Instances of ${short(c)} (Cypher)`, lang: 'cypher', text: `MATCH (n:${short(c)})\nRETURN n\nLIMIT 100` });
    out.push({ label: `Instances of ${short(c)} (SPARQL)`, lang: 'sparql', text: `SELECT ?s\nWHERE { ?s a ${iri(c)} }\nLIMIT 1000` });
    out.push({ label: `Instances of ${short(c)} (JSON-LD)`, lang: 'jsonld', text: JSON.stringify({ select: { '?s': ['*'] }, where: { '@id': '?s', '@type': c }, limit: 100 }, null, 2) });
  }
  for (const p of props) {
    out.push({ label: `Values of ${short(p)} (SPARQL)`, lang: 'sparql', text: `SELECT ?s ?o\nWHERE { ?s ${iri(p)} ?o }\nLIMIT 1000` });
    out.push({ label: `Values of ${short(p)} (JSON-LD)`, lang: 'jsonld', text: JSON.stringify({ select: ['?s', '?o'], where: { '@id': '?s', [p]: '?o' }, limit: 1000 }, null, 2) });
  }
  return out;
}

/**
 * GraphQL examples from the ledger's schema (SDL of `GET /graphql-schema`): each plural root field
 * of `type Query` with the scalar fields of its type.
 */
export function graphqlExamples(sdl: string): Example[] {
  const types = new Map<string, string>();
  for (const m of sdl.matchAll(/^type (\w+) \{\n([\s\S]*?)\n\}/gm)) types.set(m[1]!, m[2]!);
  const out: Example[] = [];
  for (const line of (types.get('Query') ?? '').split('\n')) {
    const m = /^\s+(\w+)\([^)]*\): \[(\w+)!\]!/.exec(line);
    if (!m) continue;
    const fields = (types.get(m[2]!) ?? '').split('\n')
      .map((f) => /^\s+(\w+)(?:\([^)]*\))?: \[?(\w+)/.exec(f)).filter((f): f is RegExpExecArray => !!f)
      .filter((f) => f[1] === 'id' || !types.has(f[2]!)).map((f) => f[1]!);
    out.push({ label: `${m[1]} (GraphQL)`, lang: 'graphql', text: `{\n  ${m[1]}(limit: 100) {\n${fields.map((f) => `    ${f}`).join('\n')}\n  }\n}` });
    if (out.length >= 8) break;
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

/** Type and field names declared in a GraphQL SDL text (for completion). */
export function sdlNames(sdl: string): string[] {
  const out = new Set<string>();
  for (const m of sdl.matchAll(/^(?:type|input|enum|scalar|interface)\s+(\w+)/gm)) out.add(m[1]!);
  for (const m of sdl.matchAll(/^\s+(\w+)\s*[(:]/gm)) out.add(m[1]!);
  return [...out].sort();
}
