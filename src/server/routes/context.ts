/**
 * A ledger's stored default JSON-LD context (docs/default-context.md): `GET /context/<ledger>` reads
 * it, `PUT /context/<ledger>` replaces or clears it (an admin command, like /create, which also
 * accepts one). Queries without `@context` and Cypher names resolve through it.
 */
import type { Context } from 'hono';
import { badRequest } from '../../core/errors.js';
import { normalizeLedgerId, parseLedgerRef } from '../../core/ledger/ledger-id.js';
import type { AppEnv } from '../app.js';
import { pathLedger, readJson, requireMediaType } from '../http-util.js';
import type { Registrar } from '../server-context.js';
import { route } from '../swagger.js';

const JSON_TYPES = ['application/json', 'application/ld+json'];

/** The ledger of the path: a time specifier is refused (the context is not versioned by t). */
function contextLedger(c: Context<AppEnv>): string {
  const ref = parseLedgerRef(pathLedger(c));
  if (ref.time.kind !== 'head') throw badRequest('a default context has no history: remove the time specifier from the path');
  return normalizeLedgerId(ref.id);
}

/** Registers GET and PUT /context/<ledger>. */
export const contextRoutes: Registrar = (api, ctx) => {
  route(api, ctx.table, {
    method: 'GET', path: '/context/{ledger}', tag: 'admin', summary: "The ledger's stored default JSON-LD context",
    description: 'Answers {"ledger", "@context", "default_context"}: the context (null when none is stored) and the CID of its blob.',
    responses: { 200: '{ledger, @context, default_context}', 400: 'Invalid ledger id or a time specifier', 404: 'Ledger not found' },
  }, async (c) => {
    const id = contextLedger(c);
    const rec = await ctx.conn.record(id);
    if (!rec || rec.retracted) await ctx.conn.ledger(id); // the 404
    return c.json({ ledger: id, '@context': await ctx.conn.defaultContext(id), default_context: rec?.default_context ?? null });
  });

  route(api, ctx.table, {
    method: 'PUT', path: '/context/{ledger}', tag: 'admin', summary: "Replace the ledger's stored default JSON-LD context",
    description: 'Body {"@context": object | array of objects | null}; null clears it. A nameservice compare-and-set, published on /events; requires admin auth when the admin auth mode is required.',
    requestTypes: JSON_TYPES,
    responses: {
      200: '{ledger, @context, default_context}', 400: 'Missing or invalid @context, a remote context URL, or a time specifier',
      404: 'Ledger not found', 415: 'Body is not JSON', 503: 'Too many write operations in flight',
    },
  }, async (c) => {
    const id = contextLedger(c);
    if (c.req.header('Content-Type')) requireMediaType(c, JSON_TYPES, 'a default context');
    const { json } = await readJson(c);
    if (json === null || typeof json !== 'object' || Array.isArray(json) || !('@context' in json)) {
      throw badRequest('the body is {"@context": object | array | null}');
    }
    const res = await ctx.admission.run(() => ctx.conn.setDefaultContext(id, (json as Record<string, unknown>)['@context']));
    c.get('log').info('default context replaced', { ledger: id, default_context: res.default_context });
    return c.json(res);
  });
};
