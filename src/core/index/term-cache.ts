/**
 * The decoded-term cache of a dictionary: a bounded 4-way set-associative cache from term id to
 * Term. The set is chosen by a multiply-shift hash of the id, so the hit rate does not depend on
 * how ids are spaced (after history churn the live terms' ids are scattered among replaced ones,
 * and a direct-mapped `id & mask` slot made them collide). A hit allocates nothing; a miss inserts
 * at the set's first way and shifts the others down (the oldest insert is evicted).
 *
 * A slot may also hold a text derived from its term (the SPARQL JSON writer's fragment for it),
 * evicted with the term; those texts are bounded by `maxTextChars` in total.
 */
import type { Term } from '../rdf/terms.js';
import { setBase, wayOf } from '../util/set-assoc.js';

/** Ways per set. */
export const TERM_CACHE_WAYS = 4;
const LOG_WAYS = 2;
const EMPTY = new Int32Array(0);

export class TermCache {
  /** ids[i] is the id whose term terms[i] holds (-1: empty); set s occupies [s·WAYS, s·WAYS + WAYS). */
  private ids: Int32Array = EMPTY;
  private terms: (Term | undefined)[] = [];
  /** texts[i]: the derived text of the term in slot i, if computed. */
  private texts: (string | undefined)[] = [];
  private textChars = 0;
  /** 32 − log2(sets): the multiply-shift hash keeps the top bits. */
  private shift = 32;
  /** Ids below this are known to the sizing (the cache grows towards the budget as the dictionary does). */
  private sizedFor = 0;

  /** `maxSlots` (a power of two, at least TERM_CACHE_WAYS) bounds the slots. */
  constructor(readonly maxSlots: number, readonly maxTextChars = 0) {
    if (maxSlots < TERM_CACHE_WAYS || (maxSlots & (maxSlots - 1)) !== 0) throw new RangeError('term cache slots must be a power of two >= ' + TERM_CACHE_WAYS);
  }

  /** Slots allocated now. */
  get slots(): number { return this.ids.length; }

  /** The cached term of `id`, or undefined. `dictSize` lets the cache grow with the dictionary. */
  get(id: number, dictSize: number): Term | undefined {
    if (id >= this.sizedFor && this.ids.length < this.maxSlots) this.grow(dictSize);
    const i = wayOf(this.ids, setBase(id, this.shift), id);
    return i < 0 ? undefined : this.terms[i];
  }

  /** Cache the term of `id` (call after a `get` miss for the same id). */
  put(id: number, t: Term): void {
    if (this.ids.length === 0) return;
    const b = setBase(id, this.shift);
    const ids = this.ids, terms = this.terms, texts = this.texts;
    const evicted = texts[b + 3];
    if (evicted !== undefined) this.textChars -= evicted.length;
    ids[b + 3] = ids[b + 2]!; terms[b + 3] = terms[b + 2]; texts[b + 3] = texts[b + 2];
    ids[b + 2] = ids[b + 1]!; terms[b + 2] = terms[b + 1]; texts[b + 2] = texts[b + 1];
    ids[b + 1] = ids[b]!; terms[b + 1] = terms[b]; texts[b + 1] = texts[b];
    ids[b] = id; terms[b] = t; texts[b] = undefined;
  }

  /** The derived text cached beside the term of `id`, or undefined. */
  text(id: number): string | undefined {
    const i = this.slotOf(id);
    return i < 0 ? undefined : this.texts[i];
  }

  /** Keep `text` beside the cached term of `id` (nothing when the term is not cached or the text budget is spent). */
  putText(id: number, text: string): void {
    const i = this.slotOf(id);
    if (i < 0 || this.texts[i] !== undefined || this.textChars + text.length > this.maxTextChars) return;
    this.texts[i] = text;
    this.textChars += text.length;
  }

  /** Characters of the derived texts held. */
  get textLength(): number { return this.textChars; }

  private slotOf(id: number): number {
    return this.ids.length === 0 ? -1 : wayOf(this.ids, setBase(id, this.shift), id);
  }

  /** Forget every id >= size (the dictionary was truncated). */
  dropFrom(size: number): void {
    for (let i = 0; i < this.ids.length; i++) {
      if (this.ids[i]! < size) continue;
      this.ids[i] = -1;
      this.terms[i] = undefined;
      const x = this.texts[i];
      if (x !== undefined) { this.textChars -= x.length; this.texts[i] = undefined; }
    }
  }

  /** Size the cache to the dictionary (a power of two, up to the budget); cached terms are dropped. */
  private grow(dictSize: number): void {
    let n = 1024;
    while (n < dictSize && n < this.maxSlots) n *= 2;
    n = Math.min(n, this.maxSlots);
    this.sizedFor = n >= this.maxSlots ? Infinity : n;
    if (n === this.ids.length) return;
    this.ids = new Int32Array(n).fill(-1);
    this.terms = new Array<Term | undefined>(n);
    this.texts = new Array<string | undefined>(n);
    this.textChars = 0;
    this.shift = 32 - (Math.log2(n) - LOG_WAYS);
  }
}
