/**
 * Index root, branch nodes and dictionary chunks (docs/formats.md). These are small or
 * string-heavy, so they are canonical UTF-8 JSON (keys sorted), which V8 parses faster than any
 * hand-written decoder; leaves, the bulk of the bytes, are binary (leaf-codec.ts).
 */
import { CID } from 'multiformats/cid';
import { LedgraphError } from '../errors.js';
import type { IndexOrder } from '../flake/flake.js';
import type { DictRootJson } from './dict.js';

/** A child of a branch node: a leaf (level 1 parent) or a branch. Keys are [g, k1, k2, k3, m] in the order. */
export interface ChildRef { first: number[]; last: number[]; rows: number; cid: string }

export interface BranchNode { v: 1; order: IndexOrder; level: number; children: ChildRef[] }

export interface IndexStatsJson {
  flakes: number;
  size: number;
  /** Predicate term id -> current fact count. */
  properties: Record<string, number>;
  /** Class term id -> instance count. */
  classes: Record<string, number>;
  /** Graph id -> fact count (all graphs, txn-meta included). */
  graphs: Record<string, number>;
}

export interface IndexRoot {
  v: 1;
  ledger_id: string;
  index_t: number;
  base_t: number;
  /** Commit the index covers (the commit at index_t). */
  commit_id: string;
  /**
   * That commit's time, so opening a ledger need not read the commit (a peer would fetch it whole
   * just for this). Absent in roots written before it was added; readers then read the commit.
   */
  commit_time?: string;
  /** Commit namespace table beyond the reserved codes: [code, prefix]. */
  ns: [number, string][];
  /** Graph table beyond the reserved ids: [id, IRI]. */
  graphs: [number, string][];
  /** Number of distinct non-reserved datatypes ever used (the 16,369 limit). */
  datatypes: string[];
  /**
   * The dictionary: `pages` (ids [k·1024, (k+1)·1024) each) and `filters` (one blob per 32 pages)
   * since the paged format (docs/dictionary.md); roots written before it list JSON `chunks`.
   */
  dict: DictRootJson;
  /** Top node per order (a branch node CID), or null when the order is empty. */
  orders: Record<IndexOrder, string | null>;
  stats: IndexStatsJson;
  prev_root: string | null;
  /**
   * The root's class summary (an `index-summary` object: class-summary.ts), which GraphQL schema
   * derivation reads instead of every fact. Absent in roots written before it was added.
   */
  class_summary?: string;
}

/** The blobs of a root's dictionary: old-format chunks, or pages and filter groups. */
export function dictObjects(d: DictRootJson): string[] {
  return [...d.chunks, ...(d.pages ?? []), ...(d.filters ?? [])];
}

/** Dictionary chunk of the old format: the keys of ids [from, from + keys.length). */
export interface DictChunk { v: 1; from: number; keys: string[] }

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Canonical JSON bytes (object keys sorted recursively). */
export function canonicalJsonBytes(value: unknown): Uint8Array {
  return enc.encode(JSON.stringify(sortKeys(value)));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = sortKeys((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

/** Parse a JSON node blob, checking its version. */
export function parseJsonNode<T extends { v: number }>(bytes: Uint8Array, what: string): T {
  let parsed: T;
  try {
    parsed = JSON.parse(dec.decode(bytes)) as T;
  } catch {
    throw new LedgraphError(422, 'err:db/ConstraintViolation', `malformed ${what}: not JSON`);
  }
  if (!parsed || parsed.v !== 1) throw new LedgraphError(422, 'err:db/ConstraintViolation', `malformed ${what}: unknown version`);
  return parsed;
}

/** Encode a dictionary chunk (plain JSON: key strings are long, sorting keys is pointless here). */
export function encodeDictChunk(from: number, keys: string[]): Uint8Array {
  return enc.encode(JSON.stringify({ v: 1, from, keys }));
}

export { CID };
