/**
 * `GET /events` (http-api.md §4.9, §6; replication.md §10): the nameservice event stream of a
 * transaction server. A peer (`--role peer`) does not register it, so it answers 404 there. The
 * subscription is `all=true`, or `ledger=` / `graph-source=` (repeatable); a token asking for more
 * than its `ledgraph.events.*` claims allow is silently narrowed (auth.md §6).
 */
import { badRequest } from '../../core/errors.js';
import { responseWithId } from '../app.js';
import { authenticate, narrowEvents } from '../auth/index.js';
import { ledgerIdOf } from '../auth/refs.js';
import type { Registrar } from '../server-context.js';
import { route } from '../swagger.js';

/** Registers `GET /events` (transaction role only). */
export const eventsRoutes: Registrar = (api, ctx) => {
  if (ctx.config.role === 'peer') return;
  route(api, ctx.table, {
    method: 'GET', path: '/events', tag: 'replication', summary: 'Nameservice event stream (Server-Sent Events)',
    description: 'On connect one ns-record per matching live ledger (sorted by id), then ns-record for every commit and index '
      + 'publish and ns-retracted on drop, from the nameservice change feed; a ": keep-alive" comment every 30 s. '
      + 'A client that falls behind by more than 1 MiB of events is sent ": overflow" and the stream ends; reconnect.',
    query: [
      { name: 'all', type: 'boolean', description: 'Every ledger and graph source (narrowed to the token\'s lists)' },
      { name: 'ledger', repeatable: true, description: 'A ledger id name:branch (a bare name means name:main)' },
      { name: 'graph-source', repeatable: true, description: 'A graph source id' },
    ],
    headers: [{ name: 'Authorization', description: 'Bearer token with ledgraph.events.* claims (per --events-auth-mode)' }],
    responseTypes: ['text/event-stream'],
    responses: { 200: 'The event stream', 400: 'No subscription, or an invalid id', 401: 'Missing or invalid token (events auth)' },
  }, async (c) => {
    const all = c.req.query('all');
    if (all !== undefined && all !== 'true' && all !== 'false') throw badRequest(`all must be true or false, not "${all}"`);
    const ids = (key: string) => (c.req.queries(key) ?? []).map((raw) => {
      const id = ledgerIdOf(raw.trim());
      if (id === null) throw badRequest(`${key}: "${raw}" is not a name:branch id`);
      return id;
    });
    const wanted = { all: all === 'true', ledgers: ids('ledger'), graphSources: ids('graph-source') };
    if (!wanted.all && wanted.ledgers.length === 0 && wanted.graphSources.length === 0) {
      throw badRequest('subscribe with all=true, ledger=<name:branch> or graph-source=<name:branch>');
    }
    const sub = narrowEvents(authenticate(c), wanted);
    const stream = await ctx.events.subscribe({ all: sub.all, ledgers: new Set(sub.ledgers), graphSources: new Set(sub.graphSources) });
    return responseWithId(c, stream, 200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    });
  });
};
