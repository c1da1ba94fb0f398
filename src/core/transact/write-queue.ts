/**
 * The types a write carries through the pipeline's queue: what the front end knows about the request,
 * the queued write itself and its receipt. Kept apart from the pipeline so the ledger's state (which
 * holds the queue) does not import the pipeline.
 */
import type { TxnRequest } from './txn-request.js';

/** Commit receipt (http-api.md §2.1, jsonld-transactions.md §10). */
export interface Receipt {
  ledger_id: string;
  t: number;
  timestamp: string;
  commit_id: string;
  previous_commit_id: string | null;
  flakes_added: number;
  flakes_retracted: number;
  'tx-id': string;
  commit: { hash: string };
  time?: string;
  fuel?: number;
  /** Values the parser dropped as JSON-LD requires, each naming the value (docs/jsonld-transactions.md). */
  warnings?: string[];
}

/** What the front end knows about the request besides its parsed form. */
export interface TxnContext {
  /** Content type and body as received, for the transaction blob. */
  contentType?: string;
  body?: unknown;
  identity?: string | null;
  jws?: string | null;
  /** Bytes of the raw request body (tx-id is their SHA-256). */
  rawBody?: Uint8Array;
  signal?: AbortSignal;
  /** Time budget (ms) of the request's WHERE evaluation, counted from when it starts staging. */
  whereTimeoutMs?: number;
  /** Fuel budget of the WHERE evaluation (the request's own opts.max-fuel wins when lower). */
  maxFuel?: number;
  /**
   * Longest wait (ms) in the ledger's write queue before the write starts staging; past it the
   * write is refused with 503 and Retry-After, nothing committed (docs/isolation.md). 0 or absent: no bound.
   */
  queueWaitMs?: number;
}

/** A write waiting in a ledger's queue. */
export interface PendingWrite {
  req: TxnRequest;
  ctx: TxnContext;
  txId: string;
  /** The tx-id while a large body is still being hashed (txId is '' until it settles). */
  txIdPending?: Promise<string>;
  started: number;
  /** Publishes lost to a head another process moved (16 allowed). */
  attempts?: number;
  /** Refused for waiting longer than ctx.queueWaitMs (already settled; staging skips it). */
  expired?: boolean;
  /** Its queue-wait timer, until staging starts. */
  expiry?: ReturnType<typeof setTimeout>;
  resolve(r: Receipt): void;
  reject(e: unknown): void;
}
