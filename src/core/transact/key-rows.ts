/**
 * The statements of a plain N-Triples insert as the byte reader gives them (rdf/ntriples-bytes.ts):
 * each distinct spelling's dictionary key once, and per statement three numbers into those keys —
 * no term object, quad or key string per statement. A large insert stages straight from these
 * (stage-runs.ts `insertKeyRows`); every other path reads the same statements as quads
 * (`quadsOfRows`), which are exactly the ones the line reader made before (docs/bulk-load.md).
 */
import type { IdSink } from '../rdf/ntriples-bytes.js';
import { defaultGraph, keyToTerm, type BlankNode, type NamedNode, type Term } from '../rdf/terms.js';
import type { KeyRows, TxnQuad, TxnRequest } from './txn-request.js';

export type { KeyRows };

/** Collects a default-graph document read by the byte reader; `check` may refuse a key (it throws). */
export class KeyRowsSink implements IdSink {
  readonly keys: string[] = [];
  n = 0;
  private s = new Int32Array(1 << 12);
  private p = new Int32Array(1 << 12);
  private o = new Int32Array(1 << 12);
  private readonly byKey = new Map<string, number>();

  constructor(private readonly check: (key: string) => void = () => {}) {}

  fresh(key: string): number {
    this.check(key);
    return this.keys.push(key) - 1;
  }

  keyId(key: string): number {
    let id = this.byKey.get(key);
    if (id === undefined) this.byKey.set(key, (id = this.fresh(key)));
    return id;
  }

  graphId(): number {
    throw new Error('a default-graph document has no graph names');
  }

  row(g: number, s: number, p: number, o: number): void {
    if (g !== -1) this.graphId();
    if (this.n === this.s.length) {
      const grow = (a: Int32Array) => { const x = new Int32Array(a.length * 2); x.set(a); return x; };
      this.s = grow(this.s); this.p = grow(this.p); this.o = grow(this.o);
    }
    const i = this.n++;
    this.s[i] = s; this.p[i] = p; this.o[i] = o;
  }

  /** What was read. */
  rows(): KeyRows {
    return { n: this.n, keys: this.keys, s: this.s.subarray(0, this.n), p: this.p.subarray(0, this.n), o: this.o.subarray(0, this.n) };
  }
}

/** The statements as the transaction's quads (one term object per distinct key, shared). */
export function quadsOfRows(rows: KeyRows): TxnQuad[] {
  const terms = new Array<Term | undefined>(rows.keys.length);
  const term = (id: number): Term => (terms[id] ??= keyToTerm(rows.keys[id]!));
  const out = new Array<TxnQuad>(rows.n);
  for (let i = 0; i < rows.n; i++) {
    out[i] = { subject: term(rows.s[i]!) as NamedNode | BlankNode, predicate: term(rows.p[i]!) as NamedNode, object: term(rows.o[i]!), graph: defaultGraph };
  }
  return out;
}

/** An insert request of key rows whose `quads` are made only when something reads them. */
export function keyRowsInsert(rows: KeyRows, mode: 'insert' | 'upsert'): TxnRequest {
  // An upsert reads its quads anyway: only an insert carries the rows.
  if (mode === 'upsert') return { kind: 'upsert', quads: quadsOfRows(rows), meta: [], opts: {} };
  let quads: TxnQuad[] | null = null;
  const req = { kind: 'insert', rows, meta: [], opts: {} } as unknown as TxnRequest;
  Object.defineProperty(req, 'quads', { get: () => (quads ??= quadsOfRows(rows)), enumerable: true, configurable: true });
  return req;
}

/** `req` with other options, keeping a lazy `quads` lazy (a spread would make the quads). */
export function withOpts(req: TxnRequest, opts: TxnRequest['opts']): TxnRequest {
  const out = Object.defineProperties({}, Object.getOwnPropertyDescriptors(req)) as TxnRequest;
  Object.defineProperty(out, 'opts', { value: opts, enumerable: true, writable: true, configurable: true });
  return out;
}
