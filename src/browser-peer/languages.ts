/**
 * The four query languages on the browser peer's Connection, through the core entry points the
 * transaction server's routes call — executeSparql (/query SPARQL, history ranges included), runJsonLdQuery (/query JSON-LD),
 * derivedSchema + runGraphQL (/graphql, /graphql-schema) and runCypherRead (application/cypher) —
 * so the peer answers exactly as the server would. The ledger takes a time specifier (`@t:`,
 * `@time:`, `@commit:`) as on the server's paths. The peer is read-only: GraphQL mutations and
 * Cypher writes are refused with 403 (they belong on the transaction server). GraphQL, Cypher and
 * the N-Quads writer are loaded on first use (graph-languages.ts): the worker starts without them.
 */
import { badRequest } from '../core/errors.js';
import type { Connection } from '../core/ledger/connection.js';
import { parseTimeSpec } from '../core/ledger/ledger-id.js';
import { runJsonLdQuery } from '../core/query/jsonld/service.js';
import { writeSparqlJson } from '../core/query/results/sparql-json.js';
import { executeSparql } from '../core/query/sparql-run.js';
import type { PeerGraphQLRequest } from './graph-languages.js';
import type { At, PeerQuery } from './protocol.js';

let graphLanguages: Promise<typeof import('./graph-languages.js')> | null = null;
/** GraphQL and Cypher (graphql-js, the Cypher parser), loaded once on first use. */
export const loadGraphLanguages = () => (graphLanguages ??= import('./graph-languages.js'));
let nquads: Promise<typeof import('../core/query/results/rdf-writers.js')> | null = null;
/** The N-Quads writer (n3), loaded once when a CONSTRUCT or DESCRIBE first answers. */
export const loadRdfWriters = () => (nquads ??= import('../core/query/results/rdf-writers.js'));

/** A query with its language named. */
export type LanguageQuery =
  | { lang: 'sparql'; text: string }
  | { lang: 'jsonld'; body: unknown }
  | ({ lang: 'graphql' } & PeerGraphQLRequest)
  | { lang: 'cypher'; envelope: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Name the language of a query: a string is SPARQL, a tagged object its tag, any other object JSON-LD. */
export function languageOf(query: PeerQuery): LanguageQuery {
  if (typeof query === 'string') return { lang: 'sparql', text: query };
  const q: Record<string, unknown> = query;
  if (!isObject(q)) throw badRequest('a query is SPARQL text, a JSON-LD query object, or {sparql | jsonld | graphql | cypher}');
  if (typeof q.sparql === 'string') return { lang: 'sparql', text: q.sparql };
  if ('jsonld' in q && (isObject(q.jsonld) || typeof q.jsonld === 'string')) return { lang: 'jsonld', body: q.jsonld };
  if (typeof q.graphql === 'string') {
    const variables = q.variables ?? null;
    if (variables !== null && !isObject(variables)) throw badRequest('variables must be a JSON object or null');
    const operationName = q.operationName ?? null;
    if (operationName !== null && typeof operationName !== 'string') throw badRequest('operationName must be a string or null');
    return { lang: 'graphql', query: q.graphql, variables, operationName };
  }
  if (typeof q.cypher === 'string') {
    // Read by the server's envelope reader when it runs, so params and @context are checked and converted the same way.
    return { lang: 'cypher', envelope: JSON.stringify({ cypher: q.cypher, params: q.params ?? {}, ...('@context' in q ? { '@context': q['@context'] } : {}) }) };
  }
  return { lang: 'jsonld', body: q };
}

/** The ledger as a path reference with the time specifier of `at` (`hr:main@t:3`), checked as the server checks it. */
export function ledgerAt(ledger: string, at: At | undefined): string {
  const given: string[] = [];
  if (at?.t !== undefined) given.push(`t:${at.t}`);
  if (at?.time !== undefined) given.push(`time:${at.time}`);
  if (at?.commit !== undefined) given.push(`commit:${at.commit}`);
  if (given.length > 1) throw badRequest('give at most one of t, time and commit');
  if (given.length === 0) return ledger;
  parseTimeSpec(given[0]!);
  return `${ledger}@${given[0]}`;
}

/** What a one-shot query answers, and the media type of text it sent as chunks (SPARQL only). */
export interface QueryAnswer { result?: unknown; format?: string }

/**
 * Run one query against `ledger` (which may carry a time specifier). SPARQL results go to
 * `onChunk` as text as the engine writes them (SPARQL JSON, or N-Quads for graphs); the other
 * languages answer one JSON value: a JSON-LD result, a GraphQL response body, a Cypher §8 envelope.
 */
export async function runPeerQuery(conn: Connection, ledger: string, q: LanguageQuery, signal: AbortSignal, onChunk: (text: string) => void): Promise<QueryAnswer> {
  switch (q.lang) {
    case 'sparql': {
      // executeSparql, as /query: a `FROM <a@t:1> TO <a@t:latest>` history range runs here too.
      const r = await executeSparql(conn, { text: q.text, ledger, signal });
      const graph = r.result.type === 'quads';
      for await (const text of graph ? (await loadRdfWriters()).writeNQuads(r.result) : writeSparqlJson(r.result)) onChunk(text);
      return { format: graph ? 'application/n-quads' : 'application/sparql-results+json' };
    }
    case 'jsonld':
      return { result: (await runJsonLdQuery(conn, q.body, { ledger, signal })).result };
    case 'graphql':
      return { result: await (await loadGraphLanguages()).runPeerGraphQL(conn, ledger, q, signal) };
    case 'cypher':
      return { result: await (await loadGraphLanguages()).runPeerCypher(conn, ledger, q.envelope, signal) };
  }
}

/** The caller's derived GraphQL schema of `ledger` as SDL, as `GET /graphql-schema/<ledger>` answers it. */
export async function peerSchemaSdl(conn: Connection, ledger: string): Promise<string> {
  return (await loadGraphLanguages()).graphqlSdl(conn, ledger);
}
