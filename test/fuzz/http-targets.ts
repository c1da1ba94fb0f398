/**
 * What the HTTP fuzzer sends: one fast-check arbitrary of requests per target (a parser or body
 * type of the server), each mixing near-valid mutated seeds with grammar-aware random inputs.
 * Ledgers: `fz` is read (and may be damaged by path fuzzing), `fzw` takes writes, `canary` is never
 * named by any generator so the health probe can read a known answer from it.
 */
import fc from 'fast-check';
import { JSONLD_QUERIES, JSONLD_TXNS, NQUADS, NTRIPLES, SPARQL_QUERIES, SPARQL_UPDATES, TRIG, TURTLE } from './seeds.js';
import { jsonLdArb, mutatedArb, rdfTextArb, type Bounds, type Family } from './mutate.js';
import { queryArb, updateArb } from './sparql-smith.js';

/** One request as sent: path is relative to the origin (it includes the API base). */
export interface FuzzRequest { target: string; method: string; path: string; headers: Record<string, string>; body?: Uint8Array }

/** Material the targets need from the running server (gathered by http-harness.ts `prepare`). */
export interface TargetContext {
  apiBase: string;
  /** A valid data token (trusted issuer, read and write on every ledger). */
  token: string;
  /** A valid signed request (application/jose) carrying a SPARQL query. */
  signedQuery: string;
  /** `GET /commits/fz` JSON, the seed of push bodies (empty when unavailable). */
  commitsJson: string;
  /** A `POST /pack/fz` archive, the seed of import bodies. */
  pack: Uint8Array;
}

const enc = new TextEncoder();
const bytes = (s: string) => enc.encode(s);

/** Either a mutated seed or a grammar-aware random document (weights favour mutation). */
function body(seeds: readonly string[], family: Family, bounds: Bounds, grammar: fc.Arbitrary<string>): fc.Arbitrary<Uint8Array> {
  return fc.oneof({ weight: 3, arbitrary: mutatedArb(seeds, family, bounds) }, { weight: 2, arbitrary: grammar.map(bytes) }, { weight: 1, arbitrary: fc.constantFrom(...seeds).map(bytes) });
}

const json = (xs: unknown[]) => xs.map((x) => JSON.stringify(x));
const sparqlText = fc.oneof(queryArb(true).map((q) => q.text), queryArb(false).map((q) => q.text));

/** Ledger names as paths may carry them (never `canary`). */
function ledgerName(bounds: Bounds): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('fz', 'fz:main', 'fzw', 'fz@t:1', 'fz:main@t:0', 'fz@t:99999', 'fz@iso:2020-01-01T00:00:00Z', 'fz@commit:bafyx', 'nope', 'fz:nobranch') },
    { weight: 2, arbitrary: fc.string({ maxLength: bounds.maxName }).map(encodeURIComponent) },
    { weight: 1, arbitrary: fc.constantFrom('..', '%2e%2e', '.', '%00', '%ZZ', 'a/b/c', 'x:y:z', 'fz%3Amain', '~', 'CON', 'a'.repeat(Math.min(bounds.maxName, 300))) },
  );
}

/** The request arbitraries, by target name. */
export function targets(ctx: TargetContext, bounds: Bounds): Record<string, fc.Arbitrary<FuzzRequest>> {
  const api = ctx.apiBase;
  const req = (target: string, method: string, path: string, headers: Record<string, string>, b?: Uint8Array): FuzzRequest =>
    ({ target, method, path, headers, ...(b ? { body: b } : {}) });
  const qBody = body(SPARQL_QUERIES, 'sparql', bounds, sparqlText);
  const uBody = body(SPARQL_UPDATES, 'sparql', bounds, updateArb);
  const txnBody = body(json(JSONLD_TXNS), 'json', bounds, jsonLdArb);
  const jqBody = body(json(JSONLD_QUERIES), 'json', bounds, jsonLdArb);
  const accept = fc.constantFrom('application/sparql-results+json', 'text/csv', 'text/tab-separated-values', 'application/sparql-results+xml', 'application/json', 'text/turtle', 'application/n-triples', 'application/ld+json', '*/*', 'text/html', '');
  const form = (field: string, b: Uint8Array) => bytes(new URLSearchParams({ [field]: new TextDecoder().decode(b) }).toString());
  const ok = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).filter(([, v]) => v !== ''));
  return {
    'sparql-query': fc.tuple(qBody, accept, fc.constantFrom('post', 'get', 'form', 'stream', 'protocol', 'noledger')).map(([b, a, how]) => {
      const h = ok({ Accept: a });
      switch (how) {
        case 'get': return req('sparql-query', 'GET', `${api}/query/fz?query=${encodeURIComponent(new TextDecoder().decode(b))}`, h);
        case 'form': return req('sparql-query', 'POST', `${api}/sparql/fz`, { ...h, 'Content-Type': 'application/x-www-form-urlencoded' }, form('query', b));
        case 'stream': return req('sparql-query', 'POST', `${api}/stream/query/fz`, { 'Content-Type': 'application/sparql-query' }, b);
        case 'protocol': return req('sparql-query', 'POST', `${api}/sparql/fz?default-graph-uri=fz:main`, { ...h, 'Content-Type': 'application/sparql-query' }, b);
        case 'noledger': return req('sparql-query', 'POST', `${api}/query`, { ...h, 'Content-Type': 'application/sparql-query' }, b);
        default: return req('sparql-query', 'POST', `${api}/query/fz`, { ...h, 'Content-Type': 'application/sparql-query' }, b);
      }
    }),
    'sparql-update': fc.tuple(uBody, fc.boolean()).map(([b, asForm]) => asForm
      ? req('sparql-update', 'POST', `${api}/update/fzw`, { 'Content-Type': 'application/x-www-form-urlencoded' }, form('update', b))
      : req('sparql-update', 'POST', `${api}/update/fzw`, { 'Content-Type': 'application/sparql-update' }, b)),
    'jsonld-txn': fc.tuple(txnBody, fc.constantFrom('insert', 'upsert', 'update'), fc.constantFrom('application/json', 'application/ld+json')).map(([b, mode, ct]) =>
      req('jsonld-txn', 'POST', `${api}/${mode}/fzw`, { 'Content-Type': ct }, b)),
    'jsonld-query': fc.tuple(jqBody, fc.constantFrom('query', 'stream', 'multi', 'noledger'), fc.constantFrom('', 'json', 'typed-json', 'bogus')).map(([b, how, fmt]) => {
      const h = ok({ 'Content-Type': 'application/json', 'Ledgraph-Output-Format': fmt });
      if (how === 'multi') {
        const inner = new TextDecoder().decode(b);
        return req('jsonld-query', 'POST', `${api}/multi-query`, h, bytes(`{"queries":{"a":{"language":"jsonld","query":${inner},"ledger":"fz"},"b":{"language":"sparql","query":"SELECT * { ?s ?p ?o } LIMIT 1","ledger":"fz"}}}`));
      }
      return req('jsonld-query', 'POST', how === 'stream' ? `${api}/stream/query/fz` : how === 'noledger' ? `${api}/query` : `${api}/query/fz`, h, b);
    }),
    turtle: fc.tuple(body(TURTLE, 'turtle', bounds, rdfTextArb(false, false)), fc.constantFrom('insert', 'upsert', 'data-post', 'data-put')).map(([b, how]) =>
      how.startsWith('data')
        ? req('turtle', how === 'data-put' ? 'PUT' : 'POST', `${api}/data/fzw?graph=${encodeURIComponent('http://example.org/fz/g')}`, { 'Content-Type': 'text/turtle' }, b)
        : req('turtle', 'POST', `${api}/${how}/fzw`, { 'Content-Type': 'text/turtle' }, b)),
    trig: body(TRIG, 'turtle', bounds, rdfTextArb(true, false)).map((b) => req('trig', 'POST', `${api}/insert/fzw`, { 'Content-Type': 'application/trig' }, b)),
    ntriples: body(NTRIPLES, 'turtle', bounds, rdfTextArb(false, true)).map((b) => req('ntriples', 'POST', `${api}/insert/fzw`, { 'Content-Type': 'application/n-triples' }, b)),
    nquads: body(NQUADS, 'turtle', bounds, rdfTextArb(true, true)).map((b) => req('nquads', 'POST', `${api}/insert/fzw`, { 'Content-Type': 'application/n-quads' }, b)),
    jws: fc.oneof(
      fc.tuple(fc.oneof(mutatedArb([ctx.token], 'jws', bounds), fc.string({ maxLength: 80 }).map(bytes)), fc.boolean()).map(([b, info]) => {
        const auth = `Bearer ${new TextDecoder().decode(b).replace(/[\r\n]/g, '')}`;
        return info ? req('jws', 'GET', `${api}/info/fz`, { Authorization: auth })
          : req('jws', 'POST', `${api}/query/fz`, { 'Content-Type': 'application/sparql-query', Authorization: auth }, bytes('SELECT * { ?s ?p ?o } LIMIT 1'));
      }),
      fc.tuple(mutatedArb([ctx.signedQuery], 'jws', bounds), fc.boolean()).map(([b, update]) =>
        req('jws', 'POST', update ? `${api}/update/fzw` : `${api}/query/fz`, { 'Content-Type': 'application/jose' }, b)),
    ),
    headers: fc.tuple(
      fc.constantFrom(`${api}/query/fz`, `${api}/insert/fzw`, `${api}/data/fz`, `${api}/info/fz`, `${api}/log/fz`, `${api}/stream/query/fz`, '/health', `${api}/events`, `${api}/show/fz`),
      fc.constantFrom('GET', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'),
      fc.dictionary(fc.constantFrom('Accept', 'Content-Type', 'Ledgraph-Policy', 'Ledgraph-Policy-Class', 'Ledgraph-Policy-Values', 'Ledgraph-Identity', 'Ledgraph-Output-Format', 'Ledgraph-Normalize-Arrays',
        'Ledgraph-Max-Bytes', 'Ledgraph-Default-Allow', 'Ledgraph-Ledger', 'X-Request-ID', 'Range', 'If-None-Match', 'Origin', 'Accept-Encoding', 'Content-Encoding', 'Authorization', 'Last-Event-ID', 'Cookie'),
      fc.oneof(fc.constantFrom('application/json', 'text/turtle', 'application/sparql-query', '*/*', 'text/*;q=0.5, application/json;q=oops', 'bytes=0-1', 'gzip', 'true', '{"@id":"x"}', '[', 'Bearer', 'fz:main', 'x'.repeat(9000), '-1', '99999999999999999999'),
        fc.string({ maxLength: 40 })), { maxKeys: 4 }),
      fc.option(jqBody, { nil: undefined }),
    ).map(([path, method, headers, b]) => req('headers', method, path, headers, method === 'GET' || method === 'HEAD' ? undefined : b)),
    paths: fc.tuple(
      fc.constantFrom('GET', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'),
      fc.array(fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom('query', 'insert', 'upsert', 'update', 'info', 'log', 'show', 'data', 'storage', 'objects', 'ns', 'commits', 'pack', 'push', 'push-merges', 'import', 'events', 'exists', 'ledgers', 'stats', 'whoami', 'sparql', 'stream', 'multi-query', 'swagger.json', 'health', '.well-known', 'history', 'sync', '') },
        { weight: 3, arbitrary: ledgerName(bounds) },
      ), { minLength: 0, maxLength: 5 }),
      fc.boolean(),
      fc.array(fc.tuple(fc.constantFrom('ledger', 'graph', 'default', 'query', 't', 'limit', 'cursor_id', 'base_id', 'lineage', 'all', 'context', 'default-graph-uri', 'named-graph-uri', 'using-graph-uri', 'from', 'to', 'format', '%ZZ', ''),
        fc.oneof(ledgerName(bounds), fc.string({ maxLength: 20 }).map(encodeURIComponent), fc.constantFrom('-1', '1e99', '0', 'true', '%', '%C0%80'))), { maxLength: 3 }),
    ).map(([method, segs, underApi, qs]) => {
      const p = (underApi ? api : '') + '/' + segs.join('/') + (qs.length ? '?' + qs.map(([k, v]) => `${k}=${v}`).join('&') : '');
      return req('paths', method, p, {});
    }),
    replication: fc.oneof(
      mutatedArb(ctx.commitsJson ? [ctx.commitsJson] : ['{"commits":[]}'], 'json', bounds).map((b) => req('replication', 'POST', `${api}/push/fzw`, { 'Content-Type': 'application/json' }, b)),
      mutatedArb(ctx.commitsJson ? [ctx.commitsJson] : ['{"commits":[]}'], 'json', bounds).map((b) => req('replication', 'POST', `${api}/push-merges/fzw`, { 'Content-Type': 'application/json' }, b)),
      fc.tuple(fc.oneof(mutatedBytesArb(ctx.pack), fc.uint8Array({ maxLength: 256 })), fc.nat({ max: 999 })).map(([b, n]) =>
        req('replication', 'POST', `${api}/import/fzimp${n}`, { 'Content-Type': 'application/x-ledgraph-pack' }, b)),
    ),
  };
}

/** A binary seed under 1–3 bit flips or truncations. */
function mutatedBytesArb(seed: Uint8Array): fc.Arbitrary<Uint8Array> {
  return fc.array(fc.tuple(fc.nat({ max: seed.length }), fc.integer({ min: 0, max: 7 }), fc.boolean()), { minLength: 1, maxLength: 3 }).map((ms) => {
    let out = seed.slice();
    for (const [at, bit, cut] of ms) {
      if (cut) out = out.subarray(0, at);
      else if (out.length) out[at % out.length] = out[at % out.length]! ^ (1 << bit);
    }
    return out;
  });
}
