/**
 * One total-memory setting (`--memory-limit`, LEDGRAPH_MEMORY_LIMIT) and what follows from it: the
 * byte budgets of the caches and the V8 heap limits the launcher (bin/ledgraph.cjs) starts Node
 * with. Pure (no `node:*`), so the launcher can load it before the server process exists.
 * The shares and why: docs/memory.md "Sizing".
 */
import { LedgraphError } from '../core/errors.js';

const MiB = 1024 * 1024;

/** The default total: a small server (512 MiB), which gives the historical cache defaults. */
export const DEFAULT_MEMORY_LIMIT = 512 * MiB;
/** Below this the process baseline and V8's code leave the caches next to nothing. */
export const MIN_MEMORY_LIMIT = 256 * MiB;

/** What a total gives each owner (bytes, except the V8 flags in MiB). */
export interface MemoryPlan {
  total: number;
  /** Decoded index leaves and dictionary pages (typed arrays: outside V8's old space). */
  leafCacheBytes: number;
  /** Decoded terms, per loaded ledger. */
  termCacheBytes: number;
  /** Commit envelopes for history and branch walks. */
  commitCacheBytes: number;
  /** Parsed JSON-LD queries and contexts. */
  parseCacheBytes: number;
  /** Remembered push responses. */
  idempotencyCacheBytes: number;
  /** Ledgers kept loaded (each holds its term cache, novelty and dictionary filters). */
  maxLoadedLedgers: number;
  /** V8 old-space limit (`--max-old-space-size`, MiB): the heap-resident caches, the process's own heap and query working memory. */
  oldSpaceMiB: number;
  /** V8 semi-space size (`--max-semi-space-size`, MiB); the young generation is three of them. */
  semiSpaceMiB: number;
}

/**
 * Shares of a total T: leaf cache T/4 (its held dictionary pages another T/16, in the heap),
 * parse caches 3T/64, commit envelopes T/32, term cache 3T/128, idempotency T/64, V8 old space
 * 3T/8 and the young generation 3 × T/64 (at most 3 × 16 MiB); the rest (≈ 1/3) is the process
 * itself: code, Node's native memory, request buffers, allocator slack. One loaded ledger per
 * 8 MiB of the total (64 at 512 MiB; at least 4).
 */
export function memoryPlan(total: number): MemoryPlan {
  const part = (n: number, d: number) => Math.floor((total * n) / d);
  return {
    total,
    leafCacheBytes: part(1, 4),
    termCacheBytes: part(3, 128),
    commitCacheBytes: part(1, 32),
    parseCacheBytes: part(3, 64),
    idempotencyCacheBytes: part(1, 64),
    maxLoadedLedgers: Math.max(4, Math.floor(total / (8 * MiB))),
    oldSpaceMiB: Math.floor(part(3, 8) / MiB),
    semiSpaceMiB: Math.max(1, Math.min(16, Math.floor(part(1, 64) / MiB))),
  };
}

/** The `node` flags that cap V8's heap for a total. */
export function heapFlags(total: number): string[] {
  const p = memoryPlan(total);
  return [`--max-old-space-size=${p.oldSpaceMiB}`, `--max-semi-space-size=${p.semiSpaceMiB}`];
}

/**
 * Environment for the server process: glibc's malloc raises its mmap threshold each time a large
 * block is freed (up to 32 MiB), after which large blocks (ArrayBuffers of decoded leaves, a load's
 * sort runs) come from the heap and stay resident when freed. Fixing the threshold at its initial
 * 128 KiB keeps large blocks mapped and returned on free: measured after the 1M-triple load, RSS
 * 356 → 197 MB with the same heap (docs/memory.md). Ignored by other C libraries; a value the user
 * set stands.
 */
export function launchEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return env.MALLOC_MMAP_THRESHOLD_ === undefined ? { MALLOC_MMAP_THRESHOLD_: '131072' } : {};
}

/** Whether node flags (argv or NODE_OPTIONS) already size V8's heap: then the user's choice stands. */
export function setsHeapSize(flags: readonly string[]): boolean {
  return flags.some((f) => /^--(max-old-space-size|max-semi-space-size|max-heap-size)(=|$)/.test(f.replace(/_/g, '-')));
}

const UNITS: Record<string, number> = {
  '': 1, b: 1, kb: 1e3, mb: 1e6, gb: 1e9, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3,
};

const bad = (msg: string) => new LedgraphError(400, 'err:db/BadRequest', msg);

/** A byte size: plain bytes or a number with a unit (B, KB, MB, GB, KiB, MiB, GiB; case-insensitive). */
export function parseByteSize(raw: string, where: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(raw.replace(/_/g, ''));
  const unit = m ? UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || unit === undefined) {
    throw bad(`invalid value for ${where}: "${raw}" (expected a byte size such as 1000000, 100KB or 100MiB)`);
  }
  const n = Math.round(Number(m[1]) * unit);
  if (!Number.isSafeInteger(n)) throw bad(`invalid value for ${where}: "${raw}" (too large)`);
  return n;
}

/** A total memory limit: a byte size of at least MIN_MEMORY_LIMIT. */
export function parseMemoryLimit(raw: string, where: string): number {
  const n = parseByteSize(raw, where);
  if (n < MIN_MEMORY_LIMIT) throw bad(`invalid value for ${where}: "${raw}" (at least 256MiB)`);
  return n;
}

/**
 * The total a `ledgraph server` command line asks for (`--memory-limit X`, `--memory-limit=X`,
 * else LEDGRAPH_MEMORY_LIMIT, else the default), as the launcher needs it before the full flag
 * parser runs; null when the value is invalid (the server's parser then reports it).
 */
export function memoryLimitOf(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): number | null {
  let raw: string | undefined;
  let where = 'LEDGRAPH_MEMORY_LIMIT';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a === '--memory-limit') { raw = argv[i + 1]; where = '--memory-limit'; i++; } else if (a.startsWith('--memory-limit=')) { raw = a.slice(15); where = '--memory-limit'; }
  }
  if (raw === undefined) raw = env.LEDGRAPH_MEMORY_LIMIT || undefined;
  if (raw === undefined) return DEFAULT_MEMORY_LIMIT;
  try { return parseMemoryLimit(raw, where); } catch { return null; }
}

/** The cache budgets and heap limit a running server has (ServerConfig's fields). */
export interface MemorySettings {
  memoryLimitBytes: number;
  leafCacheBytes: number;
  termCacheBytes: number;
  commitCacheBytes: number;
  parseCacheBytes: number;
  idempotencyCacheBytes: number;
}

/**
 * Start-up warnings where the process is not sized as --memory-limit says: V8's heap limit is not
 * the plan's (the server was started without the launcher, or node flags chose another), or the
 * budgets given one by one do not fit the total.
 */
export function memoryWarnings(s: MemorySettings, heapSizeLimit: number): string[] {
  const plan = memoryPlan(s.memoryLimitBytes);
  const out: string[] = [];
  const planned = (plan.oldSpaceMiB + 3 * plan.semiSpaceMiB) * MiB;
  if (heapSizeLimit > planned * 1.25) {
    out.push(`V8's heap limit (${Math.round(heapSizeLimit / MiB)} MiB) is not sized from --memory-limit (${Math.round(planned / MiB)} MiB planned): start the server with the ledgraph command, or node --max-old-space-size=${plan.oldSpaceMiB} --max-semi-space-size=${plan.semiSpaceMiB}`);
  }
  const caches = s.leafCacheBytes + s.leafCacheBytes / 4 + s.termCacheBytes + s.commitCacheBytes + s.parseCacheBytes + s.idempotencyCacheBytes;
  if (caches > s.memoryLimitBytes * 0.6) {
    out.push(`the cache budgets (${Math.round(caches / MiB)} MiB with the held dictionary pages) exceed 60% of --memory-limit (${Math.round(s.memoryLimitBytes / MiB)} MiB): raise --memory-limit or lower the budgets`);
  }
  return out;
}
