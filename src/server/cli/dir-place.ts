/**
 * A local storage directory as a replication place (see places.ts): the engine works on the files
 * directly, safely beside a server running on the same directory.
 */
import { CID } from 'multiformats/cid';
import { Codec, cidOf } from '../../core/commit/cid.js';
import { commitPage } from '../../core/commit/export-page.js';
import { notFound } from '../../core/errors.js';
import { Connection } from '../../core/ledger/connection.js';
import { normalizeLedgerId, splitLedgerId } from '../../core/ledger/ledger-id.js';
import { createBranch } from '../../core/branch/fork.js';
import { IMPORT_MAX_FRAME_BYTES, type NameserviceManifest } from '../../core/pack/frames.js';
import type { PackFrame } from '../../core/pack/reader.js';
import { restoreLedger, type RestoreResult } from '../../core/pack/restore.js';
import { packFrames, packHeader, planArchive } from '../../core/pack/writer.js';
import { receiveCommits } from '../../core/transact/receive.js';
import { openFileStorage } from '../../storage/index.js';
import { collectCommitsSince, type CommitBatch, type PushResult, type RemoteHeads } from '../replication/remote-client.js';
import { counted, verified, type FrameWatcher, type Place } from './place.js';

export class DirPlace implements Place {
  constructor(readonly name: string, private readonly conn: Connection) {}
  async heads(ledger: string): Promise<RemoteHeads | null> {
    const r = await this.conn.ns.get(normalizeLedgerId(ledger));
    if (!r || r.retracted || !r.commit_head_id) return null;
    return { t: r.commit_t, commitId: r.commit_head_id, indexId: r.index_head_id, indexT: r.index_t };
  }
  context(ledger: string): Promise<unknown> { return this.conn.defaultContext(ledger); }
  async setContext(ledger: string, context: unknown): Promise<void> { await this.conn.setDefaultContext(ledger, context); }
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
    const a = await this.conn.graphFor(r.ledger_id).commonAncestor(r.commit_head_id!, src.head.cid);
    return a ? { source: r.source_branch, commitId: a.cid } : null;
  }
  async createBranch(ledger: string, source: string, at: string): Promise<void> {
    const { name, branch } = splitLedgerId(ledger);
    await createBranch(this.conn, name, branch, source, at);
  }
  async packFrames(ledger: string): Promise<AsyncIterable<PackFrame>> {
    return verified(await this.archive(ledger, true), true);
  }
  async archive(ledger: string, includeIndexes: boolean, watch?: FrameWatcher): Promise<AsyncIterable<Uint8Array>> {
    const record = await this.conn.ns.get(normalizeLedgerId(ledger));
    if (!record || record.retracted) throw notFound(`ledger ${ledger} not found in ${this.name}`);
    const content = this.conn.contentFor(record.ledger_id);
    const { plan, trailer } = await planArchive(content, record, includeIndexes);
    watch?.header(packHeader(plan, IMPORT_MAX_FRAME_BYTES));
    return packFrames(content, plan, { maxFrameBytes: IMPORT_MAX_FRAME_BYTES, trailer, onObject: watch && ((n) => watch.object(n)) });
  }
  restore(ledger: string, frames: AsyncIterable<PackFrame>, trailer: NameserviceManifest | null, watch: FrameWatcher): Promise<RestoreResult> {
    return restoreLedger(this.conn, ledger, counted(frames, watch), trailer ? { heads: trailer } : {});
  }
  /** Store objects without moving any head (fetch). */
  async storeObjects(ledger: string, batch: CommitBatch): Promise<number> {
    const content = this.conn.contentFor(ledger);
    let n = 0;
    for (const bytes of [...batch.merged, ...batch.commits]) {
      const cid = await cidOf(Codec.commit, bytes);
      if (!(await content.has(cid))) { await content.putWithCid(cid, bytes); n++; }
    }
    for (const [k, v] of batch.blobs) {
      const cid = CID.parse(k);
      if (!(await content.has(cid))) await content.putWithCid(cid, v);
    }
    return n;
  }
  close(): Promise<void> { return this.conn.close(); }
}

/** Open a storage directory as a place. */
export async function openDirPlace(dir: string): Promise<DirPlace> {
  return new DirPlace(dir, new Connection(await openFileStorage(dir), { reindexMaxBytes: Number.MAX_SAFE_INTEGER }));
}
