/**
 * `opts` and commit metadata rules of a transaction, shared by every write front end
 * (jsonld-transactions.md §7, §8, §10): the `opts` object, the metadata (txn-meta) entry checks
 * and the size limits on metadata and named-graph IRIs.
 */
import { badRequest } from '../errors.js';
import type { ActiveContext } from '../rdf/jsonld-context.js';
import { F, rdf, xsd } from '../rdf/vocab.js';
import { isObject, listOf } from '../query/jsonld/util.js';
import type { MetaEntry, TxnOpts } from './txn-request.js';
import { quote } from '../excerpt.js';

/** Most commit-metadata entries per transaction (§8). */
export const MAX_META_ENTRIES = 256;
/** Most bytes of commit metadata per transaction (§8), measured as the UTF-8 JSON of its members. */
export const MAX_META_BYTES = 64 * 1024;
/** Longest named-graph IRI in UTF-8 bytes (§7). */
export const MAX_GRAPH_IRI_BYTES = 8 * 1024;

/** Commit facts the server writes itself; a client may not supply them as metadata. */
const BUILTIN_META = new Set(['t', 'time', 'commitId', 'previous', 'asserts', 'retracts', 'author'].map((n) => F + n));

const encoder = new TextEncoder();
/** Byte length of `s` in UTF-8. */
export function utf8Length(s: string): number { return encoder.encode(s).length; }

/**
 * Rules every front end applies to commit metadata (§8): limits, no server-written predicates
 * (f:t, f:author, ...), no rdf:type, no blank nodes, and f:message must be a plain string.
 */
export function checkMetaEntries(entries: readonly MetaEntry[], bytes: number): void {
  for (const e of entries) {
    if (e.predicate === rdf.type) throw badRequest('rdf:type cannot be commit metadata');
    if (BUILTIN_META.has(e.predicate)) throw badRequest(`<${e.predicate}> is written by the server and cannot be supplied as metadata`);
    if (e.object.termType === 'BlankNode') throw badRequest(`metadata <${e.predicate}> cannot be a blank node or nested node`);
    if (e.predicate === F + 'message' && (e.object.termType !== 'Literal' || e.object.datatype.value !== xsd.string)) {
      throw badRequest('the commit message (f:message) must be a string');
    }
  }
  if (entries.length > MAX_META_ENTRIES) throw badRequest(`too much metadata: ${entries.length} entries, at most ${MAX_META_ENTRIES}`);
  if (bytes > MAX_META_BYTES) throw badRequest(`too much metadata: ${bytes} bytes, at most ${MAX_META_BYTES}`);
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Parse `opts` (§10). `objectVarParsing` is a parser setting, not a pipeline option. */
export function parseOpts(raw: unknown, ctx: Pick<ActiveContext, 'expandIri'>): { opts: TxnOpts; objectVarParsing: boolean } {
  const opts: TxnOpts = {};
  if (raw === undefined || raw === null) return { opts, objectVarParsing: true };
  if (!isObject(raw)) throw badRequest('opts must be an object');
  const get = (...names: string[]): unknown => { for (const n of names) if (raw[n] !== undefined) return raw[n]; return undefined; };
  const eventTime = get('eventTime', 'event-time', 'event_time');
  if (eventTime !== undefined) {
    const m = typeof eventTime === 'string' ? RFC3339.exec(eventTime) : null;
    if (!m || !validInstant(m) || Number.isNaN(Date.parse(eventTime as string))) {
      throw badRequest(`opts.eventTime must be an RFC 3339 instant such as 2025-03-01T10:00:00Z, got ${quote(eventTime)}`);
    }
    opts.eventTime = eventTime as string;
  }
  const meta = get('meta');
  if (meta !== undefined) {
    if (typeof meta === 'boolean') opts.meta = meta;
    else if (isObject(meta) && Object.entries(meta).every(([k, v]) => ['time', 'fuel', 'policy'].includes(k) && typeof v === 'boolean')) {
      opts.meta = meta as { time?: boolean; fuel?: boolean; policy?: boolean };
    } else throw badRequest('opts.meta must be true/false or {"time": bool, "fuel": bool, "policy": bool}');
  }
  const fuel = get('max-fuel', 'maxFuel', 'max_fuel');
  if (fuel !== undefined) {
    const n = typeof fuel === 'string' && /^\d+$/.test(fuel) ? Number(fuel) : fuel;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) throw badRequest('opts.max-fuel must be a non-negative integer');
    opts.maxFuel = n;
  }
  const identity = get('identity', 'did');
  if (identity !== undefined) {
    if (typeof identity !== 'string' || identity === '') throw badRequest('opts.identity must be an IRI or DID string');
    opts.identity = ctx.expandIri(identity, false);
  }
  const pc = get('policy-class', 'policyClass', 'policy_class');
  if (pc !== undefined) {
    if (!(typeof pc === 'string' || (Array.isArray(pc) && pc.every((x) => typeof x === 'string')))) {
      throw badRequest('opts.policy-class must be an IRI or an array of IRIs');
    }
    opts.policyClass = (listOf(pc) as string[]).map((c) => ctx.expandIri(c, true));
  }
  const policy = get('policy');
  if (policy !== undefined) opts.policy = policy;
  const pv = get('policy-values', 'policyValues', 'policy_values');
  if (pv !== undefined) {
    if (!isObject(pv)) throw badRequest('opts.policy-values must be an object {"?var": value}');
    opts.policyValues = pv;
  }
  const da = get('default-allow', 'defaultAllow', 'default_allow');
  if (da !== undefined) {
    if (typeof da !== 'boolean') throw badRequest('opts.default-allow must be a boolean');
    opts.defaultAllow = da;
  }
  const ovp = get('objectVarParsing', 'object-var-parsing');
  if (ovp !== undefined && typeof ovp !== 'boolean') throw badRequest('opts.objectVarParsing must be a boolean');
  return { opts, objectVarParsing: ovp !== false };
}

function validInstant(m: RegExpExecArray): boolean {
  const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]));
  const dim = [31, y! % 4 === 0 && (y! % 100 !== 0 || y! % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return mo! >= 1 && mo! <= 12 && d! >= 1 && d! <= dim[mo! - 1]! && h! <= 23 && mi! <= 59 && s! <= 59;
}
