/**
 * SPARQL Update for the W3C runner: the update parser (src/core/query/sparql/update.ts) and a run
 * of an update request against a real in-memory ledger. The initial dataset goes in with one
 * insert transaction, the request's `sparql-update` TxnRequest goes through `conn.transact` (the
 * one write pipeline, one commit), and the whole resulting dataset is read back from the new Db.
 */
import { Connection } from '../../src/core/ledger/connection.js';
import { parseSparqlUpdate } from '../../src/core/query/sparql/update.js';
import type { Quad } from '../../src/core/rdf/terms.js';
import type { TxnQuad, TxnRequest } from '../../src/core/transact/txn-request.js';
import { openMemoryStorage } from '../../src/storage/index.js';
import { datasetOf, loadDataset } from './engine-adapter.js';
import { readW3c, type DatasetSpec } from './manifest.js';

/** Parse update text as the server would (the file's IRI as base); throws a 400 LedgraphError when invalid. */
export function parseUpdateText(text: string, baseIri: string): TxnRequest {
  return parseSparqlUpdate(text, { baseIri });
}

/** Run the update file `requestIri` on a ledger holding `spec` and return every quad of the result. */
export async function runUpdateOnLedger(requestIri: string, spec: DatasetSpec): Promise<Quad[]> {
  // Parse first: a request the parser rejects must not depend on the ledger.
  const req = parseUpdateText(readW3c(requestIri), requestIri);
  const conn = new Connection(openMemoryStorage());
  try {
    const { ledger } = await conn.create('w3c');
    const initial = loadDataset(spec);
    if (initial.length) await conn.transact(ledger, { kind: 'insert', quads: initial.map(toTxnQuad), meta: [], opts: {} });
    await conn.transact(ledger, req);
    return await datasetOf(await conn.db(ledger));
  } finally {
    await conn.close();
  }
}

function toTxnQuad(q: Quad): TxnQuad {
  if (q.subject.termType === 'Literal') throw new Error('a W3C data file has a literal subject');
  if (q.graph.termType === 'BlankNode') throw new Error('a W3C data file has a blank node graph name');
  return { subject: q.subject, predicate: q.predicate, object: q.object, graph: q.graph };
}
