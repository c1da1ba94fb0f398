/**
 * Statements of one bulk-load document as batches of load-local ids (bulk-load.ts): the reader
 * (bulk-sources.ts) hands keys or ids to a BatchReader, which scopes blank nodes, numbers each
 * distinct key (or spelling) once for the whole document and emits rows of those numbers with the
 * keys first seen in the batch. The consumer interns each distinct key once into the ledger's dictionary, instead of
 * once per occurrence. The same code runs inline (the browser, POST /load) or in a worker thread
 * (src/server/load-threads.ts), which posts the batches as they are: a key array and one
 * transferable Int32Array.
 */
import { flatKey } from '../index/dict.js';
import type { IdSink } from '../rdf/ntriples-bytes.js';
import { ANON_MARK, readDocument, type BulkFormat, type StatementSink } from './bulk-sources.js';

/** Statements read since the previous batch. */
export interface StatementBatch {
  /** Keys first seen in this batch, in id order (the document's key ids continue from batch to batch). */
  keys: string[];
  /** Graph names first seen in this batch, likewise numbered. */
  graphs: string[];
  /** Four Int32 per statement: graph number (-1: the default graph), subject, predicate and object key ids. */
  rows: Int32Array;
}

/** Statements per batch (a worker posts one batch per this many). */
export const BATCH_ROWS = 1 << 15;

/**
 * A statement sink numbering keys. `scope` labels the document's blank nodes (`_:x` becomes
 * `_:<scope>-x`, an anonymous node `_:<scope>a-…`), as a transaction's are. The byte reader
 * (N-Triples, N-Quads) numbers each distinct spelling itself (`fresh`); the other readers hand
 * keys, numbered through a map (`add`). A key that comes under two ids is interned once by the
 * consumer either way.
 */
export class BatchReader implements StatementSink, IdSink {
  private readonly ids = new Map<string, number>();
  private readonly graphIds = new Map<string, number>();
  private count = 0;
  private keys: string[] = [];
  private graphs: string[] = [];
  private rows: Int32Array;
  private n = 0;
  private lastS = '';
  private lastSId = -1;
  private readonly preds = new Map<string, number>();

  constructor(private readonly scope: string, private readonly emit: (b: StatementBatch) => void, private readonly batchRows = BATCH_ROWS) {
    this.rows = new Int32Array(batchRows * 4);
  }

  private bnode(key: string): string {
    if (key.charCodeAt(0) !== 95 || key.charCodeAt(1) !== 58) return key;
    return key.charCodeAt(2) === 0 ? `_:${this.scope}a-${key.slice(2 + ANON_MARK.length)}` : `_:${this.scope}-${key.slice(2)}`;
  }

  fresh(key: string): number {
    this.keys.push(this.bnode(key));
    return this.count++;
  }

  keyId(key: string): number {
    const scoped = this.bnode(key);
    let id = this.ids.get(scoped);
    if (id === undefined) {
      id = this.count++;
      // A flat copy, so the key keeps neither the chunk it was sliced from nor a parent string alive
      // (the dictionary stores it as it is).
      const flat = flatKey(scoped);
      this.ids.set(flat, id);
      this.keys.push(flat);
    }
    return id;
  }

  graphId(key: string): number {
    const iri = this.bnode(key); // a blank graph name gets the same label as a blank subject
    let g = this.graphIds.get(iri);
    if (g === undefined) { g = this.graphIds.size; this.graphIds.set(iri, g); this.graphs.push(iri); }
    return g;
  }

  row(g: number, s: number, p: number, o: number): void {
    const r = this.rows, j = this.n++ * 4;
    r[j] = g; r[j + 1] = s; r[j + 2] = p; r[j + 3] = o;
    if (this.n === this.batchRows) this.flush();
  }

  add(s: string, p: string, o: string, gKey: string | null): void {
    const g = gKey === null ? -1 : this.graphId(gKey);
    // Statements come grouped by subject and predicates are few: cheap caches skip most lookups.
    if (s !== this.lastS) { this.lastS = s; this.lastSId = this.keyId(s); }
    let pid = this.preds.get(p);
    if (pid === undefined) { pid = this.keyId(p); if (this.preds.size < 4096) this.preds.set(p, pid); }
    this.row(g, this.lastSId, pid, this.keyId(o));
  }

  /** Emit what was read since the last batch (nothing when empty). */
  flush(): void {
    if (this.n === 0 && this.keys.length === 0 && this.graphs.length === 0) return;
    const b: StatementBatch = { keys: this.keys, graphs: this.graphs, rows: this.rows.slice(0, this.n * 4) };
    this.keys = [];
    this.graphs = [];
    this.n = 0;
    this.emit(b);
  }
}

/** Read one document into batches (emitted synchronously as they fill; the last when the document ends). */
export async function readBatches(source: AsyncIterable<string | Uint8Array>, format: BulkFormat, base: string | undefined, scope: string, emit: (b: StatementBatch) => void, batchRows = BATCH_ROWS): Promise<void> {
  const reader = new BatchReader(scope, emit, batchRows);
  await readDocument(source, format, base, reader);
  reader.flush();
}
