/** Small helpers shared by the PostgreSQL nameservice and its change feed. */

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', '57P01', '57P02', '57P03', '08000', '08003', '08006']);

/** True for errors that mean the connection (not the statement) failed, so a read may be retried. */
export function connectionLost(e: unknown): boolean {
  const code = (e as { code?: string }).code;
  return (code !== undefined && CONNECTION_CODES.has(code)) || /Connection terminated|not queryable/i.test(String((e as Error).message));
}

/** A quoted SQL identifier. */
export const ident = (name: string): string => '"' + name.replace(/"/g, '""') + '"';

/** A quoted SQL string literal. */
export const literal = (text: string): string => "'" + text.replace(/'/g, "''") + "'";

/** Run a read, retried twice when the connection (not the statement) failed, e.g. after a server restart. */
export async function retryRead<R>(run: () => Promise<R>): Promise<R> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await run();
    } catch (e) {
      if (attempt < 2 && connectionLost(e)) { await new Promise((r) => setTimeout(r, 50 * (attempt + 1))); continue; }
      throw e;
    }
  }
}
