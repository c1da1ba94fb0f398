/**
 * Parts of the NDJSON result stream (http-api.md §2.12, §4.6) shared by every runtime that writes
 * it: the transaction server's `/stream/query` and the browser peer's `stream()`.
 */
import { isLedgraphError } from '../../errors.js';
import { isFuelExhausted } from '../engine.js';

/** Error codes of the `error` record (§4.6). */
export type StreamErrorCode = 'timeout' | 'fuel_exhausted' | 'cancelled' | 'invalid_query' | 'resource_limit' | 'internal';

/** The §4.6 code of a failure. */
export function streamErrorCode(e: unknown): StreamErrorCode {
  if (isFuelExhausted(e)) return 'fuel_exhausted';
  if (!isLedgraphError(e)) return 'internal';
  if (e.status === 408 || e.status === 504) return 'timeout';
  if (e.status === 400 || e.status === 404 || e.status === 422) return 'invalid_query';
  if (e.status === 413 || e.status === 429 || e.status === 503) return 'resource_limit';
  return 'internal';
}

/** Milliseconds with two decimals, as tracking reports time (`"12.34ms"`). */
export function formatMs(ms: number): string {
  return `${Math.round(ms * 100) / 100}ms`;
}
