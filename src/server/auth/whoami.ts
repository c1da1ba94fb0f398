/**
 * `GET /whoami` (auth.md §9, http-api.md §2.8): never gated, always 200. It verifies a bearer token
 * by the data group's rules and reports the principal, or the failure with the unverified claims
 * for diagnosis.
 */
import { AuthError } from './jws.js';
import type { Auth } from './middleware.js';
import { bearerToken, unverifiedClaims, type Principal } from './verify.js';

/** The whoami body of a verified principal. */
export function whoamiVerified(p: Principal): Record<string, unknown> {
  const s = p.scopes;
  return {
    token_present: true,
    verified: true,
    auth_method: p.authMethod,
    issuer: p.issuer,
    subject: p.subject ?? null,
    identity: p.identity ?? null,
    expires_at: p.expiresAt ?? null,
    scopes: {
      ledger_read_all: s.readAll, ledger_read_ledgers: s.readLedgers,
      ledger_write_all: s.writeAll, ledger_write_ledgers: s.writeLedgers,
      storage_all: s.storageAll, storage_ledgers: s.storageLedgers,
      events_all: s.eventsAll, events_ledgers: s.eventsLedgers,
    },
  };
}

/** The whoami body for an Authorization header value. */
export async function whoami(auth: Auth, header: string | undefined): Promise<Record<string, unknown>> {
  const token = bearerToken(header);
  if (!token) return { token_present: false };
  try {
    return whoamiVerified(await auth.verify(token, 'data'));
  } catch (e) {
    if (!(e instanceof AuthError)) throw e;
    const claims = unverifiedClaims(token) ?? {};
    return {
      token_present: true,
      verified: false,
      error: e.message,
      issuer: typeof claims['iss'] === 'string' ? claims['iss'] : null,
      subject: typeof claims['sub'] === 'string' ? claims['sub'] : null,
      expires_at: typeof claims['exp'] === 'number' ? claims['exp'] : null,
    };
  }
}
