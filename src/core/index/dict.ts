/**
 * The term dictionary: dense integer ids for term keys (rdf/terms.ts). Append-only, so an id
 * never changes meaning; a Db snapshot can share the dictionary with newer snapshots.
 */
import { keyKind, keyToTerm, termKey, type Term } from '../rdf/terms.js';

export class TermDict {
  private readonly ids = new Map<string, number>();
  private readonly keys: string[] = [];
  private readonly terms: (Term | undefined)[] = [];

  /** Number of ids assigned. */
  get size(): number { return this.keys.length; }

  /** Id of a key, or undefined when the term was never seen. */
  idOfKey(key: string): number | undefined { return this.ids.get(key); }
  /** Id of a term, or undefined. */
  idOf(term: Term): number | undefined { return this.idOfKey(termKey(term)); }

  /** Id of a key, assigning the next id when new. */
  internKey(key: string): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.keys.length;
      this.keys.push(key);
      this.ids.set(key, id);
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
  /** Term of an id (decoded once, then cached). */
  term(id: number): Term {
    let t = this.terms[id];
    if (t === undefined) {
      t = keyToTerm(this.key(id));
      this.terms[id] = t;
    }
    return t;
  }
  /** 0 IRI, 1 blank node, 2 literal. */
  kind(id: number): 0 | 1 | 2 { return keyKind(this.key(id)); }

  /** Keys from id `from` (inclusive) to `to` (exclusive), for persisting dictionary chunks. */
  slice(from: number, to = this.keys.length): string[] { return this.keys.slice(from, to); }

  /** Drop ids >= size (undo of a failed apply; only safe before anything references them). */
  truncate(size: number): void {
    for (let i = this.keys.length - 1; i >= size; i--) this.ids.delete(this.keys[i]!);
    this.keys.length = size;
    if (this.terms.length > size) this.terms.length = size;
  }
}
