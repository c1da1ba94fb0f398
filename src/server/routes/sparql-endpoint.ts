/**
 * One SPARQL endpoint per ledger, `{api}/sparql/<ledger...>`, for both query and update (as a
 * Fuseki dataset URL), so tools that take a single URL (YASGUI, SPARQLWrapper without an update
 * endpoint, rdflib's SPARQLUpdateStore) work. Queries: `GET ?query=`, a form with `query=`, or a
 * direct POST (`application/sparql-query`, also JSON-LD); they run exactly as on
 * `/query/<ledger>`. Updates: a form with `update=` or a direct `application/sparql-update`
 * POST, run exactly as on `/update/<ledger>`. A GET with neither is the service description.
 */
import type { Context } from 'hono';
import { badRequest } from '../../core/errors.js';
import type { AppEnv } from '../app.js';
import { decodeUtf8, parseMediaType, pathLedger, readBytes } from '../http-util.js';
import type { Registrar, ServerContext } from '../server-context.js';
import { route } from '../swagger.js';
import { requireScope } from '../auth/index.js';
import { handleQuery, QUERY_CONTENT_TYPES } from './query.js';
import { serviceDescription } from './service-description.js';
import { handleUpdate } from './write.js';

type Ctx = Context<AppEnv>;

/** True when the request is a SPARQL UPDATE (direct, or a form carrying `update=`). */
export async function isUpdate(c: Ctx): Promise<boolean> {
  const type = parseMediaType(c.req.header('Content-Type'))?.type;
  if (type === 'application/sparql-update') return true;
  if (type !== 'application/x-www-form-urlencoded') return false;
  // Hono keeps the body, so the handler that runs next reads it again.
  return new URLSearchParams(decodeUtf8(await readBytes(c))).has('update');
}

/** Handle GET/POST /sparql/<ledger...>. */
async function handleDataset(c: Ctx, ctx: ServerContext): Promise<Response> {
  const ledger = pathLedger(c);
  if (c.req.method === 'GET' || c.req.method === 'HEAD') {
    if (c.req.query('update') !== undefined) {
      throw badRequest('a SPARQL UPDATE cannot be sent with GET (SPARQL 1.1 Protocol §2.2): POST it as update= in a form or as application/sparql-update');
    }
    if (c.req.query('query') === undefined) return serviceDescription(c, ctx, ledger, { update: true });
    return handleQuery(c, ctx);
  }
  if (await isUpdate(c)) {
    // The auth layer checked read scope for this route; an update needs write scope too.
    requireScope(c, [ledger], 'write');
    return handleUpdate(c, ctx);
  }
  return handleQuery(c, ctx);
}

/** Registers GET and POST /sparql/<ledger...>. */
export const sparqlEndpointRoutes: Registrar = (api, ctx) => {
  const responses = {
    200: 'Query result in the negotiated format; update commit receipt; or the service description',
    400: 'Invalid query or update', 404: 'Ledger not found', 406: 'No acceptable format', 408: 'Query timeout exceeded',
    415: 'Unsupported Content-Type',
  };
  route(api, ctx.table, {
    method: 'GET', path: '/sparql/{ledger}', tag: 'sparql', head: true,
    summary: 'SPARQL dataset endpoint: ?query= runs a query; without it, the SPARQL Service Description',
    query: [{ name: 'query', description: 'SPARQL query text' }, { name: 'format', description: 'Response format override (as /query)' }],
    responseTypes: ['application/sparql-results+json', 'text/turtle', 'application/ld+json'], responses,
  }, (c) => handleDataset(c, ctx));
  route(api, ctx.table, {
    method: 'POST', path: '/sparql/{ledger}', tag: 'sparql',
    summary: 'SPARQL dataset endpoint: query (query= form, application/sparql-query, JSON-LD) or update (update= form, application/sparql-update)',
    requestTypes: [...QUERY_CONTENT_TYPES, 'application/sparql-update'],
    responseTypes: ['application/sparql-results+json', 'application/json'], responses,
  }, (c) => handleDataset(c, ctx));
};
