/**
 * `.flpack` restore (replication.md §9) and pack ingest: a new ledger from a verified frame stream.
 * The record is created first (hidden, so a second restore of the same name is a 409), objects are
 * stored as their frames arrive (already verified by the reader), the nameservice manifest's heads
 * must have been in the stream, an index root naming another ledger is re-stamped under the new
 * name, and only then is the record published. Any failure deletes what this restore created —
 * objects that were not stored before and the record — so nothing is left behind.
 */
import { CID } from 'multiformats/cid';
import { Codec } from '../commit/cid.js';
import { decodeEnvelope } from '../commit/commit-codec.js';
import { constraintViolation, internalError, ledgerExists } from '../errors.js';
import { canonicalJsonBytes, parseJsonNode, type IndexRoot } from '../index/root-codec.js';
import { normalizeLedgerId, splitLedgerId } from '../ledger/ledger-id.js';
import type { LedgerStores } from '../ledger/stores.js';
import type { NsRecord } from '../store.js';
import type { NameserviceManifest } from './frames.js';
import type { PackFrame } from './reader.js';

/** The import response (decided, §9). */
export interface RestoreResult {
  ledger: string;
  t: number;
  commit_id: string;
  index_id: string | null;
  objects: number;
  bytes: number;
}

export interface RestoreOptions {
  /** Heads to publish when the stream has no nameservice manifest (a clone from a pack stream). */
  heads?: Omit<NameserviceManifest, 'phase' | 'ledger_id' | 'name' | 'branch'>;
  /** Called after each stored object (progress). */
  onObject?: (objects: number, bytes: number) => void;
}

function isManifest(m: unknown): m is NameserviceManifest {
  const x = m as NameserviceManifest;
  return x.phase === 'nameservice' && typeof x.commit_head_id === 'string' && Number.isSafeInteger(x.commit_t) &&
    (x.index_head_id === null || typeof x.index_head_id === 'string') && Number.isSafeInteger(x.index_t);
}

/** Restore a ledger named `ledgerId` from frames (see reader.ts); 409 when it exists. */
export async function restoreLedger(stores: LedgerStores, ledgerId: string, frames: AsyncIterable<PackFrame>, opts: RestoreOptions = {}): Promise<RestoreResult> {
  const id = normalizeLedgerId(ledgerId);
  const { name, branch } = splitLedgerId(id);
  const placeholder: NsRecord = {
    ledger_id: id, name, branch, commit_head_id: null, commit_t: 0, index_head_id: null, index_t: 0,
    default_context: null, config_id: null, retracted: true,
  };
  if ((await stores.ns.get(id)) || !(await stores.ns.compareAndSet(id, null, placeholder))) throw ledgerExists(`ledger ${id} already exists`);
  const content = stores.contentFor(id);
  const created: CID[] = [];
  const seen = new Set<string>();
  let objects = 0, bytes = 0;
  try {
    let manifest: NameserviceManifest | null = null;
    for await (const f of frames) {
      if (f.type === 'error') throw constraintViolation(`the stream carries an error: ${f.message}`);
      if (f.type === 'manifest' && f.manifest.phase === 'nameservice') {
        if (!isManifest(f.manifest)) throw constraintViolation('the nameservice manifest is malformed');
        manifest = f.manifest;
      }
      if (f.type !== 'data') continue;
      const key = f.cid.toString();
      if (f.cid.code === Codec.gcRecord) throw constraintViolation(`the stream carries a garbage-collection record (${key})`);
      seen.add(key);
      objects++; bytes += f.bytes.length;
      if (!(await content.has(f.cid))) {
        await content.putWithCid(f.cid, f.bytes);
        created.push(f.cid);
      }
      opts.onObject?.(objects, bytes);
    }
    const heads = manifest ?? (opts.heads ? { phase: 'nameservice' as const, ledger_id: id, name, branch, ...opts.heads } : null);
    if (!heads) throw constraintViolation('the archive has no nameservice manifest');
    if (!seen.has(heads.commit_head_id)) throw constraintViolation(`head commit ${heads.commit_head_id} is not in the archive`);
    const head = CID.parse(heads.commit_head_id);
    if (head.code !== Codec.commit || decodeEnvelope(await content.get(head)).t !== heads.commit_t) {
      throw constraintViolation(`head commit ${heads.commit_head_id} is not a commit at t ${heads.commit_t}`);
    }
    let indexId: string | null = null;
    if (heads.index_head_id) {
      if (!seen.has(heads.index_head_id)) throw constraintViolation(`index root ${heads.index_head_id} is not in the archive`);
      const rootCid = CID.parse(heads.index_head_id);
      if (rootCid.code !== Codec.indexRoot) throw constraintViolation(`${heads.index_head_id} is not an index root`);
      const root = parseJsonNode<IndexRoot>(await content.get(rootCid), 'index root');
      if (root.index_t !== heads.index_t) throw constraintViolation(`index root ${heads.index_head_id} covers t ${root.index_t}, not ${heads.index_t}`);
      indexId = heads.index_head_id;
      if (root.ledger_id !== id) {
        // Re-stamped under the new name: a new root object, so the source's root stays as it was.
        const restamped = canonicalJsonBytes({ ...root, ledger_id: id });
        const cid = await content.put(Codec.indexRoot, restamped);
        if (!seen.has(cid.toString())) created.push(cid);
        indexId = cid.toString();
        // The source's root, stored by this restore, is then named by nothing here (under a
        // per-ledger layout nothing else could reach it either): not kept.
        const i = created.findIndex((c) => c.equals(rootCid));
        if (i >= 0) { created.splice(i, 1); await content.delete(rootCid); }
      }
    }
    const record: NsRecord = {
      ...placeholder, commit_head_id: heads.commit_head_id, commit_t: heads.commit_t,
      index_head_id: indexId, index_t: indexId ? heads.index_t : 0, retracted: false,
    };
    if (!(await stores.ns.compareAndSet(id, placeholder, record))) throw internalError(`ledger ${id} changed during the restore`);
    return { ledger: id, t: heads.commit_t, commit_id: heads.commit_head_id, index_id: indexId, objects, bytes };
  } catch (e) {
    for (const c of created) await content.delete(c).catch(() => false);
    await stores.ns.delete(id).catch(() => false);
    throw e;
  }
}
