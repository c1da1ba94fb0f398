/**
 * The storage proxy (http-api.md §4.10, replication.md §11, auth.md §§6–7): read access to a
 * ledger's nameservice record and content-addressed objects for tokens with storage claims, so
 * peers can follow a transaction server without sharing its storage. Off unless
 * `--storage-proxy-enabled`; every failure the auth layer sees (disabled, no/bad token, no scope) is
 * a 404, and so is every object outside the named ledger or switched off with `f:serveBlocks false`.
 *
 *   GET  /storage/ns/<ledger>              record + `serving`
 *   GET  /storage/objects/{cid}?ledger=    raw bytes, verified, immutable, single Range → 206
 *   POST /storage/block {cid, ledger}      raw bytes, or a leaf as policy-filtered flakes
 *   (GET /storage/credentials is storage-credentials.ts)
 */
import type { Context } from 'hono';
import { Codec, parseCid, type CID } from '../../core/commit/cid.js';
import { badRequest, isLedgraphError, LedgraphError, notFound, storageError } from '../../core/errors.js';
import { decodeLeaf } from '../../core/index/leaf-codec.js';
import { normalizeLedgerId } from '../../core/ledger/ledger-id.js';
import type { Ledger } from '../../core/ledger/ledger.js';
import { termFilter, type PolicyInputs } from '../../core/policy/index.js';
import { encodeFlakes, FLAKES_JSON_MEDIA_TYPE, FLAKES_MEDIA_TYPE, type WireFlake } from '../../core/proxy/flakes-codec.js';
import { appendRunFlakes, type FactFilter } from '../../core/proxy/leaf-flakes.js';
import type { NsRecord } from '../../core/store.js';
import { responseWithId, type AppEnv } from '../app.js';
import { authenticate } from '../auth/index.js';
import { bodyString, pathLedger, readJson } from '../http-util.js';
import { chooseMediaType } from '../negotiate.js';
import type { Registrar, ServerContext } from '../server-context.js';
import { LedgerObjects } from '../storage-proxy/ledger-objects.js';
import { chooseRange } from '../storage-proxy/range.js';
import { requireBlocksServed, servingTiers } from '../storage-proxy/serving.js';
import { route } from '../swagger.js';

type Ctx = Context<AppEnv>;

const OCTET = 'application/octet-stream';
const IMMUTABLE = 'public, max-age=31536000, immutable';
const NOT_FOUND = 'Ledger not found';
/** Kinds the proxy serves; garbage-collection records (and anything unknown) are refused. */
const SERVED_CODECS = new Set<number>([
  Codec.commit, Codec.txn, Codec.indexRoot, Codec.indexBranch, Codec.indexLeaf, Codec.dict, Codec.ledgerConfig, Codec.defaultContext, Codec.indexSummary,
]);

/** Kind names of replication.md §1, for the debug header. */
const KIND_NAMES: Record<number, string> = {
  [Codec.commit]: 'commit', [Codec.txn]: 'txn', [Codec.indexRoot]: 'index-root', [Codec.indexBranch]: 'index-branch',
  [Codec.indexLeaf]: 'index-leaf', [Codec.dict]: 'dict', [Codec.ledgerConfig]: 'ledger-config', [Codec.defaultContext]: 'default-context',
  [Codec.indexSummary]: 'index-summary',
};

/** The `serving` array of a record. */
function servingArray(t: { query: boolean; blocks: boolean }): string[] {
  return [...(t.query ? ['query'] : []), ...(t.blocks ? ['blocks'] : [])];
}

/** Registers the storage proxy routes (transaction role). */
export const storageRoutes: Registrar = (api, ctx) => {
  if (ctx.config.role === 'peer') return;
  const objects = new LedgerObjects((id) => ctx.conn.contentFor(id));

  /** The live record and loaded ledger, or 404 (also when the proxy is off: the auth layer already says so). */
  const open = async (rawId: string | undefined): Promise<{ record: NsRecord; ledger: Ledger }> => {
    if (!ctx.config.storageProxyEnabled) throw notFound(NOT_FOUND);
    if (!rawId || !rawId.trim()) throw badRequest('missing ledger: give ?ledger=<name:branch> (or "ledger" in the body)');
    const id = normalizeLedgerId(rawId.trim());
    // Read the nameservice itself, not a cache: peers call this to catch up with other processes' writes.
    const record = await ctx.conn.ns.get(id);
    if (!record || record.retracted) throw notFound(NOT_FOUND);
    return { record, ledger: await ctx.conn.ledger(id) };
  };

  /** The verified bytes of an object the ledger owns (404 otherwise; 502 when the stored bytes fail verification). */
  const ownedObject = async (rawId: string | undefined, cidText: string): Promise<{ record: NsRecord; ledger: Ledger; cid: CID; bytes: Uint8Array }> => {
    const { record, ledger } = await open(rawId);
    const cid = parseCid(cidText);
    await requireBlocksServed(ledger);
    if (!SERVED_CODECS.has(cid.code) || !(await objects.has(record, cid.toString()))) {
      throw notFound(`object ${cid.toString()} not found in ledger ${record.ledger_id}`);
    }
    return { record, ledger, cid, bytes: await readVerified(ctx, ledger, cid) };
  };

  route(api, ctx.table, {
    method: 'GET', path: '/storage/ns/{ledger}', tag: 'storage-proxy', summary: 'Nameservice record with serving tiers',
    description: 'Storage-claim token required; every failure is 404. Read from the nameservice itself (no cache).',
    headers: [{ name: 'Authorization', description: 'Bearer token with ledgraph.storage.* claims', required: true }],
    responses: { 200: 'Record of replication.md §5 with serving', 404: 'Proxy disabled, no or bad token, out of scope, or no such ledger' },
  }, async (c) => {
    const { record, ledger } = await open(pathLedger(c));
    const tiers = await servingTiers(await ledger.db(), true);
    return c.json({ ...record, serving: servingArray(tiers) });
  });

  route(api, ctx.table, {
    method: 'GET', path: '/storage/objects/{cid}', tag: 'storage-proxy', summary: 'Raw object bytes, verified',
    description: 'Only objects reachable from the ledger\'s record. The bytes are hash-checked before the first byte is sent '
      + '(502 and nothing sent when they do not match). Cacheable forever; a single Range gives 206.',
    query: [{ name: 'ledger', required: true, description: 'Ledger id name:branch the object belongs to' }],
    headers: [
      { name: 'Authorization', description: 'Bearer token with ledgraph.storage.* claims', required: true },
      { name: 'Range', description: 'bytes=a-b, bytes=a- or bytes=-n' },
    ],
    responseTypes: [OCTET],
    responses: { 200: 'Object bytes', 206: 'The requested range', 400: 'Invalid CID or missing ledger', 404: 'Not served', 416: 'Range not satisfiable', 502: 'Stored bytes fail verification' },
    head: true,
  }, async (c) => {
    const { cid, bytes } = await ownedObject(c.req.query('ledger'), c.req.param('cid')!);
    const headers: Record<string, string> = {
      'content-type': OCTET, 'cache-control': IMMUTABLE, etag: `"${cid.toString()}"`, 'accept-ranges': 'bytes',
    };
    const r = chooseRange(c.req.header('Range'), bytes.length);
    if (r.kind === 'unsatisfiable') {
      throw new LedgraphError(416, 'err:db/BadRequest', `range not satisfiable: the object has ${bytes.length} bytes`,
        { headers: { 'Content-Range': `bytes */${bytes.length}` } });
    }
    if (r.kind === 'range') {
      headers['content-range'] = `bytes ${r.start}-${r.end}/${bytes.length}`;
      headers['content-length'] = String(r.end - r.start + 1);
      return responseWithId(c, body(bytes.subarray(r.start, r.end + 1)), 206, headers);
    }
    headers['content-length'] = String(bytes.length);
    return responseWithId(c, body(bytes), 200, headers);
  });

  route(api, ctx.table, {
    method: 'POST', path: '/storage/block', tag: 'storage-proxy', summary: 'One block: raw bytes, or a leaf as filtered flakes',
    description: 'Body {"cid", "ledger"}. An index leaf is always answered in the flake format (binary unless Accept picks +json), '
      + 'filtered by the token\'s ledgraph.identity (else --storage-proxy-default-identity) and --storage-proxy-default-policy-class; '
      + 'other blocks are raw bytes, and a flakes Accept for them is 406.',
    headers: [
      { name: 'Authorization', description: 'Bearer token with ledgraph.storage.* claims', required: true },
      { name: 'Accept', description: `${OCTET}, ${FLAKES_MEDIA_TYPE} or ${FLAKES_JSON_MEDIA_TYPE}` },
    ],
    requestTypes: ['application/json'],
    responseTypes: [OCTET, FLAKES_MEDIA_TYPE, FLAKES_JSON_MEDIA_TYPE],
    responses: { 200: 'Block bytes or flakes', 400: 'Bad body', 404: 'Not served', 406: 'Flakes asked for a non-leaf block', 502: 'Stored bytes fail verification' },
  }, async (c) => {
    const { json } = await readJson(c);
    const cidText = bodyString(json, 'cid');
    if (!cidText) throw badRequest('missing "cid"');
    const { ledger, cid, bytes } = await ownedObject(bodyString(json, 'ledger'), cidText);
    const accept = c.req.header('Accept');
    if (cid.code !== Codec.indexLeaf) {
      try {
        chooseMediaType(accept, [OCTET]);
      } catch {
        throw new LedgraphError(406, 'err:db/NotAcceptable', `flake formats are served for index leaves only; ${cid.toString()} is not one: retry with Accept: ${OCTET}`);
      }
      return responseWithId(c, body(bytes), 200, { 'content-type': OCTET, ...debugHeaders(ctx, KIND_NAMES[cid.code] ?? 'unknown', null) });
    }
    const type = chooseMediaType(accept, [FLAKES_MEDIA_TYPE, FLAKES_JSON_MEDIA_TYPE, OCTET]);
    const inputs = leafPolicy(c, ctx);
    const flakes = await leafFlakes(ctx, ledger, bytes, inputs);
    const headers = debugHeaders(ctx, 'index-leaf', inputs);
    if (type === FLAKES_JSON_MEDIA_TYPE) return responseWithId(c, JSON.stringify(flakes), 200, { 'content-type': FLAKES_JSON_MEDIA_TYPE, ...headers });
    return responseWithId(c, body(encodeFlakes(flakes)), 200, { 'content-type': FLAKES_MEDIA_TYPE, ...headers });
  });

};

/** Bytes as a response body (store reads may be views over a shared pool, which Response copies out). */
function body(b: Uint8Array): BodyInit {
  return b as Uint8Array<ArrayBuffer>;
}

/** Bytes of an object, verified by the store; errors rephrased so no storage path reaches the client. */
async function readVerified(ctx: ServerContext, ledger: Ledger, cid: CID): Promise<Uint8Array> {
  try {
    return await ctx.conn.contentFor(ledger.id).get(cid);
  } catch (e) {
    if (isLedgraphError(e) && e.status === 404) throw notFound(`object ${cid.toString()} not found`);
    if (isLedgraphError(e) && e.status === 502) throw storageError(`object ${cid.toString()} failed verification against its CID; not sent`);
    throw e;
  }
}

/** Leaf filtering inputs (auth.md §7): token identity, else the default identity, plus the default class. */
function leafPolicy(c: Ctx, ctx: ServerContext): PolicyInputs {
  const out: PolicyInputs = {};
  const identity = authenticate(c).bearer?.identity ?? ctx.config.storageProxyDefaultIdentity ?? undefined;
  if (identity) out.identity = identity;
  if (ctx.config.storageProxyDefaultPolicyClass) out.policyClass = [ctx.config.storageProxyDefaultPolicyClass];
  return out;
}

/** The leaf's current rows, then its history's events, each kept when the policy lets the caller view it. */
async function leafFlakes(ctx: ServerContext, ledger: Ledger, bytes: Uint8Array, inputs: PolicyInputs): Promise<WireFlake[]> {
  const leaf = decodeLeaf(bytes);
  const filter = await termFilter(ctx.conn, await ledger.db(), inputs);
  const visible: FactFilter = filter ? (s, p, o) => filter.visible(s, p, o) : null;
  const tables = { dict: ledger.dict, ns: ledger.ns, graphs: ledger.graphs };
  const out: WireFlake[] = [];
  await appendRunFlakes(leaf.run, tables, visible, out);
  if (leaf.history) await appendRunFlakes(decodeLeaf(await readVerified(ctx, ledger, leaf.history)).run, tables, visible, out);
  return out;
}

/** `--storage-proxy-debug-headers`: what was served and whether policy applied. */
function debugHeaders(ctx: ServerContext, type: string, inputs: PolicyInputs | null): Record<string, string> {
  if (!ctx.config.storageProxyDebugHeaders) return {};
  if (type !== 'index-leaf') return { 'ledgraph-block-type': type };
  const root = !inputs || (inputs.identity === undefined && !inputs.policyClass?.length);
  return { 'ledgraph-block-type': 'index-leaf', 'ledgraph-policy-applied': root ? 'root' : 'filtered' };
}
