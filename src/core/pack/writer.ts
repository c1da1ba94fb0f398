/**
 * Pack stream writer (replication.md §8) and `.flpack` archive writer (§9). Planning walks the
 * commits from `want` back to `have` (or genesis) and lists the index objects to send; the frames
 * are then produced one object at a time as the consumer pulls, so a stream is never held whole.
 * A failure after the preamble travels as an Error frame followed by End.
 */
import { CID } from 'multiformats/cid';
import { Codec } from '../commit/cid.js';
import { decodeEnvelope } from '../commit/commit-codec.js';
import { badRequest, isLedgraphError, notFound, storageError } from '../errors.js';
import { indexArtifacts } from '../index/artifacts.js';
import type { ContentStore, NsRecord } from '../store.js';
import {
  dataFramePrefix, endFrame, errorFrame, ESTIMATED_BYTES_PER_COMMIT, headerFrame, manifestFrame, PACK_PROTOCOL, preamble,
  type IndexesManifest, type NameserviceManifest, type PackHeader,
} from './frames.js';
import type { PackFrame } from './reader.js';

/** A pack request (http-api.md §2.10), validated. */
export interface PackRequest {
  want: string[];
  have: string[];
  includeTxns: boolean;
  includeIndexes: boolean;
  wantIndexRootId?: string | undefined;
  haveIndexRootId?: string | undefined;
}

/** What a stream will carry, decided before its first byte. */
export interface PackPlan {
  /** Commits oldest first (parents before children), each with its transaction blob CID. */
  commits: { id: string; txn: string | null }[];
  includeTxns: boolean;
  /** Index objects in send order (root last), when indexes are included. */
  index: { rootId: string; objects: string[] } | null;
}

function commitCid(s: unknown, what: string): CID {
  let c: CID;
  try { c = CID.parse(String(s)); } catch { throw badRequest(`${what}: "${String(s)}" is not a CID`); }
  return c;
}

/** Parse and check a pack request body (400s of §8). */
export function parsePackRequest(body: unknown): PackRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the pack request must be a JSON object');
  const b = body as Record<string, unknown>;
  if (b['protocol'] !== PACK_PROTOCOL) throw badRequest(`protocol must be "${PACK_PROTOCOL}"`);
  const list = (k: string): string[] => {
    const v = b[k];
    if (v === undefined) return [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw badRequest(`${k} must be an array of CID strings`);
    return v as string[];
  };
  const want = list('want');
  if (want.length === 0) throw badRequest('want must name at least one commit');
  const bool = (k: string, dflt: boolean): boolean => {
    const v = b[k];
    if (v === undefined) return dflt;
    if (typeof v !== 'boolean') throw badRequest(`${k} must be a boolean`);
    return v;
  };
  if (b['include_indexes'] === undefined) throw badRequest('include_indexes is required');
  const includeIndexes = bool('include_indexes', false);
  const str = (k: string): string | undefined => {
    const v = b[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') throw badRequest(`${k} must be a CID string`);
    return v;
  };
  const wantIndexRootId = str('want_index_root_id');
  if (includeIndexes && !wantIndexRootId) throw badRequest('want_index_root_id is required when include_indexes is true');
  return { want, have: list('have'), includeTxns: bool('include_txns', true), includeIndexes, wantIndexRootId, haveIndexRootId: str('have_index_root_id') };
}

/**
 * Plan a stream: the commits reachable from `want` and not from `have` (404 when a want is not a
 * stored commit), and the index objects of `wantIndexRootId` not under `haveIndexRootId`.
 */
export async function planPack(store: ContentStore, req: PackRequest): Promise<PackPlan> {
  const have = new Set(req.have);
  const envs = new Map<string, { parents: string[]; txn: string | null }>();
  for (const w of req.want) {
    const c = commitCid(w, 'want');
    if (c.code !== Codec.commit || !(await store.has(c))) throw notFound(`want ${w} is not a commit of this ledger`);
  }
  // Walk every parent until a have or genesis.
  const stack = req.want.filter((w) => !have.has(w));
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (envs.has(id) || have.has(id)) continue;
    const env = decodeEnvelope(await store.get(CID.parse(id)));
    const parents = env.parents.map(String);
    envs.set(id, { parents, txn: env.txn ? env.txn.toString() : null });
    for (const p of parents) if (!envs.has(p) && !have.has(p)) stack.push(p);
  }
  // Parents before children: iterative depth-first post-order.
  const commits: PackPlan['commits'] = [];
  const done = new Set<string>();
  for (const root of req.want) {
    const work: [string, boolean][] = [[root, false]];
    while (work.length > 0) {
      const [id, expanded] = work.pop()!;
      const e = envs.get(id);
      if (!e || done.has(id)) continue;
      if (expanded) { done.add(id); commits.push({ id, txn: e.txn }); continue; }
      work.push([id, true]);
      for (let i = e.parents.length - 1; i >= 0; i--) if (!done.has(e.parents[i]!)) work.push([e.parents[i]!, false]);
    }
  }
  let index: PackPlan['index'] = null;
  if (req.includeIndexes && req.wantIndexRootId) {
    const root = commitCid(req.wantIndexRootId, 'want_index_root_id');
    if (root.code !== Codec.indexRoot || !(await store.has(root))) throw notFound(`want_index_root_id ${req.wantIndexRootId} is not an index root of this ledger`);
    let skip = new Set<string>();
    if (req.haveIndexRootId) {
      const h = commitCid(req.haveIndexRootId, 'have_index_root_id');
      if (h.code === Codec.indexRoot && (await store.has(h))) {
        skip = new Set((await indexArtifacts(store, req.haveIndexRootId))!.objects);
      }
    }
    index = { rootId: req.wantIndexRootId, objects: (await indexArtifacts(store, req.wantIndexRootId, { skip }))!.objects };
  }
  return { commits, includeTxns: req.includeTxns, index };
}

/** The Header of a planned stream. */
export function packHeader(plan: PackPlan, maxFrameBytes: number): PackHeader {
  const h: PackHeader = {
    protocol: PACK_PROTOCOL,
    capabilities: ['commits', 'txns', ...(plan.index ? ['indexes'] : [])],
    commit_count: plan.commits.length,
    estimated_total_bytes: Math.round(plan.commits.length * ESTIMATED_BYTES_PER_COMMIT * (plan.index ? 2.1 : 1)),
    server_max_frame_bytes: maxFrameBytes,
  };
  if (plan.index) h.index_artifact_count = plan.index.objects.length;
  return h;
}

export interface FrameOptions {
  maxFrameBytes: number;
  /** An archive's nameservice Manifest, written before End. */
  trailer?: NameserviceManifest;
  /** Called with each object's size as its Data frame is produced (progress). */
  onObject?: ((bytes: number) => void) | undefined;
}

/** The frames of a planned stream, produced as they are pulled. */
export async function* packFrames(store: ContentStore, plan: PackPlan, opts: FrameOptions): AsyncGenerator<Uint8Array> {
  yield preamble();
  yield headerFrame(packHeader(plan, opts.maxFrameBytes));
  try {
    const sent = new Set<string>();
    for (const c of plan.commits) {
      yield* object(store, c.id, opts, false);
      if (plan.includeTxns && c.txn && !sent.has(c.txn)) {
        sent.add(c.txn);
        // A transaction blob the server cannot read is a provenance gap, not a failure (§4).
        yield* object(store, c.txn, opts, true);
      }
    }
    if (plan.index) {
      yield manifestFrame({ phase: 'indexes', root_id: plan.index.rootId, artifact_count: plan.index.objects.length });
      for (const id of plan.index.objects) yield* object(store, id, opts, false);
    }
    if (opts.trailer) yield manifestFrame(opts.trailer);
  } catch (e) {
    yield errorFrame(isLedgraphError(e) ? e.message : 'internal error while writing the pack stream');
  }
  yield endFrame();
}

async function* object(store: ContentStore, id: string, opts: FrameOptions, optional: boolean): AsyncGenerator<Uint8Array> {
  const max = opts.maxFrameBytes;
  const cid = CID.parse(id);
  let bytes: Uint8Array;
  try {
    bytes = await store.get(cid);
  } catch (e) {
    if (optional && isLedgraphError(e) && e.status === 404) return;
    throw e;
  }
  if (bytes.length > max) throw badRequest(`object ${id} (${bytes.length} bytes) is above the ${max}-byte frame limit`);
  opts.onObject?.(bytes.length);
  yield dataFramePrefix(cid, bytes.length);
  yield bytes;
}

/** The plan of a `.flpack` archive of a ledger at its current record (§9). */
export async function planArchive(store: ContentStore, record: NsRecord, includeIndexes: boolean): Promise<{ plan: PackPlan; trailer: NameserviceManifest }> {
  if (!record.commit_head_id) throw notFound(`ledger ${record.ledger_id} has no commits`);
  const withIndex = includeIndexes && !!record.index_head_id;
  const plan = await planPack(store, {
    want: [record.commit_head_id], have: [], includeTxns: true, includeIndexes: withIndex,
    wantIndexRootId: withIndex ? record.index_head_id! : undefined,
  });
  return {
    plan,
    trailer: {
      phase: 'nameservice', ledger_id: record.ledger_id, name: record.name, branch: record.branch,
      commit_head_id: record.commit_head_id, commit_t: record.commit_t,
      index_head_id: withIndex ? record.index_head_id : null, index_t: withIndex ? record.index_t : 0,
    },
  };
}

/**
 * Re-encode decoded (verified) frames as a stream again, with `trailer` (else the stream's own) as
 * the nameservice Manifest before End: turns a pack received from one server into an archive for
 * another. An Error frame fails; a stream without End is refused by the reader before it gets here.
 */
export async function* reframe(frames: AsyncIterable<PackFrame>, trailer: NameserviceManifest | null): AsyncGenerator<Uint8Array> {
  yield preamble();
  // An archive's own nameservice manifest passes through unless a trailer replaces it.
  let nameservice: NameserviceManifest | null = null;
  for await (const f of frames) {
    switch (f.type) {
      case 'header': yield headerFrame(f.header); break;
      case 'data': yield dataFramePrefix(f.cid, f.bytes.length); yield f.bytes; break;
      case 'manifest':
        if (f.manifest.phase === 'nameservice') nameservice = f.manifest as unknown as NameserviceManifest;
        else yield manifestFrame(f.manifest as unknown as IndexesManifest);
        break;
      case 'error': throw storageError(`the pack stream failed: ${f.message}`);
      case 'end': break;
    }
    if (f.type === 'end') break;
  }
  const last = trailer ?? nameservice;
  if (last) yield manifestFrame(last);
  yield endFrame();
}
