/**
 * `POST /load/<ledger>` (docs/bulk-load.md): one RDF document streamed into a new or existing
 * ledger through the bulk path — parsed as it arrives, committed in chunks of flakes and indexed,
 * all published in one compare-and-set (nothing is loaded when anything fails). `Content-Encoding:
 * gzip` bodies are inflated as they arrive; --body-limit bounds the inflated bytes too.
 */
import { badRequest, payloadTooLarge } from '../../core/errors.js';
import type { BulkFormat } from '../../core/transact/bulk-sources.js';
import { pathLedger, requireMediaType } from '../http-util.js';
import { loadDocument, threadOptions } from '../load-threads.js';
import type { Registrar } from '../server-context.js';
import { route } from '../swagger.js';
import { baseParam, BASE_PARAM, writeLedgerId } from './write.js';

/** The formats `POST /load` takes, by media type. */
export const LOAD_TYPES: Record<string, BulkFormat> = {
  'application/n-triples': 'n-triples', 'application/n-quads': 'n-quads', 'text/turtle': 'turtle',
  'application/trig': 'trig', 'application/ld+json': 'json-ld', 'application/json': 'json-ld',
};

/** The request body as chunks, inflated when gzip-encoded, at most `max` bytes after inflating. */
async function* bodyChunks(body: ReadableStream<Uint8Array>, encoding: string | undefined, max: number): AsyncGenerator<Uint8Array> {
  const enc = (encoding ?? 'identity').trim().toLowerCase();
  if (enc !== 'identity' && enc !== 'gzip') throw badRequest(`unsupported Content-Encoding ${enc} (use gzip or none)`);
  const stream = enc === 'gzip' ? body.pipeThrough(new DecompressionStream('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>) : body;
  let seen = 0;
  try {
    for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
      seen += chunk.byteLength;
      if (seen > max) throw payloadTooLarge(`the inflated request body exceeds the body limit of ${max} bytes`);
      yield chunk;
    }
  } catch (e) {
    if (e instanceof TypeError && enc === 'gzip') throw badRequest(`the gzip body is corrupt: ${e.message}`);
    throw e;
  }
}

/** Registers POST /load/<ledger>. */
export const loadRoutes: Registrar = (api, ctx) => {
  route(api, ctx.table, {
    method: 'POST', path: '/load/{ledger}', tag: 'write', summary: 'Bulk-load one RDF document (all or nothing)',
    description: 'The bulk path of `ledgraph load`: the body is parsed while it arrives, committed in chunks of 100,000 flakes '
      + '(each its own t) and indexed, and published in one compare-and-set. Content-Encoding: gzip is accepted.',
    query: [BASE_PARAM, { name: 'commitFlakes', description: 'Flakes per commit (default 100000)' }], requestTypes: Object.keys(LOAD_TYPES),
    responses: {
      200: 'Loaded {ledger_id, previous_t, t, statements, triples, commits, commit_id, index_id}',
      400: 'Syntax error (with line and column), empty input, bad encoding', 404: 'Ledger not found',
      409: 'The ledger changed during the load (nothing was loaded)', 413: 'Body over --body-limit (inflated bytes count)',
      415: 'Unsupported Content-Type', 503: 'Too many writes in flight',
    },
  }, async (c) => {
    const id = writeLedgerId(pathLedger(c));
    const format = LOAD_TYPES[requireMediaType(c, Object.keys(LOAD_TYPES), 'load')]!;
    const base = baseParam(c);
    const cf = c.req.query('commitFlakes');
    const commitFlakes = cf === undefined ? undefined : Number(cf);
    if (commitFlakes !== undefined && !(Number.isInteger(commitFlakes) && commitFlakes > 0)) throw badRequest('commitFlakes must be a positive integer');
    const body = c.req.raw.body;
    if (!body) throw badRequest('load needs the document as the request body');
    if (!(await ctx.conn.exists(id))) await ctx.conn.ledger(id); // 404 before reading the body
    const source = bodyChunks(body, c.req.header('Content-Encoding'), ctx.config.bodyLimit);
    const res = await ctx.admission.run(() => ctx.conn.bulkLoad(id, [loadDocument(source, format, base)], { ...threadOptions(), ...(commitFlakes ? { commitFlakes } : {}) }));
    c.get('log').info('bulk load', { ledger: id, t: res.t, triples: res.triples, commits: res.commits });
    return c.json(res);
  });
};

