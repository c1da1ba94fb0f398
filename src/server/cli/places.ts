/**
 * Where the replication commands read and write a ledger: a server (a named remote or a URL, over
 * the HTTP endpoints) or a local storage directory (the engine directly, safe beside a server on
 * the same directory, in dir-place.ts). Both offer the same operations, so each command is written once.
 */
import { notFound } from '../../core/errors.js';
import { normalizeLedgerId, splitLedgerId } from '../../core/ledger/ledger-id.js';
import { branchCommand, remoteForkPoint } from '../replication/branch-client.js';
import type { NameserviceManifest } from '../../core/pack/frames.js';
import type { PackFrame } from '../../core/pack/reader.js';
import type { RestoreResult } from '../../core/pack/restore.js';
import { reframe } from '../../core/pack/writer.js';
import {
  discoverApi, fetchCommitsSince, fetchPack, postArchive, pushCommits, putRemoteContext, remoteContext, remoteHeads,
  type CommitBatch, type RemoteHeads, type RemoteTarget,
} from '../replication/remote-client.js';
import { counted, verified, type FrameWatcher, type Place } from './place.js';
import { loadRemotes, readSecret } from './remotes.js';

export type { Place } from './place.js';

class ServerPlace implements Place {
  constructor(readonly name: string, private readonly r: RemoteTarget) {}
  heads(ledger: string) { return remoteHeads(this.r, ledger); }
  context(ledger: string) { return remoteContext(this.r, ledger); }
  setContext(ledger: string, context: unknown) { return putRemoteContext(this.r, ledger, context); }
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
  async archive(ledger: string, includeIndexes: boolean, watch?: FrameWatcher): Promise<AsyncIterable<Uint8Array>> {
    const h = await this.heads(ledger);
    if (!h) throw notFound(`ledger ${ledger} not found on remote ${this.name}`);
    const id = normalizeLedgerId(ledger);
    const [name, branch] = [id.slice(0, id.lastIndexOf(':')), id.slice(id.lastIndexOf(':') + 1)];
    const withIndex = includeIndexes && !!h.indexId;
    const frames = await this.packFrames(ledger, withIndex ? h : { ...h, indexId: null });
    return reframe(watch ? counted(frames, watch) : frames, {
      phase: 'nameservice', ledger_id: id, name, branch, commit_head_id: h.commitId, commit_t: h.t,
      index_head_id: withIndex ? h.indexId : null, index_t: withIndex ? h.indexT : 0,
    });
  }
  async restore(ledger: string, frames: AsyncIterable<PackFrame>, trailer: NameserviceManifest | null, watch: FrameWatcher): Promise<RestoreResult> {
    return (await postArchive(this.r, ledger, reframe(counted(frames, watch), trailer))) as unknown as RestoreResult;
  }
  async close(): Promise<void> { /* nothing held */ }
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
export async function dirPlace(dir: string): Promise<Place> {
  // Loaded on demand: the engine is not needed (nor its start-up time paid) when both sides are servers.
  const { openDirPlace } = await import('./dir-place.js');
  return openDirPlace(dir);
}

/** `--to`/`--from` a server, else `--storage-path` (default ./data). */
export async function localPlace(server: string | undefined, storagePath: string | undefined, s: PlaceSettings): Promise<Place> {
  return server ? serverPlace(server, s) : dirPlace(storagePath ?? './data');
}

