/**
 * `POST /pack/<ledger>` (http-api.md §2.10, §4.3; replication.md §8): the request is checked and the
 * stream planned before the response starts (400/404); the frames are then pulled from
 * core/pack/writer.ts one object at a time as the client reads (back-pressure; never buffered
 * whole). Storage-claim auth and the 404 with the proxy disabled come from the auth middleware; a
 * ledger with `f:serveBlocks false` answers 404 like an unknown one.
 */
import { normalizeLedgerId } from '../../core/ledger/ledger-id.js';
import { NETWORK_MAX_FRAME_BYTES, PACK_CONTENT_TYPE } from '../../core/pack/frames.js';
import { packFrames, parsePackRequest, planPack } from '../../core/pack/writer.js';
import { readJson, pathLedger } from '../http-util.js';
import type { Registrar } from '../server-context.js';
import { requireBlocksServed } from '../storage-proxy/serving.js';
import { route } from '../swagger.js';

/** A pull-driven byte stream over an async generator: the next frame is produced only when asked for. */
export function pullStream(gen: AsyncGenerator<Uint8Array>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(ctl) {
      const r = await gen.next();
      if (r.done) ctl.close(); else ctl.enqueue(r.value);
    },
    async cancel() { await gen.return(undefined); },
  }, { highWaterMark: 0 });
}

/** Registers POST /pack. */
export const packRoutes: Registrar = (api, ctx) => {
  route(api, ctx.table, {
    method: 'POST', path: '/pack/{ledger}', tag: 'replication', summary: 'Missing commits, transaction blobs and index objects as one binary stream',
    requestTypes: ['application/json'], responseTypes: [PACK_CONTENT_TYPE],
    responses: {
      200: 'ledgraph-pack-v1 stream (failures after the first byte travel as an Error frame)',
      400: 'Bad protocol, empty want, or include_indexes without want_index_root_id',
      401: 'Missing or invalid storage token', 404: 'Storage proxy disabled, not authorized, unknown ledger, f:serveBlocks false, or a want that is not a commit of it',
    },
  }, async (c) => {
    const ledger = await ctx.conn.ledger(normalizeLedgerId(pathLedger(c)));
    await requireBlocksServed(ledger);
    const req = parsePackRequest((await readJson(c)).json);
    const plan = await planPack(ledger.store, req);
    const body = pullStream(packFrames(ledger.store, plan, { maxFrameBytes: NETWORK_MAX_FRAME_BYTES }));
    return new Response(body, { status: 200, headers: { 'Content-Type': PACK_CONTENT_TYPE, 'X-Request-ID': c.get('requestId') } });
  });
};
