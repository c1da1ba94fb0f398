/**
 * The four query languages and streaming on the local replica (peer mode): the same requests the
 * server gets (query-langs.ts, stream-run.ts), answered by the browser peer's worker against
 * IndexedDB, turned into the same result sets. The time travel state becomes the peer's `t` or
 * `time`; Cancel aborts the query in the worker.
 */
import type { Replica } from './peer-mode.js';
import { cypherContext, fromCypher, fromGraphql, type QueryLang } from './query-langs.js';
import { fromJsonLd, fromSparqlJson, fromTurtle, type ResultSet } from './results.js';

/** The slider / date picker state as the peer's time option. */
export function peerAt(at: { kind: 'latest' } | { kind: 't'; t: number } | { kind: 'time'; iso: string }): { t?: number; time?: string } {
  return at.kind === 't' ? { t: at.t } : at.kind === 'time' ? { time: at.iso } : {};
}

/** Run `text` in `lang` on the replica at `at`; Cypher names come from the ledger's `vocabulary` as on the server. */
export async function runLocal(replica: Replica, lang: QueryLang, text: string, at: { t?: number; time?: string }, signal: AbortSignal, vocabulary: string[]): Promise<ResultSet> {
  switch (lang) {
    case 'sparql': {
      const r = await replica.query({ sparql: text }, at, signal);
      return typeof r === 'string' ? fromTurtle(r) : fromSparqlJson(JSON.stringify(r));
    }
    case 'jsonld': return fromJsonLd(JSON.stringify(await replica.query({ jsonld: text }, at, signal)));
    case 'graphql': return fromGraphql(JSON.stringify(await replica.query({ graphql: text }, at, signal)));
    case 'cypher': return fromCypher(JSON.stringify(await replica.query({ cypher: text, '@context': cypherContext(vocabulary) }, at, signal)));
  }
}

/** A streamed SELECT (SPARQL or JSON-LD) on the replica, as NDJSON text chunks. */
export function streamLocal(replica: Replica, lang: 'sparql' | 'jsonld', text: string, at: { t?: number; time?: string }, signal: AbortSignal): AsyncIterable<string> {
  return replica.stream(lang === 'sparql' ? { sparql: text } : { jsonld: text }, at, signal);
}
