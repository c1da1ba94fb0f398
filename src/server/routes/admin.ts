/**
 * Ledger administration (http-api.md §4.4, §3): create (201), drop soft or hard (bare names only),
 * and a manual reindex. Every command is an admitted write operation (--max-in-flight).
 */
import type { Context } from 'hono';
import { badRequest } from '../../core/errors.js';
import { normalizeLedgerId, splitLedgerId } from '../../core/ledger/ledger-id.js';
import type { AppEnv } from '../app.js';
import { bodyString, readJson, requireMediaType } from '../http-util.js';
import type { Registrar } from '../server-context.js';
import { route } from '../swagger.js';

const JSON_TYPES = ['application/json', 'application/ld+json'];

/** The JSON object body of an admin command (a missing Content-Type is read as JSON). */
async function commandBody(c: Context<AppEnv>, what: string): Promise<Record<string, unknown>> {
  if (c.req.header('Content-Type')) requireMediaType(c, JSON_TYPES, what);
  const { json } = await readJson(c);
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw badRequest(`the ${what} body must be a JSON object`);
  return json as Record<string, unknown>;
}

function requiredLedger(body: Record<string, unknown>, what: string): string {
  const id = bodyString(body, 'ledger');
  if (!id) throw badRequest(`missing "ledger" in the ${what} body`);
  return id;
}

/** Registers /create, /drop and /reindex. */
export const adminRoutes: Registrar = (api, ctx) => {
  route(api, ctx.table, {
    method: 'POST', path: '/create', tag: 'admin', summary: 'Create a ledger (genesis commit, t = 0)',
    description: 'Body {"ledger": "name:branch", "@context"?: object}; a bare name means name:main; "@context" is stored as the ledger\'s default JSON-LD context.',
    requestTypes: JSON_TYPES,
    responses: {
      201: 'Create response {ledger, t, tx-id, commit {commit_id}}', 400: 'Missing or invalid ledger id or @context', 409: 'err:db/LedgerExists',
      415: 'Body is not JSON', 503: 'Too many write operations in flight',
    },
  }, async (c) => {
    const body = await commandBody(c, 'create');
    const id = normalizeLedgerId(requiredLedger(body, 'create'));
    const created = await ctx.admission.run(() => ctx.conn.create(id, '@context' in body ? { context: body['@context'] } : {}));
    c.get('log').info('ledger created', { ledger: created.ledger, commit_id: created.commit.commit_id });
    return c.json(created, 201);
  });

  route(api, ctx.table, {
    method: 'POST', path: '/drop', tag: 'admin', summary: 'Drop a ledger (all branches)',
    description: 'Body {"ledger": "<bare name>", "hard"?: boolean}. Soft (default) retracts the records and keeps the artifacts; hard deletes them and frees the name.',
    requestTypes: JSON_TYPES,
    responses: {
      200: 'Drop response {ledger_id, status (dropped | already_retracted | not_found), files_deleted, branches_dropped}',
      400: 'Missing name, branch-qualified name, or non-boolean hard', 415: 'Body is not JSON', 503: 'Too many write operations in flight',
    },
  }, async (c) => {
    const body = await commandBody(c, 'drop');
    const name = requiredLedger(body, 'drop');
    if (name.includes(':')) throw badRequest(`drop takes a bare ledger name without a branch, not "${name}"; it drops every branch`);
    splitLedgerId(name);
    const hard = body.hard ?? false;
    if (typeof hard !== 'boolean') throw badRequest('"hard" must be a boolean');
    const res = await ctx.admission.run(() => ctx.conn.drop(name, { hard }));
    c.get('log').info('ledger dropped', { ledger: name, hard, status: res.status, files_deleted: res.files_deleted });
    return c.json(res);
  });

  route(api, ctx.table, {
    method: 'POST', path: '/reindex', tag: 'admin', summary: 'Index the ledger now',
    description: 'Body {"ledger": "name:branch"}. Waits for a running index job, then merges the remaining novelty into a new index.',
    requestTypes: JSON_TYPES,
    responses: {
      200: 'Reindex response {ledger, t, index_t, index_id}', 400: 'Missing or invalid ledger id', 404: 'Ledger not found',
      415: 'Body is not JSON', 503: 'Too many write operations in flight',
    },
  }, async (c) => {
    const id = normalizeLedgerId(requiredLedger(await commandBody(c, 'reindex'), 'reindex'));
    const res = await ctx.admission.run(async () => {
      const r = await ctx.conn.reindex(id);
      const ledger = await ctx.conn.ledger(id);
      return { ledger: r.ledger, t: ledger.t, index_t: r.index_t, index_id: r.index_id };
    });
    c.get('log').info('ledger reindexed', { ledger: id, index_t: res.index_t });
    return c.json(res);
  });
};
