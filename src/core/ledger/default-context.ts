/**
 * A ledger's stored default JSON-LD context: a `default-context` blob (Codec.defaultContext, canonical
 * JSON `{"v": 1, "@context": C}`) named by the nameservice record's `default_context` CID. JSON-LD
 * queries without `@context` (jsonld-query.md §2.3), Cypher names (cypher.md §3) and GraphQL naming
 * read it through `defaultContextOf`; it is set at create and replaced by `setDefaultContext`.
 */
import { CID } from 'multiformats/cid';
import { Codec } from '../commit/cid.js';
import { badRequest, internalError, notFound } from '../errors.js';
import { canonicalJsonBytes, parseJsonNode } from '../index/root-codec.js';
import { ActiveContext } from '../rdf/jsonld-context.js';
import type { ContentStore, NameService, NsRecord } from '../store.js';
import type { Ledger } from './ledger.js';
import { normalizeLedgerId, parseLedgerRef } from './ledger-id.js';

/** Largest default context accepted, in bytes of its JSON (it is read by every query without `@context`). */
export const MAX_DEFAULT_CONTEXT_BYTES = 256 * 1024;

/** What reading and replacing a default context needs of a connection. */
export interface ContextEnv {
  /** The content store of a ledger (content-scope.ts). */
  contentFor(ledgerId: string): ContentStore;
  readonly ns: NameService;
  /** The nameservice record (feed-maintained cache). */
  record(id: string): Promise<NsRecord | null>;
  ledger(id: string): Promise<Ledger>;
}

/**
 * Check a context given for storage: an object, an array of objects, or null (no default). Remote
 * context URLs are not fetched (jsonld-query.md §2.2), so a string anywhere at the top is a 400.
 */
export function checkDefaultContext(ctx: unknown): void {
  if (ctx === null) return;
  const parts = Array.isArray(ctx) ? ctx : [ctx];
  for (const p of parts) {
    if (p === null || typeof p !== 'object' || Array.isArray(p)) {
      throw badRequest('a default context is a JSON object (or an array of objects); remote context URLs are not fetched');
    }
  }
  const size = JSON.stringify(ctx).length;
  if (size > MAX_DEFAULT_CONTEXT_BYTES) throw badRequest(`the default context is ${size} bytes; at most ${MAX_DEFAULT_CONTEXT_BYTES} are accepted`);
  ActiveContext.create(ctx); // throws the 400 of an invalid term definition
}

/** Store a (checked) context as a blob; the CID string, or null for no context. */
export async function storeDefaultContext(content: ContentStore, ctx: unknown): Promise<string | null> {
  checkDefaultContext(ctx);
  if (ctx === null) return null;
  return (await content.put(Codec.defaultContext, canonicalJsonBytes({ v: 1, '@context': ctx }))).toString();
}

/** Decoded blobs by CID: immutable, so shared by every ledger and connection. */
const blobs = new Map<string, unknown>();
const MAX_CACHED = 256;

async function readBlob(content: ContentStore, cid: string): Promise<unknown> {
  if (blobs.has(cid)) return blobs.get(cid);
  const node = parseJsonNode<{ v: number; '@context'?: unknown }>(await content.get(CID.parse(cid)), 'default context');
  const ctx = node['@context'] ?? null;
  if (blobs.size >= MAX_CACHED) blobs.delete(blobs.keys().next().value!);
  blobs.set(cid, ctx);
  return ctx;
}

/**
 * The stored default context of a ledger (a time specifier in `ledgerRef` is ignored: the context is
 * not versioned by t), or null when it has none or the ledger does not exist.
 */
export async function defaultContextOf(env: Pick<ContextEnv, 'contentFor' | 'record'>, ledgerRef: string): Promise<unknown> {
  const rec = await env.record(normalizeLedgerId(parseLedgerRef(ledgerRef).id));
  if (!rec || rec.retracted || !rec.default_context) return null;
  return readBlob(env.contentFor(rec.ledger_id), rec.default_context);
}

/** The outcome of replacing a default context. */
export interface DefaultContextChange { ledger: string; '@context': unknown; default_context: string | null }

/**
 * Replace (or with null, clear) a ledger's default context: a compare-and-set of the record's
 * `default_context`, under the ledger's write lock so the loaded ledger's record stays current and
 * the change is published on the change feed (/events) like any other record change.
 */
export async function setDefaultContext(env: ContextEnv, ledgerId: string, ctx: unknown): Promise<DefaultContextChange> {
  const id = normalizeLedgerId(ledgerId);
  const cid = await storeDefaultContext(env.contentFor(id), ctx);
  const ledger = await env.ledger(id);
  return ledger.lock.run(async () => {
    for (let attempt = 0; attempt < 32; attempt++) {
      const cur = await env.ns.get(id);
      if (!cur || cur.retracted) throw notFound(`ledger ${id} not found`);
      if (cur.default_context !== cid && !(await env.ns.compareAndSet(id, cur, { ...cur, default_context: cid }))) continue;
      ledger.record = { ...ledger.record, default_context: cid };
      return { ledger: id, '@context': ctx, default_context: cid };
    }
    throw internalError(`could not replace the default context of ${id}: the nameservice kept changing; retry`);
  });
}
