/**
 * Where the replication commands read and write a ledger: a server (a named remote or a URL, over
 * the HTTP endpoints) or a local storage directory (the engine directly, safe beside a server on
 * the same directory). Both offer the same operations, so each command is written once.
 */
import { CID } from 'multiformats/cid';
import { Codec, cidOf } from '../../core/commit/cid.js';
import { commitPage } from '../../core/commit/export-page.js';
import { notFound } from '../../core/errors.js';
import { Connection } from '../../core/ledger/connection.js';
import { normalizeLedgerId, splitLedgerId } from '../../core/ledger/ledger-id.js';
import { createBranch } from '../../core/branch/fork.js';
import { branchCommand, remoteForkPoint } from '../replication/branch-client.js';
import { IMPORT_MAX_FRAME_BYTES, NETWORK_MAX_FRAME_BYTES, type NameserviceManifest } from '../../core/pack/frames.js';
import { readPack, type PackFrame } from '../../core/pack/reader.js';
import { restoreLedger, type RestoreResult } from '../../core/pack/restore.js';
import { packFrames, planArchive, reframe } from '../../core/pack/writer.js';
import { receiveCommits } from '../../core/transact/receive.js';
import { openFileStorage } from '../../storage/index.js';
import {
  collectCommitsSince, discoverApi, fetchCommitsSince, fetchPack, postArchive, pushCommits, remoteHeads,
  type CommitBatch, type PushResult, type RemoteHeads, type RemoteTarget,
} from '../replication/remote-client.js';
import { loadRemotes, readSecret } from './remotes.js';

/** A ledger location the commands work on. */
export interface Place {
  /** For messages: the remote name, URL or directory. */
  readonly name: string;
  heads(ledger: string): Promise<RemoteHeads | null>;
  /** Commits above `base` (lineage mode, oldest first). */
  commitsSince(ledger: string, base: string | null): Promise<CommitBatch>;
  /** Apply commits that continue the ledger's head (push). */
  apply(ledger: string, batch: CommitBatch, idempotencyKey?: string): Promise<PushResult>;
  /** Where a branch forked (its source and their common ancestor); null for a root or missing branch. */
  forkPoint(ledger: string): Promise<{ source: string; commitId: string } | null>;
  /** Create a branch at a commit of its source (push or pull of a branch this side lacks). */
  createBranch(ledger: string, source: string, at: string): Promise<void>;
  /** The ledger as verified pack frames with its indexes (clone source). */
  packFrames(ledger: string, heads: RemoteHeads): Promise<AsyncIterable<PackFrame>>;
  /** The ledger as `.flpack` archive bytes. */
  archive(ledger: string, includeIndexes: boolean): Promise<AsyncIterable<Uint8Array>>;
  /** Restore a ledger from verified frames; `trailer` names the heads when the frames carry none. */
  restore(ledger: string, frames: AsyncIterable<PackFrame>, trailer: NameserviceManifest | null, onObject: (bytes: number) => void): Promise<RestoreResult>;
  close(): Promise<void>;
}

/** Parse a server's pack into verified frames. */
function verified(bytes: AsyncIterable<Uint8Array>, archive = false): AsyncIterable<PackFrame> {
  return readPack(bytes, { maxFrameBytes: archive ? IMPORT_MAX_FRAME_BYTES : NETWORK_MAX_FRAME_BYTES, archive });
}

/** Counts objects as frames pass. */
async function* counted(frames: AsyncIterable<PackFrame>, onObject: (bytes: number) => void): AsyncGenerator<PackFrame> {
  for await (const f of frames) {
    if (f.type === 'data') onObject(f.bytes.length);
    yield f;
  }
}

class ServerPlace implements Place {
  constructor(readonly name: string, private readonly r: RemoteTarget) {}
  heads(ledger: string) { return remoteHeads(this.r, ledger); }
  commitsSince(ledger: string, base: string | null) { return fetchCommitsSince(this.r, ledger, base); }
  apply(ledger: string, batch: CommitBatch, key?: string) { return pushCommits(this.r, ledger, batch, key); }
  forkPoint(ledger: string) { const { name, branch } = splitLedgerId(ledger); return remoteForkPoint(this.r, name, branch); }
  async createBranch(ledger: string, source: string, at: string): Promise<void> {
    const { name, branch } = splitLedgerId(ledger);
    await branchCommand(this.r, '/branch', { ledger: name, branch, source, at }, 'creating branch');
  }
  async packFrames(ledger: string, h: RemoteHeads): Promise<AsyncIterable<PackFrame>> {
    const body = await fetchPack(this.r, ledger, h.indexId
      ? { want: [h.commitId], have: [], include_indexes: true, want_index_root_id: h.indexId }
      : { want: [h.commitId], have: [], include_indexes: false });
    return verified(body);
  }
  async archive(ledger: string, includeIndexes: boolean): Promise<AsyncIterable<Uint8Array>> {
    const h = await this.heads(ledger);
    if (!h) throw notFound(`ledger ${ledger} not found on remote ${this.name}`);
    const id = normalizeLedgerId(ledger);
    const [name, branch] = [id.slice(0, id.lastIndexOf(':')), id.slice(id.lastIndexOf(':') + 1)];
    const withIndex = includeIndexes && !!h.indexId;
    const frames = await this.packFrames(ledger, withIndex ? h : { ...h, indexId: null });
    return reframe(frames, {
      phase: 'nameservice', ledger_id: id, name, branch, commit_head_id: h.commitId, commit_t: h.t,
      index_head_id: withIndex ? h.indexId : null, index_t: withIndex ? h.indexT : 0,
    });
  }
  async restore(ledger: string, frames: AsyncIterable<PackFrame>, trailer: NameserviceManifest | null, onObject: (bytes: number) => void): Promise<RestoreResult> {
    return (await postArchive(this.r, ledger, reframe(counted(frames, onObject), trailer))) as unknown as RestoreResult;
  }
  async close(): Promise<void> { /* nothing held */ }
}

class DirPlace implements Place {
  constructor(readonly name: string, private readonly conn: Connection) {}
  async heads(ledger: string): Promise<RemoteHeads | null> {
    const r = await this.conn.ns.get(normalizeLedgerId(ledger));
    if (!r || r.retracted || !r.commit_head_id) return null;
    return { t: r.commit_t, commitId: r.commit_head_id, indexId: r.index_head_id, indexT: r.index_t };
  }
  async commitsSince(ledger: string, base: string | null): Promise<CommitBatch> {
    const l = await this.conn.ledger(ledger);
    return collectCommitsSince(async (cursor) => {
      const p = await commitPage(l, { limit: 500, lineage: true, cursor: cursor ?? undefined, base: base ?? undefined });
      return { ...p, merged_commits: p.merged_commits ?? [] };
    });
  }
  async apply(ledger: string, batch: CommitBatch): Promise<PushResult> {
    return receiveCommits(this.conn, await this.conn.ledger(ledger), batch, undefined);
  }
  async forkPoint(ledger: string): Promise<{ source: string; commitId: string } | null> {
    const r = await this.conn.ns.get(normalizeLedgerId(ledger));
    if (!r || r.retracted || r.source_branch === undefined) return null;
    const src = await this.conn.ledger(`${r.name}:${r.source_branch}`);
    const a = await this.conn.graph.commonAncestor(r.commit_head_id!, src.head.cid);
    return a ? { source: r.source_branch, commitId: a.cid } : null;
  }
  async createBranch(ledger: string, source: string, at: string): Promise<void> {
    const { name, branch } = splitLedgerId(ledger);
    await createBranch(this.conn, name, branch, source, at);
  }
  async packFrames(ledger: string): Promise<AsyncIterable<PackFrame>> {
    return verified(await this.archive(ledger, true), true);
  }
  async archive(ledger: string, includeIndexes: boolean): Promise<AsyncIterable<Uint8Array>> {
    const record = await this.conn.ns.get(normalizeLedgerId(ledger));
    if (!record || record.retracted) throw notFound(`ledger ${ledger} not found in ${this.name}`);
    const { plan, trailer } = await planArchive(this.conn.content, record, includeIndexes);
    return packFrames(this.conn.content, plan, { maxFrameBytes: IMPORT_MAX_FRAME_BYTES, trailer });
  }
  restore(ledger: string, frames: AsyncIterable<PackFrame>, trailer: NameserviceManifest | null, onObject: (bytes: number) => void): Promise<RestoreResult> {
    return restoreLedger(this.conn, ledger, counted(frames, onObject), trailer ? { heads: trailer } : {});
  }
  /** Store objects without moving any head (fetch). */
  async storeObjects(batch: CommitBatch): Promise<number> {
    let n = 0;
    for (const bytes of [...batch.merged, ...batch.commits]) {
      const cid = await cidOf(Codec.commit, bytes);
      if (!(await this.conn.content.has(cid))) { await this.conn.content.putWithCid(cid, bytes); n++; }
    }
    for (const [k, v] of batch.blobs) {
      const cid = CID.parse(k);
      if (!(await this.conn.content.has(cid))) await this.conn.content.putWithCid(cid, v);
    }
    return n;
  }
  close(): Promise<void> { return this.conn.close(); }
}

/** Settings the commands resolve places with. */
export interface PlaceSettings { remotesFile: string; token?: string | undefined }

/** The HTTP target of a remote name or an http(s) URL (its API base discovered). */
export async function serverTarget(spec: string, s: PlaceSettings): Promise<RemoteTarget> {
  const remotes = loadRemotes(s.remotesFile).remotes;
  const entry = remotes[spec];
  const url = entry ? entry.url : /^https?:\/\//.test(spec) ? spec : null;
  if (!url) throw notFound(`no remote named ${spec} (ledgraph remote add ${spec} <url>)`);
  const token = s.token ? readSecret(s.token) : entry?.token ?? null;
  return { name: entry ? spec : url, api: await discoverApi(url), token };
}

/** A server place from a remote name or an http(s) URL. */
export async function serverPlace(spec: string, s: PlaceSettings): Promise<Place> {
  const r = await serverTarget(spec, s);
  return new ServerPlace(r.name, r);
}

/** A local storage directory (indexing runs in the background as for a server; close() waits for it). */
export async function dirPlace(dir: string): Promise<DirPlace> {
  return new DirPlace(dir, new Connection(await openFileStorage(dir), { reindexMaxBytes: Number.MAX_SAFE_INTEGER }));
}

/** `--to`/`--from` a server, else `--storage-path` (default ./data). */
export async function localPlace(server: string | undefined, storagePath: string | undefined, s: PlaceSettings): Promise<Place> {
  return server ? serverPlace(server, s) : dirPlace(storagePath ?? './data');
}

export { DirPlace };
