/**
 * Term ids of one query: stored terms keep their id in the view's dictionary, so joins compare
 * integers; terms that expressions create (BIND, VALUES, aggregates, graph names) and that the
 * dictionary lacks get per-query overflow ids >= 2^30, which no scan can ever return.
 */
import { isDictMiss, type TermDict } from '../../index/dict.js';
import { termKey, type Term } from '../../rdf/terms.js';

/** First overflow id. */
export const OVERFLOW_BASE = 1 << 30;

export class QueryIds {
  private readonly extra: Term[] = [];
  private readonly extraIds = new Map<string, number>();

  constructor(readonly dict: TermDict) {}

  /** The term of an id. */
  term(id: number): Term {
    if (id < OVERFLOW_BASE) return this.dict.term(id);
    const t = this.extra[id - OVERFLOW_BASE];
    if (!t) throw new RangeError('unknown query term id ' + id);
    return t;
  }

  /** A text derived from the term of an id by `derive`, cached per stored term (TermDict.termText). */
  text(id: number, derive: (t: Term) => string): string {
    return id < OVERFLOW_BASE ? this.dict.termText(id, derive) : derive(this.term(id));
  }

  /** The id of a term: the dictionary's when it has one, else an overflow id (stable per query). */
  intern(t: Term): number {
    const k = termKey(t);
    let id = this.extraIds.get(k);
    if (id !== undefined) return id;
    id = this.dict.idOfKey(k);
    if (id !== undefined) return id;
    id = OVERFLOW_BASE + this.extra.length;
    this.extra.push(t);
    this.extraIds.set(k, id);
    return id;
  }

  /**
   * `intern` for a term whose lookup threw `e`: a dictionary miss loads the page and retries
   * (operators call `intern` in a try and come here on a throw, so the common path stays synchronous).
   */
  async internMissed(t: Term, e: unknown): Promise<number> {
    for (;;) {
      if (!isDictMiss(e)) throw e;
      await e.resolve();
      try { return this.intern(t); } catch (again) { e = again; }
    }
  }

  /** The dictionary id of a term, or undefined when no stored fact can mention it. */
  stored(t: Term): number | undefined {
    return this.dict.idOf(t);
  }

  /** 0 IRI, 1 blank node, 2 literal. */
  kind(id: number): 0 | 1 | 2 {
    if (id < OVERFLOW_BASE) return this.dict.kind(id);
    const t = this.term(id);
    return t.termType === 'NamedNode' ? 0 : t.termType === 'BlankNode' ? 1 : 2;
  }
}
