/**
 * File writes and fsyncs through raw file descriptors. The FileHandle API costs about twice the main-thread
 * time and process CPU per file (a wrapped, GC-tracked object per open); the write path opens
 * two to three files per commit, so the storage layer uses plain descriptors.
 */
import fs from 'node:fs';
import { promisify } from 'node:util';

/** open(2) as a promise. */
const openFd: (path: string, flags: string | number) => Promise<number> = promisify(fs.open);
/** fsync(2) as a promise. */
const fsyncFd: (fd: number) => Promise<void> = promisify(fs.fsync);
/** close(2) as a promise. */
const closeFd: (fd: number) => Promise<void> = promisify(fs.close);
const writeFd = (fd: number, buf: Uint8Array, off: number): Promise<number> =>
  new Promise((ok, fail) => fs.write(fd, buf, off, buf.length - off, null, (e, n) => (e ? fail(e) : ok(n))));

/**
 * Create a file that must not exist yet ('wx'), write all of `data`, optionally fsync, close. When
 * writing fails after the create, the partial file is removed (it is certainly this call's own).
 * `onCreated` runs once the directory entry exists (right after the create), so the caller can
 * fsync the directory while the file's own bytes are written and fsynced.
 */
export async function writeNewFile(path: string, data: Uint8Array | string, fsync: boolean, onCreated?: () => void): Promise<void> {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const fd = await openFd(path, 'wx');
  onCreated?.();
  try {
    for (let off = 0; off < bytes.length;) off += await writeFd(fd, bytes, off);
    if (fsync) await fsyncFd(fd);
  } catch (e) {
    await closeFd(fd).catch(() => {});
    await fs.promises.rm(path, { force: true }).catch(() => {});
    throw e;
  }
  closeBehind(fd);
}

/**
 * Close a descriptor whose work is done (written, fsynced where asked) without waiting for it: the
 * bytes are where they will stay whatever close reports, and not waiting saves the caller a turn
 * through the thread pool — several per commit, on a path that is otherwise all waiting.
 */
function closeBehind(fd: number): void {
  fs.close(fd, () => {});
}

/** fstat(2) size as a promise. */
const sizeFd = (fd: number): Promise<number> => new Promise((ok, fail) => fs.fstat(fd, (e, st) => (e ? fail(e) : ok(st.size))));
const readFd = (fd: number, buf: Uint8Array, off: number): Promise<number> =>
  new Promise((ok, fail) => fs.read(fd, buf, off, buf.length - off, off, (e, n) => (e ? fail(e) : ok(n))));

/**
 * A whole file's bytes through a plain descriptor (open, fstat, read, close): the same work as
 * `fs.promises.readFile` without its FileHandle, which costs more main-thread time per file than
 * the read itself for the small objects most reads are (commits, transaction blobs).
 */
export async function readWholeFile(path: string): Promise<Uint8Array> {
  const fd = await openFd(path, 'r');
  try {
    const buf = new Uint8Array(await sizeFd(fd));
    let off = 0;
    while (off < buf.length) {
      const n = await readFd(fd, buf, off);
      if (n === 0) return buf.subarray(0, off); // shorter than fstat said: verification will tell
      off += n;
    }
    return buf;
  } finally {
    await closeFd(fd);
  }
}

/** The errno code of a file-system error. */
export const errCode = (e: unknown): string | undefined => (e as { code?: string } | null)?.code;

/** Errors that mean "this platform cannot fsync directories", not a failure. */
const DIR_SYNC_UNSUPPORTED: ReadonlySet<string> = new Set(['EISDIR', 'EPERM', 'EINVAL', 'EBADF']);

/** Fsync a directory so new entries in it survive a crash; a no-op where directories cannot be fsynced. */
export async function syncDir(dir: string): Promise<void> {
  try {
    await syncPath(dir);
  } catch (e) {
    if (!DIR_SYNC_UNSUPPORTED.has(errCode(e) ?? '')) throw e;
  }
}

/** Fsync an existing file or directory by path. */
export async function syncPath(path: string): Promise<void> {
  const fd = await openFd(path, 'r');
  try {
    await fsyncFd(fd);
  } catch (e) {
    await closeFd(fd).catch(() => {});
    throw e;
  }
  closeBehind(fd);
}
