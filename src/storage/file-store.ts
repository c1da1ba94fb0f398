/**
 * File-system ContentStore and NameService (Node). Layout under the root directory:
 *   objects/<last 2 chars of the CID>/<CID>   (every CID starts "bag…", so the tail shards evenly)
 *   ns/<encoded ledger id>.json               (one record per name:branch; .lock beside it while written)
 * Both are safe for several processes sharing one root (a transaction server and a peer).
 * The nameservice half lives in file-ns.ts (it imports this file's helpers, so it is not re-exported here).
 */
import { promises as fsp } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { CID } from 'multiformats/cid';
import { Codec, cidOf, verifyCid } from '../core/commit/cid.js';
import { badRequest, isLedgraphError, storageError, type LedgraphError } from '../core/errors.js';
import type { ContentStore, PutAllOptions } from '../core/store.js';
import { errCode, readWholeFile, syncDir, syncPath, writeNewFile } from './fd-io.js';
import { compresses, decodeFromDisk, encodeForDisk, type CompressMode } from './disk-codec.js';
import { DEFAULT_LEFTOVER_POLICY, sweepLeftovers, type LeftoverPolicy } from './leftovers.js';
import { checkPutCid, missingObject, verifiedBytes } from './memory-store.js';

/**
 * How much is fsynced. Every object file is fsynced before its put returns unless 'none' (so a
 * published name never points at unwritten data). Directory entries are what make a new file
 * survive a crash:
 * - 'all': fsync the directory after every object;
 * - 'commits' (default): batch them. Objects a nameservice record can point at (commit, index root,
 *   ledger config, default context) are barriers: putting one fsyncs every directory dirtied since the
 *   last barrier, so everything a published head references is durable when the head is. Bulk index
 *   leaves therefore cost one file fsync each, not two. A group of commits (putAllWithCid) fsyncs
 *   only the directories its own objects were created in: what it references is itself or older
 *   commits, and an index job's leaves written meanwhile wait for their root's barrier instead of
 *   making a write's commit fsync hundreds of shard directories.
 * - 'none': no fsync at all (tests, caches that can be refetched).
 * Nameservice records are always fsynced (file and directory) unless 'none'.
 */
export type Durability = 'all' | 'commits' | 'none';

/** Options of the file stores. */
export interface FileStoreOptions {
  durable?: Durability;
  /** A nameservice lock older than this is considered abandoned (default 10 s). */
  lockStaleMs?: number;
  /** Give up waiting for a nameservice lock after this long (default 30 s; must exceed lockStaleMs). */
  lockTimeoutMs?: number;
  /** Poll interval for changes made by other processes while someone is subscribed (default 250 ms). */
  pollMs?: number;
  /**
   * Which object files are deflated (default 'fast'; see disk-codec.ts). Reads take either form,
   * so a store may hold both and the setting may change between runs.
   */
  compress?: CompressMode;
}

/** Object files a group put writes at once. */
const GROUP_WRITES = 16;

const BARRIER_CODECS: ReadonlySet<number> = new Set([Codec.commit, Codec.indexRoot, Codec.ledgerConfig, Codec.defaultContext]);

/** A name component no other writer (process or call) uses at the same time. */
export const unique = (): string => `${process.pid}.${randomBytes(6).toString('hex')}`;
/** A file-system failure as a LedgraphError (502), keeping LedgraphErrors as they are. */
export const fsFail = (what: string, e: unknown): LedgraphError =>
  isLedgraphError(e) ? e : storageError(`${what}: ${fsReason(e)}`);

/**
 * What went wrong, without the path: Node's messages name the absolute file ("ENOSPC: no space
 * left on device, open '/srv/data/...'"), which must not reach a client.
 */
export function fsReason(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (err && typeof err.code === 'string') {
    const m = /^[A-Z0-9_]+: ([^,]+)/.exec(err.message ?? '');
    return m ? `${err.code} (${m[1]})` : err.code;
  }
  return 'file system error';
}

/** Write a file atomically: unique temp file in the same directory, optional fsync, rename over the target. */
export async function writeAtomic(path: string, data: Uint8Array | string, fsync: boolean): Promise<void> {
  const tmp = `${path}.${unique()}.tmp`;
  try {
    await writeNewFile(tmp, data, fsync);
    await fsp.rename(tmp, path);
  } catch (e) {
    await fsp.rm(tmp, { force: true });
    throw e;
  }
}

/** Content-addressed objects as files; every read is verified against its CID. */
export class FileContentStore implements ContentStore {
  readonly objectsDir: string;
  private readonly durable: Durability;
  private readonly compress: CompressMode;
  private readonly dirty = new Set<string>(); // directories with new entries not yet fsynced
  private readonly knownDirs = new Set<string>();
  /** The start-up sweep of crash leftovers (runs in the background; close waits for it). */
  readonly swept: Promise<string[]>;

  private constructor(readonly root: string, opts: FileStoreOptions, sweep: boolean) {
    this.objectsDir = join(root, 'objects');
    this.durable = opts.durable ?? 'commits';
    this.compress = opts.compress ?? 'fast';
    this.swept = sweep ? this.sweep({ ...DEFAULT_LEFTOVER_POLICY, graceMs: opts.lockStaleMs ?? DEFAULT_LEFTOVER_POLICY.graceMs }) : Promise.resolve([]);
  }

  /** Open (creating if needed) the object store under `root`; leftovers of killed writers are swept in the background. */
  static async open(root: string, opts: FileStoreOptions = {}): Promise<FileContentStore> {
    await fsp.mkdir(join(root, 'objects'), { recursive: true }).catch((e) => { throw fsFail(`cannot create ${join(root, 'objects')}`, e); });
    return new FileContentStore(root, opts, true);
  }

  /**
   * Remove leftovers of writers killed mid-write: the root's write probe and the temp files of
   * object replacements in every shard (see leftovers.ts for when a file counts as abandoned).
   * In the background because a large store has many shards to list; failures are only logged.
   */
  private async sweep(policy: LeftoverPolicy): Promise<string[]> {
    try {
      const removed = await sweepLeftovers(this.root, policy);
      const shards = await fsp.readdir(this.objectsDir).catch(() => [] as string[]);
      for (const shard of shards) {
        for (const name of await sweepLeftovers(join(this.objectsDir, shard), policy)) removed.push(join(shard, name));
      }
      return removed;
    } catch (e) {
      console.error(JSON.stringify({ level: 'warn', msg: 'leftover sweep failed', error: e instanceof Error ? e.message : String(e) }));
      return [];
    }
  }

  /** Path of an object's file. */
  pathOf(cid: CID): string {
    const s = cid.toString();
    return join(this.objectsDir, s.slice(-2), s);
  }

  /** Store bytes under their CID (idempotent). */
  async put(codec: number, bytes: Uint8Array): Promise<CID> {
    if (!(bytes instanceof Uint8Array)) throw badRequest('object bytes must be a Uint8Array');
    const cid = await cidOf(codec, bytes);
    await this.write(cid, bytes);
    return cid;
  }

  /** Store bytes under a caller-computed CID after verifying it. */
  async putWithCid(cid: CID, bytes: Uint8Array): Promise<void> {
    await checkPutCid(cid, bytes);
    await this.write(cid, bytes);
  }

  /**
   * Store a group of objects, their files written side by side (each fsynced), then every directory
   * entry they made fsynced once: when it returns the whole group is durable, at the cost of one
   * barrier rather than one per commit in it.
   */
  async putAllWithCid(objects: readonly { cid: CID; bytes: Uint8Array }[], opts: PutAllOptions = {}): Promise<void> {
    for (const o of objects) {
      if (opts.hashed === true && o.bytes instanceof Uint8Array) continue;
      await checkPutCid(o.cid, o.bytes);
    }
    // The directories are fsynced as soon as every file of the group exists, while the files' own
    // bytes are still being written and fsynced: both must finish before this returns, and nothing
    // refers to these objects before then, so their order does not matter.
    let flush: Promise<void> | null = null;
    const own = new Set(objects.map((o) => join(this.pathOf(o.cid), '..')));
    own.add(this.objectsDir); // a shard directory the group created
    const startFlush = () => {
      if (flush || this.durable === 'none') return;
      flush = this.flushDirs(own);
      flush.catch(() => {}); // awaited below
    };
    let toCreate = objects.length;
    const created = () => { if (--toCreate === 0) startFlush(); };
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < objects.length) {
        const o = objects[next++]!;
        await this.write(o.cid, o.bytes, false, created);
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(GROUP_WRITES, objects.length) }, worker));
    } finally {
      startFlush(); // a failed write never counted as created; flush what was
    }
    await (flush as Promise<void> | null)?.catch((e) => { throw fsFail('cannot sync object directories', e); });
  }

  /**
   * The on-disk form of bytes announced by prepare(), deflating meanwhile (by the bytes' identity:
   * an entry goes with its bytes when they are never put).
   */
  private readonly prepared = new WeakMap<Uint8Array, Promise<Uint8Array>>();

  /** Start deflating bytes about to be put (ContentStore.prepare): a 12 MB transaction blob takes tens of ms. */
  prepare(codec: number, bytes: Uint8Array): void {
    if (!compresses(this.compress, codec) || this.prepared.has(bytes)) return;
    const file = encodeForDisk(bytes);
    file.catch(() => {}); // a failure is met again (and reported) by the put
    this.prepared.set(bytes, file);
  }

  /**
   * Write one object. Its directory counts as dirty from the moment the file exists; a barrier (or
   * 'all') fsyncs the dirty directories then, beside the file's own write and fsync.
   */
  private async write(cid: CID, bytes: Uint8Array, barrier = BARRIER_CODECS.has(cid.code), onCreated?: () => void): Promise<void> {
    const path = this.pathOf(cid);
    const dir = join(path, '..');
    const syncDirs = this.durable === 'all' || (this.durable === 'commits' && barrier);
    let flush: Promise<void> | null = null;
    try {
      const early = this.prepared.get(bytes);
      if (early) this.prepared.delete(bytes);
      const file = compresses(this.compress, cid.code) ? await (early ?? encodeForDisk(bytes)) : bytes;
      await this.ensureDir(dir);
      await this.createObject(path, file, () => {
        this.dirty.add(dir);
        if (syncDirs && !flush) { flush = this.flushDirs(); flush.catch(() => {}); }
        onCreated?.();
      });
      if (flush) await flush;
    } catch (e) {
      throw fsFail(`cannot store object ${cid.toString()}`, e);
    }
  }

  /**
   * Write an object's file in place, created exclusively: no temp file and rename, because nothing
   * reads an object before its put has returned (readers learn CIDs from published records), so a
   * half-written file can only be a crash leftover — and every read verifies bytes against the CID.
   * When the file exists (the same object put again, or such a leftover) it is kept if it holds
   * exactly these bytes (the on-disk form) (fsynced again: a crashed writer may not have) and atomically replaced if not.
   */
  private async createObject(path: string, bytes: Uint8Array, onCreated: () => void): Promise<void> {
    const sync = this.durable !== 'none';
    try {
      await writeNewFile(path, bytes, sync, onCreated);
    } catch (e) {
      if (errCode(e) !== 'EEXIST') throw e;
      const have = await fsp.readFile(path).catch(() => null);
      if (have === null || !Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).equals(have)) await writeAtomic(path, bytes, sync);
      else if (sync) await syncPath(path);
      // The entry existed already (possibly from a writer that crashed before its directory fsync).
      onCreated();
    }
  }

  private async ensureDir(dir: string): Promise<void> {
    if (this.knownDirs.has(dir)) return;
    try {
      await fsp.mkdir(dir);
      this.dirty.add(this.objectsDir); // the new shard's own entry must become durable too
    } catch (e) {
      if (errCode(e) !== 'EEXIST') throw e;
    }
    this.knownDirs.add(dir);
  }

  /** Fsync the dirty directories (only those in `only`, when given) and count them clean. */
  private async flushDirs(only?: ReadonlySet<string>): Promise<void> {
    const dirs = only ? [...this.dirty].filter((d) => only.has(d)) : [...this.dirty];
    if (only) for (const d of dirs) this.dirty.delete(d);
    else this.dirty.clear();
    try {
      await Promise.all(dirs.map(syncDir));
    } catch (e) {
      for (const d of dirs) this.dirty.add(d);
      throw e;
    }
  }

  /** The object's bytes, verified against the CID on every read. */
  async get(cid: CID): Promise<Uint8Array> {
    let buf: Uint8Array;
    try {
      buf = await readWholeFile(this.pathOf(cid));
    } catch (e) {
      if (errCode(e) === 'ENOENT') throw missingObject(cid, `the file store at ${this.root}`);
      throw fsFail(`cannot read object ${cid.toString()}`, e);
    }
    const inflated = await decodeFromDisk(buf);
    if (inflated && await verifyCid(cid, inflated)) return inflated;
    return verifiedBytes(cid, buf, `the file store at ${this.root}`);
  }

  /** True when the object's file exists (not verified). */
  async has(cid: CID): Promise<boolean> {
    try {
      return (await fsp.stat(this.pathOf(cid))).isFile();
    } catch (e) {
      if (errCode(e) === 'ENOENT') return false;
      throw fsFail(`cannot stat object ${cid.toString()}`, e);
    }
  }

  /** Remove the object's file; true when it existed. */
  async delete(cid: CID): Promise<boolean> {
    try {
      await fsp.unlink(this.pathOf(cid));
      return true;
    } catch (e) {
      if (errCode(e) === 'ENOENT') return false;
      throw fsFail(`cannot delete object ${cid.toString()}`, e);
    }
  }

  /** Make outstanding directory entries durable (so 'commits' mode loses nothing written before a clean close). */
  async close(): Promise<void> {
    await this.swept;
    if (this.durable !== 'none') await this.flushDirs().catch((e) => { throw fsFail('cannot sync object store', e); });
  }

}
