/** Messages between the browser peer's page-side client and its Web Worker. */

/**
 * A query in one of the four languages. A bare string is SPARQL and a bare object a JSON-LD
 * query (the forms of the first API); the tagged forms name the language.
 */
export type PeerQuery =
  | string
  | Record<string, unknown>
  | { sparql: string }
  | { jsonld: Record<string, unknown> | string }
  | { graphql: string; variables?: Record<string, unknown> | null; operationName?: string | null }
  | { cypher: string; params?: Record<string, unknown>; '@context'?: unknown };

/** Which state a query reads: the head, or at most one of `t`, `time` (ISO 8601) and `commit` (CID or hex prefix). */
export interface At { t?: number; time?: string; commit?: string }

/** Open the peer inside the worker; `replicate` says what it keeps ahead of queries (replicate.ts). */
export interface OpenRequest { id: number; op: 'open'; api: string; token: string | null; ledger: string; database: string; replicate: 'lazy' | 'full';
  /** Read objects straight from the object store with vended credentials (proxy on failure). */
  directReads: boolean;
}
/** One query, answered whole (SPARQL text results in chunks). */
export interface QueryRequest { id: number; op: 'query'; query: PeerQuery; at?: At }
/** A SELECT streamed as the records of `/stream/query` (NDJSON text), paced by `ack`. */
export interface StreamRequest { id: number; op: 'stream'; query: PeerQuery; at?: At }
/** The page consumed one chunk of stream `id`: the worker may send another. */
export interface AckRequest { id: number; op: 'ack' }
/** Stop query or stream `id` (the engine's scans end at their next row). */
export interface CancelRequest { id: number; op: 'cancel' }
/** The derived GraphQL schema as SDL (`GET /graphql-schema`). */
export interface SchemaRequest { id: number; op: 'schema'; at?: At }
/** The ledger's info document (`GET /info`). */
export interface InfoRequest { id: number; op: 'info' }
export interface CloseRequest { id: number; op: 'close' }
export type WorkerRequest = OpenRequest | QueryRequest | StreamRequest | AckRequest | CancelRequest | SchemaRequest | InfoRequest | CloseRequest;

/** An error as plain data (status and @type of a LedgraphError when it was one). */
export interface WireError { message: string; status?: number; type?: string }

export type WorkerMessage =
  | { id: number; kind: 'chunk'; text: string }
  /** `format`: the media type of the text sent as chunks (SPARQL answers); else `result` is the answer. */
  | { id: number; kind: 'done'; result?: unknown; format?: string }
  | { id: number; kind: 'error'; error: WireError }
  | { id: 0; kind: 'change'; ledger: string; t: number };
