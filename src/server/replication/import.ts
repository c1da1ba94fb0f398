/**
 * `POST /import/<ledger>` (http-api.md §4.3, replication.md §9): a `.flpack` archive restored under
 * the path's name, decoded frame by frame from the request body as it arrives (Data frames up to
 * 1 GiB; the server body limit does not apply to this route), every frame verified, with complete
 * rollback on failure. Response 201 {ledger, t, commit_id, index_id, objects, bytes} (decided).
 */
import { badRequest, unsupportedMediaType } from '../../core/errors.js';
import { IMPORT_MAX_FRAME_BYTES, PACK_CONTENT_TYPE } from '../../core/pack/frames.js';
import { readPack } from '../../core/pack/reader.js';
import { restoreLedger } from '../../core/pack/restore.js';
import { parseMediaType, pathLedger } from '../http-util.js';
import type { Registrar } from '../server-context.js';
import { route } from '../swagger.js';

const TYPES = [PACK_CONTENT_TYPE, 'application/octet-stream'];

/** Registers POST /import. */
export const importRoutes: Registrar = (api, ctx) => {
  route(api, ctx.table, {
    method: 'POST', path: '/import/{ledger}', tag: 'replication', summary: 'Restore a .flpack archive as a new ledger',
    requestTypes: TYPES,
    responses: {
      201: 'Restored {ledger, t, commit_id, index_id, objects, bytes}',
      400: 'Not a pack stream, bad frame, or truncated', 409: 'The ledger exists', 413: 'A frame above 1 GiB',
      422: 'A frame whose bytes do not match its CID, or heads missing from the archive',
    },
  }, async (c) => {
    const id = pathLedger(c);
    const mt = parseMediaType(c.req.header('Content-Type'));
    if (!mt || !TYPES.includes(mt.type)) throw unsupportedMediaType(`import takes ${TYPES.join(' or ')}`);
    const body = c.req.raw.body;
    if (!body) throw badRequest('import needs the archive as the request body');
    const frames = readPack(body as unknown as AsyncIterable<Uint8Array>, { maxFrameBytes: IMPORT_MAX_FRAME_BYTES, archive: true });
    const res = await ctx.admission.run(() => restoreLedger(ctx.conn, id, frames));
    return c.json(res, 201);
  });
};
