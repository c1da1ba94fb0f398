/** Messages between the browser peer's page-side client and its Web Worker. */

/** Open the peer inside the worker. */
export interface OpenRequest {
  id: number; op: 'open'; api: string; token: string | null; ledger: string; database: string;
  /** Read objects straight from the object store with vended credentials (proxy on failure). */
  directReads: boolean;
}
/** A SPARQL text or a JSON-LD query object, at the head or at `t`. */
export interface QueryRequest { id: number; op: 'query'; query: string | Record<string, unknown>; t?: number }
export interface CloseRequest { id: number; op: 'close' }
export type WorkerRequest = OpenRequest | QueryRequest | CloseRequest;

/** An error as plain data (status and @type of a LedgraphError when it was one). */
export interface WireError { message: string; status?: number; type?: string }

export type WorkerMessage =
  | { id: number; kind: 'chunk'; text: string }
  | { id: number; kind: 'done'; result?: unknown }
  | { id: number; kind: 'error'; error: WireError }
  | { id: 0; kind: 'change'; ledger: string; t: number };
