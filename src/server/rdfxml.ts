/**
 * RDF/XML request bodies (graph store PUT/POST, insert) read with rdfxml-streaming-parser, the
 * maintained RDF/JS parser; the quads then take the same path to a TxnRequest as Turtle does.
 * Server-only: the parser runs on Node streams.
 */
import { RdfXmlParser } from 'rdfxml-streaming-parser';
import { badRequest } from '../core/errors.js';
import { capMessage } from '../core/excerpt.js';
import { txnFromRdfJs, type RdfJsQuad } from '../core/transact/parse-rdf.js';
import type { TxnRequest } from '../core/transact/txn-request.js';
import { checkXmlDepth } from './xml-depth.js';

/** The RDF/XML media type. */
export const RDF_XML = 'application/rdf+xml';

/** Parse an RDF/XML document for insert (or upsert); syntax errors are 400 naming the problem. */
export async function parseRdfXmlTxn(text: string, mode: 'insert' | 'upsert', baseIri?: string): Promise<TxnRequest> {
  checkXmlDepth(text);
  const quads: RdfJsQuad[] = [];
  await new Promise<void>((resolve, reject) => {
    const parser = new RdfXmlParser(baseIri ? { baseIRI: baseIri } : {});
    parser.on('data', (q: RdfJsQuad) => quads.push(q));
    parser.on('error', (e: unknown) => reject(badRequest(`invalid RDF/XML: ${capMessage(e instanceof Error ? e.message : String(e))}`)));
    parser.on('end', () => resolve());
    parser.write(text);
    parser.end();
  });
  return txnFromRdfJs(quads, mode, baseIri);
}
