/**
 * Result cells by term id, per formatter (one per processed context and output format): the JSON
 * value a stored term takes in a `json` result row (compacted IRI string, blank node label, literal
 * scalar), kept so that repeated rows and repeated queries skip decoding the term and shaping it.
 * Only immutable cells (strings, numbers, booleans) are kept: value objects are built per row,
 * so a caller may change its result. Bounded in entries; emptied when the id space changes
 * (another ledger's dictionary, or ids freed by an undone write).
 */

import { setBase, wayOf } from '../../util/set-assoc.js';

/** Slots of one cache (4 ways per set; allocated on first use). C6 of bench/jsonld.js (about 7,400 distinct terms) missed 30% at 8,192 slots, 2.4% at 16,384. */
export const ID_CELL_SLOTS = 16384;
/** Bytes charged per slot: the id and the reference (12), and a cell: a compacted IRI string of about 40 characters, a shared literal value or a number. */
export const ID_CELL_SLOT_BYTES = 64;
/**
 * Strings longer than this are kept only within LONG_CELL_CHARS (they may hold their decoded
 * key beyond the term cache). A point query's long literals (a description) are then not
 * looked up and shaped again on every repetition.
 */
const MAX_CELL_CHARS = 128;
/** Characters of long strings (over MAX_CELL_CHARS) one cache may hold. */
export const LONG_CELL_CHARS = 32768;
/** Strings longer than this are never kept. */
const MAX_LONG_CELL_CHARS = 8192;
const LOG_WAYS = 2;
/** Slots a cache starts with: it doubles when its sets keep evicting, up to ID_CELL_SLOTS. */
const FIRST_SLOTS = 1024;

/**
 * A bounded, 4-way set-associative map from stored term id to cell, for the ids of one space. A
 * shaping run takes the cache once (cellsFor) and keeps it: a concurrent query of another space
 * gets a new one rather than clearing this one under it.
 */
export class IdCells {
  private ids = new Int32Array(FIRST_SLOTS).fill(-1);
  private cells = new Array<unknown>(FIRST_SLOTS).fill(undefined);
  /** 32 − log2(sets). */
  private shift = 32 - (Math.log2(FIRST_SLOTS) - LOG_WAYS);
  /** Entries pushed out of a full set since the cache last grew. */
  private evictions = 0;
  /** Characters of the long strings held. */
  private longChars = 0;

  constructor(readonly space: object) {}

  /** Slots allocated now. */
  get slots(): number { return this.ids.length; }

  /** The cell of `id`, or undefined. */
  get(id: number): unknown {
    const i = wayOf(this.ids, setBase(id, this.shift), id);
    return i < 0 ? undefined : this.cells[i];
  }

  /** Keep the cell of `id` (after a `get` miss) when it is immutable and small; the set's oldest entry makes room. */
  put(id: number, cell: unknown): void {
    const kind = typeof cell;
    if (kind !== 'string' && kind !== 'number' && kind !== 'boolean') return;
    if (kind === 'string' && (cell as string).length > MAX_CELL_CHARS) {
      const n = (cell as string).length;
      if (n > MAX_LONG_CELL_CHARS || this.longChars + n > LONG_CELL_CHARS) return;
    }
    if (this.ids[setBase(id, this.shift) + 3] !== -1 && ++this.evictions > this.ids.length >> 1 && this.ids.length < ID_CELL_SLOTS) this.grow();
    this.insert(id, cell);
  }

  private insert(id: number, cell: unknown): void {
    const b = setBase(id, this.shift);
    const ids = this.ids, cells = this.cells;
    this.longChars += longLength(cell) - longLength(cells[b + 3]);
    ids[b + 3] = ids[b + 2]!; cells[b + 3] = cells[b + 2];
    ids[b + 2] = ids[b + 1]!; cells[b + 2] = cells[b + 1];
    ids[b + 1] = ids[b]!; cells[b + 1] = cells[b];
    ids[b] = id; cells[b] = cell;
  }

  /** Double the slots and keep every entry (oldest first, so each set keeps its order). */
  private grow(): void {
    const ids = this.ids, cells = this.cells;
    const n = ids.length * 2;
    this.ids = new Int32Array(n).fill(-1);
    this.cells = new Array<unknown>(n).fill(undefined);
    this.shift--;
    this.evictions = 0;
    this.longChars = 0;
    for (let b = 0; b < ids.length; b += 1 << LOG_WAYS) {
      for (let w = (1 << LOG_WAYS) - 1; w >= 0; w--) if (ids[b + w] !== -1) this.insert(ids[b + w]!, cells[b + w]);
    }
  }
}

/** The length of a long string cell (counted against LONG_CELL_CHARS), else 0. */
function longLength(cell: unknown): number {
  return typeof cell === 'string' && cell.length > MAX_CELL_CHARS ? cell.length : 0;
}
