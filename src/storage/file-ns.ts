/** The file-system NameService (Node): ns/<encoded ledger id>.json under the root, one lock file per write. */
import { promises as fsp, watch, type FSWatcher, type Stats } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { badRequest, storageError } from '../core/errors.js';
import { sameRecordVersion, type NameService, type NsChange, type NsRecord, type StagedRecord } from '../core/store.js';
import { fsFail, unique, writeAtomic, type FileStoreOptions } from './file-store.js';
import { errCode, syncDir, writeNewFile } from './fd-io.js';
import { DEFAULT_LEFTOVER_POLICY, pidAlive, sweepLeftovers } from './leftovers.js';
import { ChangeFeed, byLedgerId, changeKind, checkRecord, cloneRecord } from './memory-store.js';

const HOST = hostname();
// Exactly what encodeLedgerId produces, so lock, temp and foreign files are never taken for records.
const RECORD_FILE = /^(?:[A-Za-z0-9_-]|%[0-9A-F]{2})+\.json$/;
const isRecordFile = (n: string): boolean => RECORD_FILE.test(n) && decodeLedgerId(n.slice(0, -5)) !== null;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** File name of a ledger id: percent-encoding, plus '.' and the characters encodeURIComponent keeps that some file systems reject. */
export function encodeLedgerId(id: string): string {
  let e: string;
  try {
    e = encodeURIComponent(id);
  } catch {
    throw badRequest(`invalid ledger id ${JSON.stringify(id)}`); // lone surrogates have no UTF-8 form
  }
  e = e.replace(/[!'()*~.]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
  // File systems cap a name at 255 bytes; the record, lock and temp-file suffixes need the rest.
  if (e.length > MAX_ENCODED_ID) {
    throw badRequest(`ledger id is too long for file storage: its file name would be ${e.length} bytes, at most ${MAX_ENCODED_ID} ('/', ':' and '.' take 3 bytes each)`);
  }
  return e;
}

/** Longest encoded ledger id: 255 bytes less `.json`, `.lock` or `.<pid>.<12 hex>.tmp`. */
export const MAX_ENCODED_ID = 220;

/** Inverse of encodeLedgerId; null for a name it cannot have produced. */
export function decodeLedgerId(encoded: string): string | null {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return null;
  }
}

interface Seen { text: string; mtimeMs: number; size: number; ino: number }
interface Lock { check(): Promise<void>; release(): Promise<void> }

/**
 * Nameservice records as JSON files. compareAndSet takes an exclusive lock file per record, so it is
 * atomic across processes; reads need no lock because records are replaced by rename.
 */
export class FileNameService implements NameService {
  readonly dir: string;
  private readonly fsync: boolean;
  private readonly staleMs: number;
  private readonly timeoutMs: number;
  private readonly pollMs: number;
  private readonly feed = new ChangeFeed((active) => this.watching(active));
  private readonly seen = new Map<string, Seen>(); // file -> last state this instance knows
  private readonly busy = new Set<string>(); // files this instance is changing right now
  private readonly staged = new WeakMap<StagedRecord, { ledgerId: string; record: NsRecord; tmp: string; written: Promise<boolean>; taken: boolean; remove: () => void }>();
  private readonly gen = new Map<string, number>(); // bumped per local change, so an overlapping scan drops its stale view
  private readonly chains = new Map<string, Promise<void>>(); // queue local calls per record instead of spinning on the lock
  private watcher: FSWatcher | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private scanning: Promise<void> | null = null;
  private rescan = false;

  private constructor(readonly root: string, opts: FileStoreOptions) {
    this.dir = join(root, 'ns');
    this.fsync = (opts.durable ?? 'commits') !== 'none';
    this.staleMs = opts.lockStaleMs ?? 10_000;
    this.timeoutMs = opts.lockTimeoutMs ?? Math.max(30_000, this.staleMs * 3);
    this.pollMs = opts.pollMs ?? 250;
  }

  /** Open (creating if needed) the nameservice under `root`. */
  static async open(root: string, opts: FileStoreOptions = {}): Promise<FileNameService> {
    const ns = new FileNameService(root, opts);
    try {
      await fsp.mkdir(ns.dir, { recursive: true });
      // Temp and moved-aside lock files of writers killed mid-write (never a live writer's).
      await sweepLeftovers(ns.dir, { ...DEFAULT_LEFTOVER_POLICY, graceMs: ns.staleMs });
      await ns.scan(false); // baseline, so later external changes are noticed relative to opening
    } catch (e) {
      throw fsFail(`cannot open nameservice at ${ns.dir}`, e);
    }
    return ns;
  }

  /** The record, or null. */
  async get(ledgerId: string): Promise<NsRecord | null> {
    return this.readCached(encodeLedgerId(ledgerId) + '.json');
  }

  /**
   * Replace the record when the stored version equals `expected`; atomic across processes. Given a
   * record this store staged for exactly `next`, the compare-and-set renames its copy into place.
   */
  async compareAndSet(ledgerId: string, expected: NsRecord | null, next: NsRecord, staged?: StagedRecord): Promise<boolean> {
    const s = staged ? this.staged.get(staged) : undefined;
    if (!s || s.taken || s.ledgerId !== ledgerId || JSON.stringify(s.record) !== JSON.stringify(cloneRecord(next))) {
      staged?.discard();
      return this.setRecord(ledgerId, expected, next, null);
    }
    s.taken = true;
    try {
      const ok = await this.setRecord(ledgerId, expected, next, s);
      if (!ok) s.remove();
      return ok;
    } catch (e) {
      s.remove();
      throw e;
    }
  }

  /**
   * Write and fsync `next` to a temporary file now, outside the lock, for a compareAndSet to rename
   * into place. A staged copy that is never set, or one left by a crash, is a temporary file like
   * writeAtomic's (removed here, or swept at start); it is never the record.
   */
  stage(ledgerId: string, next: NsRecord): StagedRecord {
    checkRecord(ledgerId, next);
    const record = cloneRecord(next);
    const tmp = join(this.dir, `${encodeLedgerId(ledgerId)}.json.${unique()}.tmp`);
    const written = writeNewFile(tmp, JSON.stringify(record) + '\n', this.fsync).then(() => true, () => false);
    const remove = () => { void written.then(() => fsp.rm(tmp, { force: true })).catch(() => {}); };
    const info = { ledgerId, record, tmp, written, taken: false, remove };
    const handle: StagedRecord = { record, discard: () => { if (!info.taken) { info.taken = true; remove(); } } };
    this.staged.set(handle, info);
    return handle;
  }

  private async setRecord(ledgerId: string, expected: NsRecord | null, next: NsRecord, staged: { tmp: string; written: Promise<boolean> } | null): Promise<boolean> {
    checkRecord(ledgerId, next);
    const stored = cloneRecord(next);
    const change = await this.mutate(ledgerId, async (file, lock) => {
      const prev = await this.readCached(file);
      const text = JSON.stringify(stored) + '\n';
      // A staged copy that failed to write is replaced by an ordinary atomic write.
      const ready = staged !== null && (await staged.written);
      if (!sameRecordVersion(prev, expected)) {
        if (ready) await fsp.rm(staged.tmp, { force: true });
        return null;
      }
      await lock.check();
      if (ready) {
        try {
          await fsp.rename(staged.tmp, join(this.dir, file));
        } catch (e) {
          await fsp.rm(staged.tmp, { force: true });
          throw e;
        }
      } else await writeAtomic(join(this.dir, file), text, this.fsync);
      // The stat that remembers the new file needs only the rename, not the directory's fsync.
      await Promise.all([this.fsync ? syncDir(this.dir) : null, this.remember(file, text)]);
      return { ledger_id: ledgerId, kind: changeKind(prev, stored), record: cloneRecord(stored) };
    });
    if (change) this.feed.emit(change);
    return change !== null;
  }

  /** Purge a record; true when it existed. */
  async delete(ledgerId: string): Promise<boolean> {
    const change = await this.mutate(ledgerId, async (file, lock) => {
      await lock.check();
      try {
        await fsp.unlink(join(this.dir, file));
      } catch (e) {
        if (errCode(e) === 'ENOENT') return null;
        throw e;
      }
      if (this.fsync) await syncDir(this.dir);
      this.seen.delete(file);
      return { ledger_id: ledgerId, kind: 'delete', record: null };
    });
    if (change) this.feed.emit(change);
    return change !== null;
  }

  /** Every record, sorted by ledger id. */
  async list(): Promise<NsRecord[]> {
    let names: string[];
    try {
      names = (await fsp.readdir(this.dir)).filter(isRecordFile);
    } catch (e) {
      throw fsFail(`cannot list nameservice at ${this.dir}`, e);
    }
    const records = await Promise.all(names.map((n) => this.read(n)));
    return records.filter((r): r is NsRecord => r !== null).sort(byLedgerId);
  }

  /** Hear every change made through this instance and, by watching the directory, by other processes. */
  subscribe(listener: (change: NsChange) => void): () => void {
    return this.feed.subscribe(listener);
  }

  /** Look for changes by other processes now instead of waiting for the watcher or the next poll. */
  async refresh(): Promise<void> {
    while (this.scanning) await this.scanning;
    await this.startScan();
  }

  /** Stop watching and drop subscribers. */
  async close(): Promise<void> {
    this.feed.clear();
    await this.scanning;
  }

  private async read(file: string): Promise<NsRecord | null> {
    let text: string;
    try {
      text = await fsp.readFile(join(this.dir, file), 'utf8');
    } catch (e) {
      if (errCode(e) === 'ENOENT') return null;
      throw fsFail(`cannot read nameservice record ${file}`, e);
    }
    try {
      return JSON.parse(text) as NsRecord;
    } catch {
      throw storageError(`nameservice record ${join(this.dir, file)} is not valid JSON`);
    }
  }

  /**
   * The record. When the file is still the one this instance last wrote or read (same inode, size
   * and mtime: every writer replaces it by rename), the remembered text is the content, so one stat
   * replaces open, read and close (the write path reads the head once per commit group).
   */
  private async readCached(file: string): Promise<NsRecord | null> {
    const known = this.seen.get(file);
    if (known) {
      const st = await fsp.stat(join(this.dir, file)).catch((e) => { if (errCode(e) === 'ENOENT') return null; throw e; });
      if (st === null) return null;
      if (known.mtimeMs === st.mtimeMs && known.size === st.size && known.ino === st.ino) return JSON.parse(known.text) as NsRecord;
    }
    return this.read(file);
  }

  /** Run a change to one record under the in-process queue and the cross-process lock. */
  private mutate(ledgerId: string, fn: (file: string, lock: Lock) => Promise<NsChange | null>): Promise<NsChange | null> {
    const file = encodeLedgerId(ledgerId) + '.json';
    const run = async (): Promise<NsChange | null> => {
      this.busy.add(file);
      try {
        const lock = await this.lock(file);
        try {
          return await fn(file, lock);
        } finally {
          await lock.release();
        }
      } catch (e) {
        throw fsFail(`cannot update nameservice record for ${ledgerId}`, e);
      } finally {
        this.busy.delete(file);
        this.gen.set(file, (this.gen.get(file) ?? 0) + 1);
      }
    };
    const prev = this.chains.get(file) ?? Promise.resolve();
    const result = prev.then(run);
    const tail = result.then(() => {}, () => {});
    this.chains.set(file, tail);
    void tail.then(() => { if (this.chains.get(file) === tail) this.chains.delete(file); });
    return result;
  }

  /** Take the record's lock file (created exclusively), breaking it when its holder is dead or it is stale. */
  private async lock(file: string): Promise<Lock> {
    const path = join(this.dir, file.slice(0, -'.json'.length) + '.lock');
    const token = unique();
    const body = JSON.stringify({ pid: process.pid, host: HOST, token, at: Date.now() });
    const deadline = Date.now() + this.timeoutMs;
    for (let attempt = 0; ; attempt++) {
      try {
        await writeNewFile(path, body, false);
        break;
      } catch (e) {
        if (errCode(e) !== 'EEXIST') throw e;
      }
      await this.breakIfStale(path);
      if (Date.now() > deadline) throw storageError(`timed out waiting for nameservice lock ${path}`);
      await sleep(1 + Math.random() * Math.min(2 + attempt, 20));
    }
    const taken = Date.now();
    // Another process breaks a lock only once it is older than staleMs (or its holder is dead, and we
    // are alive), so a lock held for less than half of that is still ours without reading it back.
    const surelyOurs = () => Date.now() - taken < this.staleMs / 2;
    const ours = async () => surelyOurs() || (await fsp.readFile(path, 'utf8').catch(() => '')) === body;
    return {
      check: async () => { if (!(await ours())) throw storageError(`lost nameservice lock ${path} (broken as stale)`); },
      release: async () => { if (await ours()) await fsp.rm(path, { force: true }); },
    };
  }

  private async breakIfStale(path: string): Promise<void> {
    let st: Stats, text: string;
    try {
      st = await fsp.stat(path);
      text = await fsp.readFile(path, 'utf8');
    } catch (e) {
      if (errCode(e) === 'ENOENT') return;
      throw e;
    }
    let holder: { pid?: unknown; host?: unknown } = {};
    try { holder = JSON.parse(text) as typeof holder; } catch { /* still being written: judge by age only */ }
    const dead = holder.host === HOST && typeof holder.pid === 'number' && !pidAlive(holder.pid);
    if (!dead && Date.now() - st.mtimeMs <= this.staleMs) return;
    // Move it aside atomically, then check we moved the lock we judged and not a fresh one that replaced it.
    const aside = `${path}.${unique()}.stale`;
    try {
      await fsp.rename(path, aside);
    } catch (e) {
      if (errCode(e) === 'ENOENT') return;
      throw e;
    }
    if ((await fsp.readFile(aside, 'utf8').catch(() => '')) !== text) await fsp.link(aside, path).catch(() => {});
    await fsp.rm(aside, { force: true });
  }

  private async remember(file: string, text: string): Promise<void> {
    const st = await fsp.stat(join(this.dir, file)).catch(() => null);
    this.seen.set(file, { text, mtimeMs: st?.mtimeMs ?? 0, size: st?.size ?? 0, ino: st?.ino ?? 0 });
  }

  private watching(active: boolean): void {
    if (active) {
      // Watching must never keep a process alive by itself.
      this.timer = setInterval(() => this.kick(), this.pollMs);
      this.timer.unref?.();
      try {
        // Lock, temp and stale files come and go on every write; only record files can change a record.
        this.watcher = watch(this.dir, (_event, name) => { if (name === null || isRecordFile(String(name))) this.kick(); });
        this.watcher.unref?.();
        this.watcher.on('error', () => { this.watcher?.close(); this.watcher = undefined; }); // polling carries on
      } catch {
        this.watcher = undefined; // fs.watch unsupported here: polling only
      }
      this.kick();
    } else {
      clearInterval(this.timer);
      this.timer = undefined;
      this.watcher?.close();
      this.watcher = undefined;
    }
  }

  /** Start a scan, or ask for another when one is already running (events arrive in bursts). */
  private kick(): void {
    if (this.scanning) { this.rescan = true; return; }
    this.startScan().catch((e) => console.error('ledgraph: nameservice watch failed', e));
  }

  /** Run one scan as `this.scanning` (which never rejects, so waiters are safe); returns the raw outcome. */
  private startScan(): Promise<void> {
    const run = this.scan(true);
    this.scanning = run.catch(() => {}).finally(() => {
      this.scanning = null;
      if (this.rescan) {
        this.rescan = false;
        if (this.feed.size > 0) this.kick();
      }
    });
    return run;
  }

  /** Compare the directory with what this instance last knew; emit 'update'/'delete' for external changes. */
  private async scan(emit: boolean): Promise<void> {
    const gen0 = new Map(this.gen);
    const changedLocally = (f: string) => this.busy.has(f) || (this.gen.get(f) ?? 0) !== (gen0.get(f) ?? 0);
    const present = new Set((await fsp.readdir(this.dir)).filter(isRecordFile).sort());
    for (const file of [...present]) {
      if (changedLocally(file)) continue;
      const path = join(this.dir, file);
      const known = this.seen.get(file);
      let st: Stats, text: string;
      try {
        st = await fsp.stat(path);
        if (known && known.mtimeMs === st.mtimeMs && known.size === st.size && known.ino === st.ino) continue;
        text = await fsp.readFile(path, 'utf8');
      } catch (e) {
        if (errCode(e) !== 'ENOENT') throw e;
        present.delete(file);
        continue;
      }
      if (changedLocally(file)) continue;
      this.seen.set(file, { text, mtimeMs: st.mtimeMs, size: st.size, ino: st.ino });
      if (!emit || known?.text === text) continue;
      let record: NsRecord;
      try { record = JSON.parse(text) as NsRecord; } catch { continue; } // renames are atomic, so this is foreign junk
      this.feed.emit({ ledger_id: decodeLedgerId(file.slice(0, -5))!, kind: 'update', record });
    }
    for (const file of [...this.seen.keys()]) {
      if (present.has(file) || changedLocally(file)) continue;
      this.seen.delete(file);
      if (emit) this.feed.emit({ ledger_id: decodeLedgerId(file.slice(0, -5))!, kind: 'delete', record: null });
    }
  }
}
