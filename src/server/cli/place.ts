/**
 * What a replication command works on: a ledger location (a server, places.ts, or a storage
 * directory, dir-place.ts) with the same operations on both, and the frame plumbing they share.
 */
import { IMPORT_MAX_FRAME_BYTES, NETWORK_MAX_FRAME_BYTES, type NameserviceManifest, type PackHeader } from '../../core/pack/frames.js';
import { readPack, type PackFrame } from '../../core/pack/reader.js';
import type { RestoreResult } from '../../core/pack/restore.js';
import type { CommitBatch, PushResult, RemoteHeads } from '../replication/remote-client.js';

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
  /** The ledger as `.flpack` archive bytes; `watch` sees the Header and each object as it is written. */
  archive(ledger: string, includeIndexes: boolean, watch?: FrameWatcher): Promise<AsyncIterable<Uint8Array>>;
  /** Restore a ledger from verified frames; `trailer` names the heads when the frames carry none. */
  restore(ledger: string, frames: AsyncIterable<PackFrame>, trailer: NameserviceManifest | null, watch: FrameWatcher): Promise<RestoreResult>;
  /** The ledger's stored default context, or null. */
  context(ledger: string): Promise<unknown>;
  /** Replace the ledger's stored default context (clone and pull carry it). */
  setContext(ledger: string, context: unknown): Promise<void>;
  /** Store a batch's objects without moving any head (`fetch` into a storage directory). */
  storeObjects?(ledger: string, batch: CommitBatch): Promise<number>;
  close(): Promise<void>;
}

/** Parse a server's pack into verified frames. */
export function verified(bytes: AsyncIterable<Uint8Array>, archive = false): AsyncIterable<PackFrame> {
  return readPack(bytes, { maxFrameBytes: archive ? IMPORT_MAX_FRAME_BYTES : NETWORK_MAX_FRAME_BYTES, archive });
}

/** What a command learns while frames pass (progress): the Header, then each object's size. */
export interface FrameWatcher {
  header(h: PackHeader): void;
  object(bytes: number): void;
}

/** Reports frames to `watch` as they pass. */
export async function* counted(frames: AsyncIterable<PackFrame>, watch: FrameWatcher): AsyncGenerator<PackFrame> {
  for await (const f of frames) {
    if (f.type === 'data') watch.object(f.bytes.length);
    else if (f.type === 'header') watch.header(f.header);
    yield f;
  }
}
