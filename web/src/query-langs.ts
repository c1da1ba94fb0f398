/**
 * The four query languages as the query screen runs them on the server: SPARQL and JSON-LD on
 * `POST /query/<ledger>`, Cypher as `application/cypher` there too, GraphQL on `POST /graphql/<ledger>`
 * — each answer turned into a result set for the table.
 */
import { ApiError, call, ledgerPath } from './api.js';
import type { EditorLang } from './editor.js';
import { short } from './examples.js';
import { cell, fromJsonLd, fromSparqlJson, fromTurtle, type ResultSet } from './results.js';

/** A query language of the editor. */
export type QueryLang = 'sparql' | 'jsonld' | 'graphql' | 'cypher';

/** Display name and editor mode per language. */
export const LANGS: Record<QueryLang, { label: string; editor: EditorLang }> = {
  sparql: { label: 'SPARQL', editor: 'sparql' },
  jsonld: { label: 'JSON-LD', editor: 'json' },
  graphql: { label: 'GraphQL', editor: 'graphql' },
  cypher: { label: 'Cypher', editor: 'cypher' },
};

/**
 * A Cypher `@context` from the ledger's vocabulary: each class and property by its local name,
 * when that name is unambiguous, so `MATCH (p:Person) RETURN p.name` reads the ledger's IRIs.
 */
export function cypherContext(vocabulary: string[]): Record<string, string> {
  const byName = new Map<string, Set<string>>();
  for (const iri of vocabulary) {
    const name = short(iri);
    if (!/^[A-Za-z_]\w*$/.test(name)) continue;
    (byName.get(name) ?? byName.set(name, new Set()).get(name)!).add(iri);
  }
  const ctx: Record<string, string> = {};
  for (const [name, iris] of byName) if (iris.size === 1) ctx[name] = [...iris][0]!;
  return ctx;
}

/** A GraphQL answer as a result set: the first root field's objects become rows. */
export function fromGraphql(text: string): ResultSet {
  const doc = JSON.parse(text) as { data?: Record<string, unknown> | null; errors?: { message: string; extensions?: { code?: string } }[] };
  if (doc.errors?.length && !doc.data) {
    const e = doc.errors[0]!;
    throw new ApiError(200, e.extensions?.code ?? 'GraphQL error', doc.errors.map((x) => x.message).join('; '));
  }
  const data = doc.data ?? {};
  const raw = JSON.stringify(doc, null, 2);
  const roots = Object.entries(data);
  if (roots.length === 1) {
    const [, value] = roots[0]!;
    const list = Array.isArray(value) ? value : value === null ? [] : [value];
    if (list.every((r) => r !== null && typeof r === 'object' && !Array.isArray(r))) {
      const columns: string[] = [];
      for (const r of list as Record<string, unknown>[]) for (const k of Object.keys(r)) if (!columns.includes(k)) columns.push(k);
      return { columns, rows: (list as Record<string, unknown>[]).map((r) => columns.map((c) => gqlCell(r[c]))), raw, rawKind: 'json' };
    }
  }
  return { columns: roots.map(([k]) => k), rows: [roots.map(([, v]) => gqlCell(v))], raw, rawKind: 'json' };
}

function gqlCell(v: unknown): string {
  if (Array.isArray(v)) return v.map(gqlCell).join(', ');
  if (v !== null && typeof v === 'object' && 'id' in v && Object.keys(v).length === 1) return String((v as { id: unknown }).id);
  return cell(v);
}

/** A Cypher answer (`results[0].columns` / `data[].row`) as a result set. */
export function fromCypher(text: string): ResultSet {
  const doc = JSON.parse(text) as { results?: { columns: string[]; data: { row: unknown[] }[] }[] };
  const r = doc.results?.[0] ?? { columns: [], data: [] };
  return { columns: r.columns, rows: r.data.map((d) => d.row.map(cypherCell)), raw: JSON.stringify(doc, null, 2), rawKind: 'json' };
}

function cypherCell(v: unknown): string {
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && 'type' in v && 'start' in v) {
    const rel = v as { start: string; type: string; end: string };
    return `(${rel.start})-[:${rel.type}]->(${rel.end})`;
  }
  return Array.isArray(v) ? v.map(cypherCell).join(', ') : cell(v);
}

/** Run `text` in `lang` on the server against `target` (a ledger with an optional time specifier). */
export async function runOnServer(lang: QueryLang, target: string, text: string, signal: AbortSignal, vocabulary: string[]): Promise<ResultSet> {
  const path = ledgerPath(target);
  if (lang === 'graphql') {
    const r = await call(`/graphql/${path}`, { method: 'POST', signal, body: JSON.stringify({ query: text }), headers: { 'Content-Type': 'application/json' } });
    return fromGraphql(await r.text());
  }
  if (lang === 'cypher') {
    const body = JSON.stringify({ cypher: text, '@context': cypherContext(vocabulary) });
    const r = await call(`/query/${path}`, { method: 'POST', signal, body, headers: { 'Content-Type': 'application/cypher', Accept: 'application/json' } });
    return fromCypher(await r.text());
  }
  const r = await call(`/query/${path}`, {
    method: 'POST', body: text, signal,
    headers: lang === 'sparql'
      ? { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+json, text/turtle;q=0.9' }
      : { 'Content-Type': 'application/json', Accept: 'application/json' },
  });
  const body = await r.text();
  const type = r.headers.get('Content-Type') ?? '';
  return type.includes('turtle') ? fromTurtle(body) : lang === 'sparql' ? fromSparqlJson(body) : fromJsonLd(body);
}
