/**
 * The term dictionary: dense integer ids for term keys (rdf/terms.ts). Append-only, so an id
 * never changes meaning; a Db snapshot can share the dictionary with newer snapshots. Decoded
 * terms are kept in a bounded direct-mapped cache (--term-cache-bytes): a slot per id modulo
 * its size, so a lookup is one mask and compare, and memory stays fixed however many terms the
 * ledger gathers.
 */
import { keyKind, keyToTerm, termKey, type Term } from '../rdf/terms.js';

/** Estimated bytes of one term cache slot: the decoded Term object, its value string, the slot. */
export const TERM_SLOT_BYTES = 128;
/** Default budget of the decoded-term cache of one dictionary. */
export const DEFAULT_TERM_CACHE_BYTES = 8 * 1024 * 1024;
/** Estimated bytes a dictionary entry costs besides its key's characters (map entry, array slot, string header). */
export const DICT_ENTRY_OVERHEAD_BYTES = 64;

const NO_SLOTS = new Int32Array(0);

/**
 * A flat copy of a key. Keys arrive concatenated (termKey) or sliced out of a parsed document, and
 * V8 keeps such a string as a rope or a view that holds its parts or its whole parent alive; the
 * dictionary keeps every key for good, so it stores a flat copy (once per new term).
 */
function flatKey(key: string): string {
  return JSON.parse(JSON.stringify(key)) as string;
}

export class TermDict {
  private readonly ids = new Map<string, number>();
  private readonly keys: string[] = [];
  /** Characters of every key (for the memory estimate). */
  private keyChars = 0;
  /** Decoded-term cache: slotIds[i] is the id whose term slotTerms[i] holds (-1: empty). */
  private slotIds: Int32Array = NO_SLOTS;
  private slotTerms: (Term | undefined)[] = [];
  private mask = -1;
  private readonly maxSlots: number;

  /** `termCacheBytes` bounds the decoded-term cache (at least 16 slots). */
  constructor(termCacheBytes = DEFAULT_TERM_CACHE_BYTES) {
    let slots = 16;
    while (slots * 2 * TERM_SLOT_BYTES <= termCacheBytes) slots *= 2;
    this.maxSlots = slots;
  }

  /** Number of ids assigned. */
  get size(): number { return this.keys.length; }

  /** Estimated bytes held: the dictionary itself (grows with distinct terms) and the term cache (bounded). */
  memory(): { dictBytes: number; termCacheBytes: number; termCacheLimitBytes: number } {
    return {
      dictBytes: this.keyChars + this.keys.length * DICT_ENTRY_OVERHEAD_BYTES,
      termCacheBytes: this.slotIds.length * TERM_SLOT_BYTES,
      termCacheLimitBytes: this.maxSlots * TERM_SLOT_BYTES,
    };
  }

  /** Id of a key, or undefined when the term was never seen. */
  idOfKey(key: string): number | undefined { return this.ids.get(key); }
  /** Id of a term, or undefined. */
  idOf(term: Term): number | undefined { return this.idOfKey(termKey(term)); }

  /** Id of a key, assigning the next id when new. */
  internKey(key: string): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.keys.length;
      const flat = flatKey(key);
      this.keys.push(flat);
      this.ids.set(flat, id);
      this.keyChars += key.length;
    }
    return id;
  }
  /** Id of a term, assigning when new. */
  intern(term: Term): number { return this.internKey(termKey(term)); }

  /** Key of an id. */
  key(id: number): string {
    const k = this.keys[id];
    if (k === undefined) throw new RangeError('unknown term id ' + id);
    return k;
  }
  /** Term of an id (decoded, then cached while its slot is not taken by another id). */
  term(id: number): Term {
    if (id > this.mask && this.mask + 1 < this.maxSlots) this.growCache();
    const slot = id & this.mask;
    if (this.slotIds[slot] === id) return this.slotTerms[slot]!;
    const t = keyToTerm(this.key(id));
    this.slotIds[slot] = id;
    this.slotTerms[slot] = t;
    return t;
  }

  /** Size the cache to the dictionary (a power of two, up to the budget); cached terms are dropped. */
  private growCache(): void {
    let n = 1024;
    while (n < this.keys.length && n < this.maxSlots) n *= 2;
    n = Math.min(n, this.maxSlots);
    this.slotIds = new Int32Array(n).fill(-1);
    this.slotTerms = new Array<Term | undefined>(n);
    this.mask = n - 1;
  }
  /** 0 IRI, 1 blank node, 2 literal. */
  kind(id: number): 0 | 1 | 2 { return keyKind(this.key(id)); }

  /** Keys from id `from` (inclusive) to `to` (exclusive), for persisting dictionary chunks. */
  slice(from: number, to = this.keys.length): string[] { return this.keys.slice(from, to); }

  /** Drop ids >= size (undo of a failed apply; only safe before anything references them). */
  truncate(size: number): void {
    for (let i = this.keys.length - 1; i >= size; i--) {
      this.ids.delete(this.keys[i]!);
      this.keyChars -= this.keys[i]!.length;
    }
    this.keys.length = size;
    for (let i = 0; i < this.slotIds.length; i++) if (this.slotIds[i]! >= size) { this.slotIds[i] = -1; this.slotTerms[i] = undefined; }
  }
}
