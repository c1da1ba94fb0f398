/**
 * Authentication and ledger-scope enforcement for every endpoint group (auth.md §1, §6), as one
 * Hono middleware mounted before the routes: it classifies the request by path, verifies a bearer
 * token by the group's rules, unwraps a signed body (the route then sees the plain request), and
 * checks every ledger the request references against the token's scope. Routes read the outcome
 * with `authenticate(c)`, check ledgers they find later with `requireScope`, and resolve policy
 * inputs with `policyInputsFor` (policy.ts).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { isLedgraphError, LedgraphError, notFound, forbidden } from '../../core/errors.js';
import type { AuthMode } from '../config.js';
import { AuthError } from './jws.js';
import { JwksCache } from './jwks.js';
import { jsonLdQueryLedgers, ledgerIdOf, multiQueryLedgers, sparqlLedgers } from './refs.js';
import type { AuthGroup, AuthSettings, GroupSettings } from './settings.js';
import { smallBody } from '../http-util.js';
import { isCredential, looksLikeJws, unwrapCredential, unwrapJws, type SparqlKind } from './signed.js';
import { bearerToken, canRead, canReplicate, canWrite, verifyBearer, type Principal } from './verify.js';

/** The authentication outcome of one request. */
export interface AuthState {
  group: AuthGroup | null;
  mode: AuthMode;
  /** An Authorization bearer header was present (and not ignored). */
  tokenPresent: boolean;
  /** Verified bearer token. */
  bearer?: Principal;
  /** Verified signer of a signed request body. */
  signer?: Principal;
}

/** What a route asks of a ledger. */
export type ScopeKind = 'read' | 'write' | 'push' | 'storage' | 'admin';

/** The 401 of auth.md §6. */
export function unauthorized(message: string): LedgraphError {
  return new LedgraphError(401, 'err:db/Unauthorized', message);
}

const LEDGER_NOT_FOUND = 'Ledger not found';

/** How a request is treated: its group, what it does to ledgers, and where its ledgers are named. */
export interface RouteClass {
  group: AuthGroup | null;
  kind: ScopeKind | 'none';
  /** Accepts signed bodies; the SPARQL kind an unlabelled non-JSON payload is read as. */
  signable: false | { sparql: SparqlKind };
  /** How the body names ledgers. */
  body: 'query' | 'multi' | 'ledger-key' | 'none';
  /** Ledger in the path tail, if any. */
  tail: string | null;
}

const NONE: RouteClass = { group: null, kind: 'none', signable: false, body: 'none', tail: null };

const ADMIN_ROUTES = new Set(['create', 'drop', 'drop-branch', 'branch', 'merge', 'rebase', 'revert', 'reindex', 'import']);
const READ_ROUTES = new Set(['info', 'exists', 'log', 'show', 'graphql', 'graphql-schema', 'ledgers', 'merge-preview', 'revert-preview']);

function decodeTail(segs: string[]): string | null {
  if (segs.length === 0) return null;
  const raw = segs.join('/');
  try { return decodeURIComponent(raw); } catch { return raw; }
}

/** Classify a request by method and its path below api_base_url. */
export function classifyRoute(method: string, relPath: string): RouteClass {
  const segs = relPath.split('/').filter((s) => s !== '');
  const [s0, ...rest] = segs;
  if (s0 === undefined) return NONE;
  const write = { sparql: 'application/sparql-update' as const };
  switch (s0) {
    case 'query': return { group: 'data', kind: 'read', signable: { sparql: 'application/sparql-query' }, body: 'query', tail: decodeTail(rest) };
    case 'stream':
      if (rest[0] !== 'query') return NONE;
      return { group: 'data', kind: 'read', signable: { sparql: 'application/sparql-query' }, body: 'query', tail: decodeTail(rest.slice(1)) };
    // Classified as a read; the dataset endpoint checks write scope itself when the body is an update.
    case 'sparql': return { group: 'data', kind: 'read', signable: false, body: 'query', tail: decodeTail(rest) };
    case 'multi-query': return { group: 'data', kind: 'read', signable: { sparql: null }, body: 'multi', tail: null };
    case 'update': return { group: 'data', kind: 'write', signable: write, body: 'ledger-key', tail: decodeTail(rest) };
    case 'insert': case 'upsert': return { group: 'data', kind: 'write', signable: { sparql: null }, body: 'ledger-key', tail: decodeTail(rest) };
    case 'sync': return { group: 'data', kind: 'write', signable: false, body: 'ledger-key', tail: decodeTail(rest) };
    case 'load': return { group: 'data', kind: 'write', signable: false, body: 'none', tail: decodeTail(rest) };
    case 'data': return { group: 'data', kind: method === 'GET' || method === 'HEAD' ? 'read' : 'write', signable: false, body: 'none', tail: decodeTail(rest) };
    case 'push': case 'push-merges': return { group: 'data', kind: 'push', signable: false, body: 'none', tail: decodeTail(rest) };
    case 'events': return { group: 'events', kind: 'none', signable: false, body: 'none', tail: null };
    case 'storage': {
      const tail = rest[0] === 'ns' ? decodeTail(rest.slice(1)) : null;
      return { group: 'storage', kind: 'storage', signable: false, body: rest[0] === 'block' ? 'ledger-key' : 'none', tail };
    }
    case 'commits': case 'pack': return { group: 'storage', kind: 'storage', signable: false, body: 'none', tail: decodeTail(rest) };
    // /stats stays open; /stats/memory names every loaded ledger, so it is an admin route.
    case 'stats': return rest[0] === 'memory' ? { group: 'admin', kind: 'admin', signable: false, body: 'none', tail: null } : NONE;
    default:
      // Listing branches is a read of the ledger (branches.md §2); creating one is admin.
      if (s0 === 'branch' && (method === 'GET' || method === 'HEAD')) return { group: 'data', kind: 'read', signable: false, body: 'none', tail: decodeTail(rest) };
      // Reading a default context is a read of the ledger; replacing it is admin.
      if (s0 === 'context') {
        return method === 'GET' || method === 'HEAD' ? { group: 'data', kind: 'read', signable: false, body: 'none', tail: decodeTail(rest) } : { group: 'admin', kind: 'admin', signable: false, body: 'none', tail: null };
      }
      if (ADMIN_ROUTES.has(s0)) return { group: 'admin', kind: 'admin', signable: false, body: 'none', tail: null };
      if (READ_ROUTES.has(s0)) return { group: 'data', kind: 'read', signable: false, body: 'none', tail: decodeTail(rest) };
      return NONE;
  }
}

const states = new WeakMap<object, AuthState>();
const settingsOf = new WeakMap<object, Auth>();

/** The authentication outcome of a request (anonymous when the middleware did not run). */
export function authenticate(c: Context): AuthState {
  return states.get(c) ?? { group: null, mode: 'none', tokenPresent: false };
}

/** The identity a verified credential carries: signer DID first, then bearer `ledgraph.identity`. */
export function credentialIdentity(state: AuthState): string | undefined {
  return state.signer?.identity ?? state.bearer?.identity;
}

/**
 * Check that the request's credential covers `ledgerIds` for `kind` (auth.md §6): reads outside
 * scope are 404 (no existence leak); a write to a readable ledger without write scope is 403, to an
 * unreadable one 404; push needs write and storage. Anonymous requests (mode none/optional without
 * a token) and signed requests without a bearer token have no ledger scope to check.
 */
export function requireScope(c: Context, ledgerIds: Iterable<string>, kind: ScopeKind): void {
  const st = authenticate(c);
  const p = st.bearer;
  if (!p || kind === 'admin') return;
  for (const raw of ledgerIds) {
    const id = ledgerIdOf(raw);
    if (!id) continue;
    const s = p.scopes;
    switch (kind) {
      case 'read': if (!canRead(s, id)) throw notFound(LEDGER_NOT_FOUND); break;
      case 'storage': if (!canReplicate(s, id)) throw notFound(LEDGER_NOT_FOUND); break;
      case 'write':
        if (canWrite(s, id)) break;
        if (canRead(s, id)) throw forbidden(`token does not grant write access to ledger ${id}`);
        throw notFound(LEDGER_NOT_FOUND);
      case 'push':
        if (canWrite(s, id) && canReplicate(s, id)) break;
        if (canRead(s, id) || canWrite(s, id)) throw forbidden(`push to ledger ${id} needs write and storage scope`);
        throw notFound(LEDGER_NOT_FOUND);
    }
  }
}

/** May the request's credential read this ledger? (Listings leave out what a token cannot read.) */
export function canReadLedger(c: Context, ledgerId: string): boolean {
  const p = authenticate(c).bearer;
  const id = ledgerIdOf(ledgerId);
  return !p || (id !== null && canRead(p.scopes, id));
}

/** The Auth instance behind a request (for helpers that need settings). */
export function authOf(c: Context): Auth | undefined {
  return settingsOf.get(c);
}

const fatal = new TextDecoder('utf-8', { fatal: true });

/** Largest JSON body inspected for the verifiable-credential envelope. */
const MAX_CREDENTIAL_BYTES = 1024 * 1024;

function decodeOrNull(bytes: Uint8Array): string | null {
  try { return fatal.decode(bytes); } catch { return null; }
}

/** The LedgraphError behind a failed body read (body limit), else null. */
function bodyError(e: unknown): LedgraphError | null {
  for (let cur: unknown = e, d = 0; cur && d < 4; cur = (cur as { cause?: unknown }).cause, d++) if (isLedgraphError(cur)) return cur;
  return null;
}

/** The configured auth layer of a server. */
export class Auth {
  readonly jwks: JwksCache | null;

  constructor(
    readonly settings: AuthSettings,
    opts: { apiBaseUrl?: string; fetch?: typeof fetch; jwks?: JwksCache; now?: () => number } = {},
  ) {
    this.apiBaseUrl = opts.apiBaseUrl ?? '/v1/ledgraph';
    this.now = opts.now ?? (() => Math.floor(Date.now() / 1000));
    this.jwks = opts.jwks ?? (settings.jwksIssuers.length ? new JwksCache(settings.jwksIssuers, undefined, opts.fetch) : null);
  }

  readonly apiBaseUrl: string;
  /** The clock tokens are checked against (seconds since the epoch; injectable for tests). */
  readonly now: () => number;

  /** Settings of a group. */
  group(g: AuthGroup): GroupSettings { return this.settings[g]; }

  /** Verify a bearer token against a group's rules (401 AuthError on failure). */
  verify(token: string, group: AuthGroup): Promise<Principal> {
    return verifyBearer(token, this.settings[group], this.jwks, this.now());
  }

  /** The middleware: mount it before every route under api_base_url. */
  middleware(): MiddlewareHandler {
    return async (c, next) => {
      if (c.req.method === 'OPTIONS') return next();
      const path = c.req.path;
      const rel = path.startsWith(this.apiBaseUrl) ? path.slice(this.apiBaseUrl.length) : path;
      const cls = classifyRoute(c.req.method, rel);
      settingsOf.set(c, this);
      if (cls.group === null) return next();
      const st = await this.authenticateRequest(c, cls);
      states.set(c, st);
      if (cls.group === 'data' && cls.kind !== 'none') {
        requireScope(c, await this.referencedLedgers(c, cls), cls.kind);
      } else if (cls.group === 'storage') {
        const ids = await this.referencedLedgers(c, cls);
        try { requireScope(c, ids, 'storage'); } catch { throw notFound(LEDGER_NOT_FOUND); }
      }
      return next();
    };
  }

  /** Verify what the request carries for its group (throws 401/404 per auth.md §6). */
  private async authenticateRequest(c: Context, cls: RouteClass): Promise<AuthState> {
    const group = cls.group!;
    const rules = this.settings[group];
    const st: AuthState = { group, mode: rules.mode, tokenPresent: false };
    const isStorageProxy = group === 'storage';
    const rawStorage = isStorageProxy && !/\/(commits|pack)(\/|$)/.test(c.req.path);
    // `/storage/*` hides every failure behind 404; `/commits` and `/pack` answer 401 for token problems.
    const authFail = (msg: string): LedgraphError => (rawStorage ? notFound(LEDGER_NOT_FOUND) : unauthorized(msg));
    if (isStorageProxy && !this.settings.storageProxyEnabled) throw notFound(LEDGER_NOT_FOUND);
    if (rules.mode !== 'none') {
      const header = c.req.header('Authorization');
      const token = bearerToken(header);
      if (header !== undefined && header.trim() !== '' && !token) throw authFail('Invalid token: expected Authorization: Bearer <token>');
      if (token) {
        st.tokenPresent = true;
        try {
          st.bearer = await verifyBearer(token, rules, this.jwks, this.now());
        } catch (e) {
          if (e instanceof AuthError) throw authFail(e.message);
          throw e;
        }
      }
    }
    if (cls.signable) await this.unwrapSigned(c, cls.signable.sparql, st);
    if (rules.mode === 'required' && !st.bearer && !st.signer) throw authFail('Bearer token required');
    return st;
  }

  /** Unwrap a signed body in place: the route then reads the payload with its own content type. */
  private async unwrapSigned(c: Context, sparql: SparqlKind, st: AuthState): Promise<void> {
    const ct = (c.req.header('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase();
    const declared = ct === 'application/jose' || ct === 'application/jwt';
    const isJson = ct === 'application/json' || ct === 'application/ld+json';
    // Only GET/HEAD have no body; reading c.req.raw here would build a whole web Request per query.
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return;
    // A data body (not declared a JWS, not JSON) is signed only if it opens like a JWS: peek at
    // its first bytes and leave the rest streaming, so large Turtle or N-Triples bodies are parsed
    // while they arrive (rdf-body.ts) instead of being read whole here.
    // A small body is read whole at once (cheaper than a peek; the route reads the cached bytes).
    const small = smallBody(c);
    const bytes = small ? await small : !declared && !isJson && !(await this.opensLikeJws(c)) ? null : await this.bodyBytes(c);
    if (bytes === null) return;
    // Decode only what can be signed: a declared JWS, a body opening like one ("eyJ"), or a JSON
    // body small enough to be a credential-wrapped request; large data bodies pass untouched.
    const opensLikeJws = bytes.length > 3 && bytes[0] === 0x65 && bytes[1] === 0x79 && bytes[2] === 0x4a;
    if (!declared && !(isJson ? bytes.length <= MAX_CREDENTIAL_BYTES : opensLikeJws)) return;
    const text = decodeOrNull(bytes);
    if (text === null) return;
    let signed: { did: string; body: string; contentType: string } | null = null;
    try {
      if (declared || (!isJson && looksLikeJws(text))) {
        signed = await unwrapJws(text, sparql, this.now());
      } else if (isJson && text.includes('VerifiableCredential')) {
        let json: unknown;
        try { json = JSON.parse(text); } catch { json = undefined; }
        if (isCredential(json)) signed = await unwrapCredential(json);
      }
    } catch (e) {
      if (e instanceof AuthError) throw unauthorized(e.message);
      throw e;
    }
    if (!signed) return;
    st.signer = { kind: 'signed', authMethod: 'embedded_jwk', issuer: signed.did, identity: signed.did, scopes: { readAll: true, readLedgers: [], writeAll: true, writeLedgers: [], storageAll: false, storageLedgers: [], eventsAll: false, eventsLedgers: [], eventsGraphSources: [] } };
    const headers = new Headers(c.req.raw.headers);
    headers.set('Content-Type', signed.contentType);
    headers.delete('Content-Length');
    c.req.raw = new Request(c.req.raw.url, { method: c.req.raw.method, headers, body: signed.body, signal: c.req.raw.signal });
    c.req.bodyCache = {};
  }

  /** True when the body starts with "eyJ"; the bytes read to tell are put back in front of the stream. */
  private async opensLikeJws(c: Context): Promise<boolean> {
    const raw = c.req.raw;
    if (!raw.body) return false;
    const reader = raw.body.getReader();
    const head: Uint8Array[] = [];
    let n = 0;
    try {
      while (n < 3) {
        const r = await reader.read();
        if (r.done) break;
        head.push(r.value);
        n += r.value.length;
      }
    } catch (e) {
      throw bodyError(e) ?? e;
    }
    const rest = new ReadableStream<Uint8Array>({
      start(ctl) { for (const h of head) ctl.enqueue(h); },
      async pull(ctl) {
        try {
          const r = await reader.read();
          if (r.done) ctl.close(); else ctl.enqueue(r.value);
        } catch (e) { ctl.error(e); }
      },
      cancel(reason) { return reader.cancel(reason); },
    });
    c.req.raw = new Request(raw, { body: rest, duplex: 'half' } as RequestInit);
    const first = new Uint8Array(Math.min(3, n));
    let k = 0;
    for (const h of head) for (let i = 0; i < h.length && k < first.length; i++) first[k++] = h[i]!;
    return k === 3 && first[0] === 0x65 && first[1] === 0x79 && first[2] === 0x4a;
  }

  /** The body bytes (Hono caches them, so the route reads the same bytes again). */
  private async bodyBytes(c: Context): Promise<Uint8Array> {
    try {
      return new Uint8Array(await c.req.arrayBuffer());
    } catch (e) {
      throw bodyError(e) ?? e;
    }
  }

  /** Ledgers a request references: path tail, `?ledger=`, `Ledgraph-Ledger`, and its body. */
  private async referencedLedgers(c: Context, cls: RouteClass): Promise<Set<string>> {
    const out = new Set<string>();
    const add = (v: string | undefined | null) => { const id = v ? ledgerIdOf(v.trim()) : null; if (id) out.add(id); };
    add(cls.tail);
    add(c.req.query('ledger'));
    add(c.req.header('Ledgraph-Ledger'));
    for (const k of ['default-graph-uri', 'named-graph-uri']) for (const v of c.req.queries(k) ?? []) add(v);
    // Only a bearer token has ledger scopes to check against what the body names.
    if (!authenticate(c).bearer || cls.body === 'none' || c.req.method === 'GET' || c.req.method === 'HEAD') return out;
    const ct = (c.req.header('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase();
    // Only these bodies can name ledgers; others (Turtle, N-Triples, ...) stay unread and streaming.
    if (!['application/sparql-query', 'application/x-www-form-urlencoded', 'application/json', 'application/ld+json', ''].includes(ct)) return out;
    const text = decodeOrNull(await this.bodyBytes(c));
    if (text === null) return out;
    if (ct === 'application/sparql-query') {
      if (cls.body === 'query') sparqlLedgers(text, out);
      return out;
    }
    if (ct === 'application/x-www-form-urlencoded') {
      const form = new URLSearchParams(text);
      const q = form.get('query');
      if (q && cls.body === 'query') sparqlLedgers(q, out);
      for (const k of ['ledger', 'default-graph-uri', 'named-graph-uri']) for (const v of form.getAll(k)) add(v);
      return out;
    }
    if (ct !== 'application/json' && ct !== 'application/ld+json' && ct !== '') return out;
    let json: unknown;
    try { json = JSON.parse(text); } catch { return out; }
    if (cls.body === 'query') jsonLdQueryLedgers(json, out);
    else if (cls.body === 'multi') multiQueryLedgers(json, out);
    else if (typeof json === 'object' && json !== null && !Array.isArray(json)) add((json as Record<string, unknown>)['ledger'] as string | undefined);
    return out;
  }
}
