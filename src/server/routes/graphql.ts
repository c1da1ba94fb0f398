/**
 * The GraphQL endpoints (graphql.md §1, http-api.md §4.8): `POST /graphql/<ledger>` (JSON
 * envelope or `application/graphql`), `GET /graphql/<ledger>?query=…` and
 * `GET /graphql-schema/<ledger>` (SDL). The ledger may carry a time specifier; the caller's policy
 * (headers as on /query, or the verified credential) decides the view the schema is derived from
 * and the document reads. Only a malformed envelope is 4xx; everything else is a 200 GraphQL body.
 */
import type { Context } from 'hono';
import { badRequest, unsupportedMediaType } from '../../core/errors.js';
import { parseLedgerRef } from '../../core/ledger/ledger-id.js';
import { isRootPolicy, policyView } from '../../core/policy/index.js';
import { derivedSchema, runGraphQL, schemaSdl, type GraphQLRun } from '../../core/query/graphql/service.js';
import type { DerivedSchema } from '../../core/query/graphql/schema.js';
import type { DbView } from '../../core/index/view.js';
import { responseWithId, type AppEnv } from '../app.js';
import { decodeUtf8, parseJsonText, parseMediaType, pathLedger, readBytes } from '../http-util.js';
import { parseMinT, policyFromHeaders, POLICY_HEADERS } from '../query-headers.js';
import type { Registrar, ServerContext } from '../server-context.js';
import { requireQueryServed } from '../storage-proxy/serving.js';
import { route } from '../swagger.js';
import { awaitFreshness, queryDeadline, resolvePolicy } from './query.js';
import { commitWrite, contextParam } from './write.js';
import { parseJsonLdTxn } from '../../core/transact/parse-jsonld.js';

type Ctx = Context<AppEnv>;

/** The ledger snapshot and caller view of a request, with its derived schema. */
async function openSchema(c: Ctx, ctx: ServerContext): Promise<{ derived: DerivedSchema; view: DbView; contextJson: unknown; pinned: boolean; deadline: number; viewAt: (t: number) => Promise<DbView>; ledgerId: string }> {
  const ref = parseLedgerRef(pathLedger(c));
  if (ref.fragment !== null) throw badRequest('GraphQL reads the default graph of one ledger; named graphs (#fragment) are not expressible');
  // `context=` overrides the ledger's stored default context (graphql.md §5 naming; docs/default-context.md).
  const contextJson = contextParam(c) ?? (await ctx.conn.defaultContext(ref.id)) ?? null;
  const policy = resolvePolicy(c, ctx, policyFromHeaders(c.req.raw.headers), true);
  const { deadline } = queryDeadline(ctx);
  const minT = parseMinT(c.req.raw.headers);
  const ledger = await ctx.conn.ledger(ref.id);
  if (minT !== undefined) await awaitFreshness(ctx.conn, [ref.id], minT, deadline, c.req.raw.signal);
  await requireQueryServed(ctx.conn, [ref.id]);
  const db = await ledger.db(ref.time);
  const viewAt = async (t: number): Promise<DbView> => {
    const at = t === db.t ? db : await ledger.db({ kind: 't', t });
    return isRootPolicy(policy) ? at : (await policyView(ctx.conn, at, policy, { ledgerId: ref.id })).view;
  };
  const view = await viewAt(db.t);
  const key = JSON.stringify([ref.id, db.t, isRootPolicy(policy) ? null : policy, contextJson]);
  const derived = await derivedSchema(key, view, db, contextJson);
  return { derived, view, contextJson, pinned: ref.time.kind !== 'head', deadline, viewAt, ledgerId: ref.id };
}

/** The request envelope (§1): query, variables, operationName, explain. */
async function readEnvelope(c: Ctx): Promise<{ query: string; variables: Record<string, unknown> | null; operationName: string | null; explain: boolean }> {
  const explainParam = c.req.query('explain') === 'true';
  if (c.req.method === 'GET') {
    const query = c.req.query('query');
    if (query === undefined) throw badRequest('missing query: give the GraphQL document as ?query=');
    const rawVars = c.req.query('variables');
    let variables: unknown = null;
    if (rawVars !== undefined && rawVars !== '') {
      try { variables = JSON.parse(rawVars); } catch { throw badRequest('variables must be URL-encoded JSON'); }
    }
    return { query, variables: checkVariables(variables), operationName: checkName(c.req.query('operationName') ?? null), explain: explainParam };
  }
  const mt = parseMediaType(c.req.header('Content-Type'))?.type;
  if (mt === 'application/graphql') return { query: decodeUtf8(await readBytes(c)), variables: null, operationName: null, explain: explainParam };
  if (mt !== 'application/json') throw unsupportedMediaType(`unsupported Content-Type ${mt ?? '(none)'} for GraphQL; use application/json or application/graphql`);
  const body = parseJsonText(decodeUtf8(await readBytes(c)));
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('the GraphQL request body must be a JSON object');
  const b = body as Record<string, unknown>;
  if (typeof b.query !== 'string') throw badRequest('query must be a string');
  const ext = b.extensions;
  const explain = explainParam || (typeof ext === 'object' && ext !== null && (ext as Record<string, unknown>).explain === true);
  return { query: b.query, variables: checkVariables(b.variables ?? null), operationName: checkName(b.operationName ?? null), explain };
}

function checkVariables(v: unknown): Record<string, unknown> | null {
  if (v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v)) throw badRequest('variables must be a JSON object or null');
  return v as Record<string, unknown>;
}

function checkName(v: unknown): string | null {
  if (v !== null && typeof v !== 'string') throw badRequest('operationName must be a string or null');
  return v;
}

/** Handle GET/POST /graphql/<ledger>. */
async function handleGraphQL(c: Ctx, ctx: ServerContext): Promise<Response> {
  const env = await readEnvelope(c);
  const { derived, view, contextJson, pinned, deadline, viewAt, ledgerId } = await openSchema(c, ctx);
  // Mutations are ordinary transactions: the one write pipeline, the caller's modify policy (§12).
  const commit: GraphQLRun['commit'] = async (txn, mode) => {
    const parsed = await parseJsonLdTxn(txn, mode, { ledgerDefaultContext: contextJson ?? undefined });
    // The request's policy headers select the write policy too (a credential's identity wins in commitWrite).
    const req = { ...parsed, opts: { ...parsed.opts, ...policyFromHeaders(c.req.raw.headers) } };
    const receipt = await commitWrite(c, ctx, ledgerId, req, { contentType: 'application/json', body: txn });
    return { t: receipt.t, commit_id: receipt.commit_id, view: await viewAt(receipt.t) };
  };
  const run: GraphQLRun = {
    commit,
    query: env.query, variables: env.variables, operationName: env.operationName, explain: env.explain,
    readOnly: c.req.method === 'GET' ? 'get' : pinned ? 'pinned' : false, signal: c.req.raw.signal, ...(deadline ? { deadline } : {}),
  };
  const body = await runGraphQL(derived, view, contextJson, run);
  return responseWithId(c, JSON.stringify(body), 200, { 'content-type': 'application/json' });
}

/** Handle GET /graphql-schema/<ledger>: the caller's schema as SDL. */
async function handleSchema(c: Ctx, ctx: ServerContext): Promise<Response> {
  const { derived } = await openSchema(c, ctx);
  return responseWithId(c, schemaSdl(derived), 200, { 'content-type': 'text/plain; charset=utf-8' });
}

const HEADERS = [
  { name: 'Ledgraph-Min-T', type: 'integer' as const, description: 'Wait until the ledger has reached this t' },
  ...POLICY_HEADERS,
];
const CONTEXT_PARAM = { name: 'context', description: 'JSON-LD context (inline JSON) whose terms and prefixes name types and fields and compact ids' };

/** Register the GraphQL endpoints. */
export const graphqlRoutes: Registrar = (api, ctx) => {
  const responses = { 200: 'GraphQL response (errors inside)', 400: 'Malformed request envelope', 404: 'Ledger not found', 415: 'Unsupported Content-Type' };
  route(api, ctx.table, {
    method: 'POST', path: '/graphql/{ledger}', tag: 'graphql', summary: 'Run a GraphQL document against the ledger\'s derived schema',
    query: [{ name: 'explain', type: 'boolean', description: 'Add extensions.explain' }, CONTEXT_PARAM], headers: HEADERS,
    requestTypes: ['application/json', 'application/graphql'], responseTypes: ['application/json'], responses,
  }, (c) => handleGraphQL(c, ctx));
  route(api, ctx.table, {
    method: 'GET', path: '/graphql/{ledger}', tag: 'graphql', summary: 'Run a GraphQL query given as ?query= (no mutations)',
    query: [{ name: 'query', description: 'GraphQL document' }, { name: 'variables', description: 'Variables (URL-encoded JSON)' },
      { name: 'operationName', description: 'Operation to run' }, { name: 'explain', type: 'boolean', description: 'Add extensions.explain' }, CONTEXT_PARAM],
    headers: HEADERS, responseTypes: ['application/json'], responses,
  }, (c) => handleGraphQL(c, ctx));
  route(api, ctx.table, {
    method: 'GET', path: '/graphql-schema/{ledger}', tag: 'graphql', summary: 'The caller\'s derived GraphQL schema as SDL',
    query: [CONTEXT_PARAM], headers: HEADERS, responseTypes: ['text/plain'], responses: { 200: 'SDL', 404: 'Ledger not found' },
  }, (c) => handleSchema(c, ctx));
};
