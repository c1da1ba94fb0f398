/**
 * Input limits (docs/limits.md): how deep, long and large a request's text may be before any
 * recursive parser or walker sees it. One process-wide setting, because the checks sit in the
 * parsers and translators every entry point shares (HTTP, library, peer); the server sets it from
 * its flags at start. Refusals are 400 err:db/BadRequest for shape limits and 413
 * err:db/PayloadTooLarge for size limits, and name the limit and its flag.
 */
import { badRequest, payloadTooLarge, type LedgraphError } from './errors.js';

/** The limits every parser and translator enforces. */
export interface InputLimits {
  /** Deepest nesting of `{ } ( ) [ ]` in SPARQL text, and of operators in a compiled query. */
  maxNestingDepth: number;
  /** Longest query text (SPARQL query text, JSON-LD query body), in UTF-8 bytes. */
  maxQueryBytes: number;
  /** Most triple patterns (and property paths) in one query or update WHERE clause. */
  maxTriplePatterns: number;
  /** Most operators (joins, unions, BINDs, filters, …) in one compiled query or update WHERE clause. */
  maxQueryOperators: number;
  /** Deepest nesting of arrays and objects in a JSON body. */
  maxJsonDepth: number;
  /** Largest literal a write may assert, in UTF-8 bytes. */
  maxLiteralBytes: number;
  /** Longest ledger name and longest branch name, in characters. */
  maxLedgerNameLength: number;
}

/** The defaults, sized for a real server: far above what hand-written or generated queries use. */
export const DEFAULT_INPUT_LIMITS: Readonly<InputLimits> = Object.freeze({
  maxNestingDepth: 128,
  maxQueryBytes: 1024 * 1024,
  maxTriplePatterns: 1000,
  maxQueryOperators: 10_000,
  maxJsonDepth: 128,
  maxLiteralBytes: 1024 * 1024,
  maxLedgerNameLength: 100,
});

/**
 * The largest depth the recursive parsers, translators, planner and JSON-LD processing are proven
 * to handle (test/server/hostile-inputs.test.ts runs them at it); depth flags are clamped to it.
 */
export const MAX_SAFE_DEPTH = 500;

/** Flag name of each limit, for messages that tell the operator which knob to turn. */
const FLAG: Record<keyof InputLimits, string> = {
  maxNestingDepth: '--max-nesting-depth',
  maxQueryBytes: '--max-query-bytes',
  maxTriplePatterns: '--max-triple-patterns',
  maxQueryOperators: '--max-query-operators',
  maxJsonDepth: '--max-json-depth',
  maxLiteralBytes: '--max-literal-bytes',
  maxLedgerNameLength: '--max-ledger-name-length',
};

let current: InputLimits = { ...DEFAULT_INPUT_LIMITS };

/** The limits in force. */
export function inputLimits(): Readonly<InputLimits> {
  return current;
}

/** Replace the limits in force (unset fields take their defaults); depths are clamped to MAX_SAFE_DEPTH. */
export function setInputLimits(limits: Partial<InputLimits>): void {
  const next = { ...DEFAULT_INPUT_LIMITS, ...limits };
  next.maxNestingDepth = Math.min(next.maxNestingDepth, MAX_SAFE_DEPTH);
  next.maxJsonDepth = Math.min(next.maxJsonDepth, MAX_SAFE_DEPTH);
  current = next;
}

/** 400 for a shape limit (`what` says what was too deep or too many). */
export function shapeLimitError(limit: keyof InputLimits, what: string): LedgraphError {
  return badRequest(`${what} (limit: ${current[limit]}, set by ${FLAG[limit]})`);
}

/** 413 for a size limit. */
export function sizeLimitError(limit: keyof InputLimits, what: string): LedgraphError {
  return payloadTooLarge(`${what} (limit: ${current[limit]} bytes, set by ${FLAG[limit]})`);
}

const encoder = new TextEncoder();

/** True when `s` is longer than `maxBytes` in UTF-8, without encoding it when its length decides. */
export function exceedsUtf8Bytes(s: string, maxBytes: number): boolean {
  // Every UTF-16 unit is 1 to 3 UTF-8 bytes.
  if (s.length > maxBytes) return true;
  if (s.length * 3 <= maxBytes) return false;
  return encoder.encode(s).length > maxBytes;
}

/** Refuse query text longer than maxQueryBytes (413). */
export function checkQueryLength(text: string, what = 'query'): void {
  const max = current.maxQueryBytes;
  if (exceedsUtf8Bytes(text, max)) throw sizeLimitError('maxQueryBytes', `the ${what} is longer than allowed`);
}

/** True for the RangeError V8 throws when the call stack overflows. */
export function isStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}

/**
 * Run a recursive parse or translation; a stack overflow (long flat operator chains can still
 * build deep trees within the text limits) becomes a 400 instead of a 500.
 */
export function withinStack<T>(what: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw isStackOverflow(e) ? tooComplexError(what) : e;
  }
}

/** The 400 for input whose tree is too deep to process although its text passed the nesting limit. */
export function tooComplexError(what: string): LedgraphError {
  return badRequest(`${what} is too deeply nested to process (for example a very long chain of || or OPTIONAL); split it up`);
}
