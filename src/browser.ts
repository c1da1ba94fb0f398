/**
 * The public API of `ledgraph` in a browser (package condition `browser`): the engine over memory
 * or IndexedDB storage, SPARQL and JSON-LD queries, transactions, result writers, errors, terms and
 * the RDF/JS Source / Store. Nothing here imports node:*; Node gets the same plus file storage
 * from ./index.ts.
 */
export { Connection, type ConnectionOptions, type CreateResponse, type DropResponse, type Storage } from './core/ledger/connection.js';
export type { Db } from './core/ledger/db.js';
export type { LedgerInfo, InfoOptions } from './core/ledger/info.js';
export { parseLedgerRef, normalizeLedgerId, type LedgerRef, type TimeSpec } from './core/ledger/ledger-id.js';
export type { ContentStore, NameService, NsRecord, NsChange } from './core/store.js';
export { LedgraphError, isLedgraphError } from './core/errors.js';
export { setInputLimits, inputLimits, DEFAULT_INPUT_LIMITS, type InputLimits } from './core/limits.js';

// Queries
export { runSparql, type SparqlRequest, type SparqlResponse } from './core/query/sparql-service.js';
export { runJsonLdQuery, streamJsonLdSelect, type JsonLdQueryRequest, type JsonLdQueryResponse } from './core/query/jsonld/service.js';
export { collect, type Binding, type QueryResult } from './core/query/results/types.js';
export { toSparqlJson, writeSparqlJson } from './core/query/results/sparql-json.js';
export { toCsv, toTsv } from './core/query/results/sparql-csv-tsv.js';
export { toNTriples, toNQuads, toTurtle, toTriG, toRdfXml } from './core/query/results/rdf-writers.js';
export { toJsonLd } from './core/query/results/jsonld-writer.js';

// Transactions
export { parseJsonLdTxn } from './core/transact/parse-jsonld.js';
export { parseRdfTxn, type RdfContentType } from './core/transact/parse-rdf.js';
export { parseSparqlUpdate } from './core/query/sparql/update.js';
export type { TxnRequest, TxnQuad, TxnOpts } from './core/transact/txn-request.js';
export type { Receipt } from './core/transact/pipeline.js';

// Terms
export { namedNode, blankNode, literal, defaultGraph, type Term, type Quad, type NamedNode, type BlankNode, type Literal } from './core/rdf/terms.js';

// RDF/JS
export { DbSource, LedgerStore } from './core/rdfjs/store.js';

// Browser storage
export { MemoryContentStore, MemoryNameService, openMemoryStorage } from './storage/memory-store.js';
export { IdbContentStore, IdbNameService, openIndexedDbStorage } from './storage/indexeddb-store.js';
