/** The one error type of Ledgraph: an HTTP status plus a stable `@type` (http-api.md §7). */
export class LedgraphError extends Error {
  readonly status: number;
  readonly type: string;
  override readonly cause?: LedgraphError;
  /** Extra response headers the server must send with this error (e.g. Retry-After). */
  readonly headers?: Record<string, string>;

  constructor(status: number, type: string, message: string, opts: { cause?: LedgraphError; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'LedgraphError';
    this.status = status;
    this.type = type;
    if (opts.cause) this.cause = opts.cause;
    if (opts.headers) this.headers = opts.headers;
  }

  /** The §7 error body. */
  toJSON(): { error: string; status: number; '@type': string; cause?: unknown } {
    const body: { error: string; status: number; '@type': string; cause?: unknown } = {
      error: this.message,
      status: this.status,
      '@type': this.type,
    };
    if (this.cause) body.cause = this.cause.toJSON();
    return body;
  }
}

/** Jittered Retry-After seconds for capacity-pressure 503s (§7 rule 1). */
export function retryAfterSeconds(base = 1): string {
  return String(base + Math.floor(Math.random() * 3));
}

export const badRequest = (msg: string) => new LedgraphError(400, 'err:db/BadRequest', msg);
export const jsonParseError = (msg: string) => new LedgraphError(400, 'err:db/JsonParse', msg);
/** An invalid branch operation (branches.md §11): root as merge source, self-merge, branching at genesis … */
export const invalidBranchOp = (msg: string) => new LedgraphError(400, 'err:api/BadRequest', msg);
export const notFound = (msg: string) => new LedgraphError(404, 'err:db/LedgerNotFound', msg);
export const ledgerExists = (msg: string) => new LedgraphError(409, 'err:db/LedgerExists', msg);
export const commitConflict = (msg: string) => new LedgraphError(409, 'err:db/CommitConflict', msg);
export const forbidden = (msg: string) => new LedgraphError(403, 'err:db/Forbidden', msg);
export const constraintViolation = (msg: string) => new LedgraphError(422, 'err:db/ConstraintViolation', msg);
export const unsupportedMediaType = (msg: string) => new LedgraphError(415, 'err:db/UnsupportedMediaType', msg);
export const internalError = (msg: string) => new LedgraphError(500, 'err:db/Internal', msg);
export const storageError = (msg: string) => new LedgraphError(502, 'err:db/BadGateway', msg);
export const timeoutError = (msg: string) => new LedgraphError(408, 'err:db/Timeout', msg);
/** The overload refusal of http-api.md §7 (admission control): 503, err:system/InternalError, Retry-After. */
export const busy = (msg: string) =>
  new LedgraphError(503, 'err:system/InternalError', msg, { headers: { 'Retry-After': retryAfterSeconds() } });
export const noveltyAtMax = (msg: string) =>
  new LedgraphError(503, 'err:db/NoveltyAtMax', msg, { headers: { 'Retry-After': retryAfterSeconds() } });
export const payloadTooLarge = (msg: string) => new LedgraphError(413, 'err:db/PayloadTooLarge', msg);
export const noveltyDeltaTooLarge = (msg: string) => new LedgraphError(413, 'err:db/NoveltyDeltaTooLarge', msg);
export const datatypeLimitExceeded = (msg: string) => new LedgraphError(422, 'err:db/DatatypeLimitExceeded', msg);

/** True when `e` is a LedgraphError (works across bundle copies). */
export function isLedgraphError(e: unknown): e is LedgraphError {
  return e instanceof LedgraphError || (typeof e === 'object' && e !== null && (e as { name?: string }).name === 'LedgraphError');
}
