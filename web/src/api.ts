/**
 * The server's HTTP API as the explorer uses it: the API base from the discovery document, the
 * bearer token from session storage, and errors carrying the server's `@type` and message.
 */

const TOKEN_KEY = 'ledgraph.token';

/** An error answer of the server (http-api.md §7). */
export class ApiError extends Error {
  constructor(readonly status: number, readonly type: string, message: string) { super(message); }
}

let base = '/v1/ledgraph';
let authAdvertised = false;

/** Read the discovery document once at start. */
export async function discover(): Promise<{ authAdvertised: boolean }> {
  const r = await fetch('/.well-known/ledgraph.json');
  if (r.ok) {
    const doc = await r.json() as { api_base_url?: string; auth?: unknown };
    if (doc.api_base_url) base = doc.api_base_url;
    authAdvertised = !!doc.auth;
  }
  return { authAdvertised };
}

/** The API base path, e.g. `/v1/ledgraph`. */
export function apiBase(): string { return base; }
/** Whether the server advertises token auth. */
export function needsToken(): boolean { return authAdvertised; }

/** The token kept for this browser tab. */
export function getToken(): string { return sessionStorage.getItem(TOKEN_KEY) ?? ''; }
/** Keep (or, when empty, forget) the token for this tab. */
export function setToken(t: string): void {
  if (t) sessionStorage.setItem(TOKEN_KEY, t); else sessionStorage.removeItem(TOKEN_KEY);
}

/** A ledger id as a path tail: `/` and `:` and `@` stay readable, everything else is escaped. */
export function ledgerPath(id: string): string {
  return id.split('/').map((s) => encodeURIComponent(s).replace(/%3A/gi, ':').replace(/%40/g, '@')).join('/');
}

/** Fetch from the API with the token; throws ApiError on a non-2xx answer. */
export async function call(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const token = getToken();
  if (token) headers.set('Authorization', `Bearer ${token}`);
  const r = await fetch(base + path, { ...init, headers });
  if (!r.ok) throw await toError(r);
  return r;
}

/** GET/POST JSON and parse the JSON answer. */
export async function json<T>(path: string, body?: unknown): Promise<T> {
  const init: RequestInit = body === undefined ? {} : { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } };
  return (await call(path, init)).json() as Promise<T>;
}

async function toError(r: Response): Promise<ApiError> {
  const text = await r.text();
  try {
    const b = JSON.parse(text) as { '@type'?: string; error?: string; message?: string };
    return new ApiError(r.status, b['@type'] ?? `HTTP ${r.status}`, b.error ?? b.message ?? text);
  } catch {
    return new ApiError(r.status, `HTTP ${r.status}`, text || r.statusText);
  }
}

/** A one-line description of any error, with the server's `@type` first. */
export function describe(e: unknown): { type: string; message: string } {
  if (e instanceof ApiError) return { type: e.type, message: e.message };
  return { type: 'Error', message: e instanceof Error ? e.message : String(e) };
}

/** One entry of `GET /ledgers`. */
export interface LedgerEntry { ledger: string; name: string; branch: string; t: number; commit_id: string | null }
/** `GET /info` (the parts used here). */
export interface LedgerInfo {
  ledger: string; t: number;
  stats?: { flakes?: number; size?: number; properties?: Record<string, unknown>; classes?: Record<string, unknown> };
}
/** One commit of `GET /log`. */
export interface CommitSummary { t: number; commit_id: string; time: string; asserts: number; retracts: number; message: string | null }
/** `GET /show`. */
export interface ShownCommit {
  id: string; t: number; time: string; size: number; previous: string | null; asserts: number; retracts: number;
  '@context': Record<string, string>; flakes: [string, string, unknown, string, boolean, { lang?: string; g?: string }?][];
}
