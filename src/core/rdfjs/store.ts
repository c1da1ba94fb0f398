/**
 * Ledgraph as an RDF/JS Source and Store (https://rdf.js.org/stream-spec/), so Comunica and other
 * RDF/JS tools run over the engine in process. `DbSource` reads one immutable Db snapshot (any t);
 * `LedgerStore` reads a ledger's head and writes through the one write pipeline (`Connection.
 * transact`): `import` is an insert, `remove` / `removeMatches` a delete, `deleteGraph` a SPARQL
 * DROP — each one commit with its own t. Both answer `countQuads` exactly, which Comunica uses for
 * join planning. Only user data is visible: the default graph and the named graphs, not the
 * ledger's txn-meta and config graphs.
 */
import type * as RDF from '@rdfjs/types';
import { DataFactory } from 'n3';
import { badRequest } from '../errors.js';
import type { Connection } from '../ledger/connection.js';
import type { Db } from '../ledger/db.js';
import { normalizeLedgerId } from '../ledger/ledger-id.js';
import { blankNode, defaultGraph, fromRdfJs, graphNameKey, graphNameTerm, namedNode, type BlankNode, type NamedNode, type Term } from '../rdf/terms.js';
import type { Receipt } from '../transact/pipeline.js';
import type { GraphName, TemplateQuad, TxnQuad } from '../transact/txn-request.js';
import { withDictRetry } from '../index/dict.js';
import { Emitter } from './emitter.js';
import { toRdfJs } from './terms.js';
import { PullStream } from './pull-stream.js';

type Pattern = [RDF.Term | null | undefined, RDF.Term | null | undefined, RDF.Term | null | undefined, RDF.Term | null | undefined];

/** An RDF/JS pattern position: unbound (absent, null or a variable) or a term of ours. */
function bound(t: RDF.Term | null | undefined): Term | null {
  if (!t || t.termType === 'Variable') return null;
  if (t.termType === 'DefaultGraph' || t.termType === 'Quad') throw badRequest(`an RDF/JS ${t.termType} cannot be a subject, predicate or object here`);
  return fromRdfJs(t) as Term;
}

/** Scan patterns of ids plus the graph of each: null when a bound term is not in the snapshot (no match). */
function scansOf(db: Db, [s, p, o, g]: Pattern): { g: number; graph: RDF.Quad_Graph; s?: number; p?: number; o?: number }[] | null {
  const ids: (number | undefined)[] = [];
  for (const t of [s, p, o]) {
    const term = bound(t);
    if (term === null) { ids.push(undefined); continue; }
    const id = db.dict.idOf(term);
    if (id === undefined) return null;
    ids.push(id);
  }
  const graphs: [number, RDF.Quad_Graph][] = [];
  if (!g || g.termType === 'Variable') {
    graphs.push([0, DataFactory.defaultGraph()]);
    for (const id of db.namedGraphs()) graphs.push([id, rdfJsGraph(db.graphIri(id)!)]);
  } else if (g.termType === 'DefaultGraph') {
    graphs.push([0, DataFactory.defaultGraph()]);
  } else if (g.termType === 'NamedNode' || g.termType === 'BlankNode') {
    const key = graphNameKey(g);
    const id = db.graphId(key);
    if (id === undefined || !db.namedGraphs().includes(id)) return null;
    graphs.push([id, rdfJsGraph(key)]);
  } else {
    return null;
  }
  return graphs.map(([gid, graph]) => {
    const scan: { g: number; graph: RDF.Quad_Graph; s?: number; p?: number; o?: number } = { g: gid, graph };
    if (ids[0] !== undefined) scan.s = ids[0];
    if (ids[1] !== undefined) scan.p = ids[1];
    if (ids[2] !== undefined) scan.o = ids[2];
    return scan;
  });
}

/** The quads of a snapshot matching a pattern, one chunk per scanned batch. */
async function* matchChunks(db: Db | Promise<Db>, pattern: Pattern): AsyncIterable<RDF.Quad[]> {
  const snap = await db;
  const scans = await withDictRetry(() => scansOf(snap, pattern));
  if (!scans) return;
  const terms = new Map<number, RDF.NamedNode | RDF.BlankNode | RDF.Literal>();
  const term = (id: number) => {
    let t = terms.get(id);
    if (!t) terms.set(id, (t = toRdfJs(snap.dict.term(id))));
    return t;
  };
  for (const { graph, ...scan } of scans) {
    for await (const b of snap.scan(scan)) {
      const out: RDF.Quad[] = new Array(b.n);
      for (let k = 0; k < b.n; k++) {
        out[k] = DataFactory.quad(term(b.s[k]!) as RDF.Quad_Subject, term(b.p[k]!) as RDF.Quad_Predicate, term(b.o[k]!) as RDF.Quad_Object, graph);
      }
      yield out;
    }
  }
}

/** Exact number of facts of a snapshot matching a pattern. */
async function countMatches(db: Db, pattern: Pattern): Promise<number> {
  const scans = scansOf(db, pattern);
  if (!scans) return 0;
  let n = 0;
  for (const { graph: _graph, ...scan } of scans) for await (const b of db.scan(scan)) n += b.n;
  return n;
}

/** RDF/JS Source over one Db snapshot: what the ledger held at that snapshot's t. */
export class DbSource implements RDF.Source {
  constructor(readonly db: Db) {}

  /** Quads matching the pattern (absent, null and variables are wildcards). */
  match(subject?: RDF.Term | null, predicate?: RDF.Term | null, object?: RDF.Term | null, graph?: RDF.Term | null): PullStream<RDF.Quad> {
    return new PullStream(matchChunks(this.db, [subject, predicate, object, graph]));
  }

  /** Exact number of quads `match` would return. */
  countQuads(subject?: RDF.Term | null, predicate?: RDF.Term | null, object?: RDF.Term | null, graph?: RDF.Term | null): Promise<number> {
    return countMatches(this.db, [subject, predicate, object, graph]);
  }
}

/** A graph position of a write: the default graph, a named graph IRI or a blank graph name. */
function graphRef(g: RDF.Term): GraphName {
  if (g.termType === 'DefaultGraph') return defaultGraph;
  if (g.termType === 'NamedNode') return namedNode(g.value);
  if (g.termType === 'BlankNode') return blankNode(g.value);
  throw badRequest(`a quad's graph must be the default graph, an IRI or a blank node, not a ${g.termType}`);
}

/** The RDF/JS term of a graph table key. */
function rdfJsGraph(key: string): RDF.Quad_Graph {
  const t = graphNameTerm(key);
  return t.termType === 'BlankNode' ? DataFactory.blankNode(t.value) : DataFactory.namedNode(t.value);
}

/** An RDF/JS quad as a ground statement of a write. */
function txnQuad(q: RDF.Quad): TxnQuad {
  const s = bound(q.subject), p = bound(q.predicate), o = bound(q.object);
  if (!s || s.termType === 'Literal') throw badRequest('a quad\'s subject must be an IRI or a blank node');
  if (!p || p.termType !== 'NamedNode') throw badRequest('a quad\'s predicate must be an IRI');
  if (!o) throw badRequest('a quad\'s object must be an IRI, a blank node or a literal');
  return { subject: s as NamedNode | BlankNode, predicate: p, object: o, graph: graphRef(q.graph) };
}

/** Collect an RDF/JS stream's quads (`data` events until `end`). */
function drain(stream: RDF.Stream): Promise<RDF.Quad[]> {
  return new Promise((resolve, reject) => {
    const quads: RDF.Quad[] = [];
    stream.on('data', (q: RDF.Quad) => quads.push(q));
    stream.once('end', () => resolve(quads));
    stream.once('error', reject);
  });
}

/** An EventEmitter that ends when `work` commits (the receipt is its `commit` event) or errors. */
function settle(work: Promise<Receipt | null>): Emitter {
  const out = new Emitter();
  work.then((receipt) => {
    if (receipt) out.emit('commit', receipt);
    out.emit('end');
  }, (e: unknown) => { out.emit('error', e instanceof Error ? e : new Error(String(e))); });
  return out;
}

/**
 * RDF/JS Store over a ledger: reads see the head at the time of the call (so a read after
 * `import` sees it), writes commit through the write pipeline. For a past t, use `at(t)`.
 */
export class LedgerStore implements RDF.Store {
  readonly ledgerId: string;

  constructor(readonly conn: Connection, ledgerId: string) {
    this.ledgerId = normalizeLedgerId(ledgerId);
  }

  /** A read-only Source over this ledger at transaction time `t`. */
  async at(t: number): Promise<DbSource> {
    return new DbSource(await this.conn.db(`${this.ledgerId}@t:${t}`));
  }

  private head(): Promise<Db> {
    return this.conn.db(this.ledgerId);
  }

  /** Quads at the head matching the pattern. */
  match(subject?: RDF.Term | null, predicate?: RDF.Term | null, object?: RDF.Term | null, graph?: RDF.Term | null): PullStream<RDF.Quad> {
    return new PullStream(matchChunks(this.head(), [subject, predicate, object, graph]));
  }

  /** Exact number of quads at the head matching the pattern. */
  async countQuads(subject?: RDF.Term | null, predicate?: RDF.Term | null, object?: RDF.Term | null, graph?: RDF.Term | null): Promise<number> {
    return countMatches(await this.head(), [subject, predicate, object, graph]);
  }

  /**
   * Insert every quad of the stream in one commit. Blank nodes are scoped to the stream: each
   * label becomes a new node (as for any insert). Emits `commit` (the receipt), then `end`.
   */
  import(stream: RDF.Stream): Emitter {
    return settle(drain(stream).then(async (quads) => {
      if (quads.length === 0) return null;
      return this.conn.transact(this.ledgerId, { kind: 'insert', quads: quads.map(txnQuad), meta: [], opts: {} });
    }));
  }

  /** Retract every quad of the stream in one commit; blank nodes name stored nodes (as `match` returns them). */
  remove(stream: RDF.Stream): Emitter {
    return settle(drain(stream).then((quads) => this.retract(quads)));
  }

  /** Retract every quad matching the pattern at the head, in one commit. */
  removeMatches(subject?: RDF.Term | null, predicate?: RDF.Term | null, object?: RDF.Term | null, graph?: RDF.Term | null): Emitter {
    return settle(drain(this.match(subject, predicate, object, graph)).then((quads) => this.retract(quads)));
  }

  /** Drop a named graph, one named by a blank node, or clear the default graph, in one commit. */
  deleteGraph(graph: RDF.Quad_Graph | string): Emitter {
    // SPARQL DROP names graphs by IRI; a blank-named graph goes by its quads.
    if (typeof graph !== 'string' && graph.termType === 'BlankNode') return this.removeMatches(null, null, null, graph);
    return settle((async () => {
      const g = typeof graph === 'string' ? DataFactory.namedNode(graph) : graph;
      const target = g.termType === 'DefaultGraph' ? 'default' as const : g.termType === 'NamedNode' ? namedNode(g.value) : null;
      if (!target) throw badRequest(`deleteGraph needs an IRI or the default graph, not a ${g.termType}`);
      return this.conn.transact(this.ledgerId, { kind: 'sparql-update', ops: [{ type: 'drop', target, silent: true }], meta: [], opts: {} });
    })());
  }

  private async retract(quads: RDF.Quad[]): Promise<Receipt | null> {
    if (quads.length === 0) return null;
    // Delete templates name stored blank nodes by label; with no WHERE they are instantiated once.
    const del: TemplateQuad[] = quads.map(txnQuad);
    return this.conn.transact(this.ledgerId, { kind: 'update', where: null, delete: del, insert: [], meta: [], opts: {} });
  }
}
