/**
 * JSON-LD 1.1 context processing and expansion of transaction documents through jsonld.js, the
 * reference implementation (jsonld-transactions.md §1, docs/jsonld-transactions.md). The document
 * loader serves only contexts given inline or preloaded by the caller (the ledger's default context,
 * the `context` request parameter); nothing is ever fetched from the network. JSON-LD errors become
 * 400s that name the JSON-LD error code.
 */
import jsonld from 'jsonld';
import { badRequest, isLedgraphError, LedgraphError } from '../errors.js';
import { fastExpand, type Expanded } from './jsonld-fast.js';
import { hasScheme, relativeIriError } from './iri-errors.js';

export { relativeIriError } from './iri-errors.js';

/** Options of `expandJsonLd`. */
export interface ExpandOptions {
  /** Base IRI for relative references (the `base` request parameter); `@base` in a context wins. */
  base?: string;
  /** A context applied before the document's own (the ledger's default context), as JSON. */
  expandContext?: unknown;
  /** Remote contexts the loader may serve, by URL (preloaded; never fetched). */
  contexts?: ReadonlyMap<string, unknown>;
  /** false: always jsonld.js, even for a plain document (the fast path's tests compare both). */
  fastPath?: boolean;
}

export type { Expanded } from './jsonld-fast.js';

/** The relative IRIs jsonld.js reports while expanding; a transaction stores none of them. */
const RELATIVE_EVENTS = new Set(['relative @id reference', 'relative @type reference', 'relative @vocab reference']);

/**
 * Expand `doc` (JSON-LD 1.1 processing mode). Keys that do not expand to an IRI are dropped as
 * JSON-LD requires; their names are returned in `dropped` so an empty result can say why.
 */
export async function expandJsonLd(doc: unknown, opts: ExpandOptions = {}): Promise<{ expanded: Expanded[]; dropped: string[] }> {
  if (opts.fastPath !== false && (opts.expandContext === undefined || opts.expandContext === null)) {
    const fast = fastExpand(doc);
    if (fast !== undefined) return { expanded: fast, dropped: [] };
  }
  const dropped: string[] = [];
  const relative: string[] = [];
  const options: Record<string, unknown> = {
    base: opts.base ?? null,
    processingMode: 'json-ld-1.1',
    documentLoader: loaderFor(opts.contexts),
    eventHandler: ({ event, next }: { event: { code: string; details?: Record<string, unknown> }; next: () => void }) => {
      if (event.code === 'invalid property') dropped.push(String(event.details?.['property']));
      else if (RELATIVE_EVENTS.has(event.code)) {
        // jsonld.js reports an IRI with a scheme but a space in it as relative: that one is ill-formed,
        // and the quad writer drops its statements as JSON-LD's toRdf does.
        const v = String(event.details?.['expandedId'] ?? event.details?.['id'] ?? event.details?.['type'] ?? event.details?.['vocab'] ?? '');
        if (!hasScheme(v)) relative.push(v);
      }
      else next();
    },
  };
  if (opts.expandContext !== undefined && opts.expandContext !== null) options['expandContext'] = opts.expandContext;
  checkContextKeywords(doc);
  let expanded: unknown;
  try {
    expanded = await jsonld.expand(doc as jsonld.JsonLdDocument, options as jsonld.Options.Expand);
  } catch (e) {
    throw jsonLdError(e);
  }
  if (relative.length > 0) throw relativeIriError(relative[0]!);
  return { expanded: expanded as Expanded[], dropped };
}

/**
 * A local context defining the keyword `@context` is a JSON-LD "keyword redefinition" error that
 * jsonld.js 9 lets pass (W3C expand/toRdf test er56); checked here before expansion.
 */
function checkContextKeywords(v: unknown): void {
  if (Array.isArray(v)) { for (const x of v) checkContextKeywords(x); return; }
  if (typeof v !== 'object' || v === null) return;
  for (const [k, x] of Object.entries(v)) {
    if (k === '@context') {
      for (const c of Array.isArray(x) ? x : [x]) {
        if (typeof c === 'object' && c !== null && '@context' in c) throw badRequest('invalid JSON-LD (keyword redefinition): a context cannot define @context');
      }
    } else if (typeof x === 'object' && x !== null) checkContextKeywords(x);
  }
}


/** Serves preloaded contexts only; any other URL is a JSON-LD "loading remote context failed". */
function loaderFor(contexts: ReadonlyMap<string, unknown> | undefined) {
  return async (url: string) => {
    const document = contexts?.get(url);
    if (document === undefined) {
      throw new LedgraphError(400, 'err:db/BadRequest',
        `loading remote context failed: ${url} is not fetched (Ledgraph never loads contexts over the network); send the context inline`);
    }
    return { contextUrl: null, documentUrl: url, document };
  };
}

/** jsonld.js errors as 400s naming the JSON-LD error code (e.g. "protected term redefinition"). */
export function jsonLdError(e: unknown): LedgraphError {
  if (isLedgraphError(e)) return e;
  const err = e as { name?: string; message?: string; details?: { code?: string; cause?: unknown } };
  if (err && typeof err === 'object' && typeof err.name === 'string' && err.name.startsWith('jsonld.')) {
    const code = err.details?.code;
    // A loader refusal arrives wrapped; keep its own message.
    const inner = err.details?.cause;
    if (isLedgraphError(inner)) return badRequest(`invalid JSON-LD (${code ?? 'loading remote context failed'}): ${inner.message}`);
    return badRequest(`invalid JSON-LD${code ? ` (${code})` : ''}: ${err.message ?? String(e)}`);
  }
  throw e;
}
