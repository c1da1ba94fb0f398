/** Conversion of the engine's terms to RDF/JS terms, shared by the RDF/JS adapters. */
import type * as RDF from '@rdfjs/types';
import { DataFactory } from 'n3';
import type { Term } from '../rdf/terms.js';

/** Our term as an RDF/JS term (n3's DataFactory: terms with `equals`). */
export function toRdfJs(t: Term): RDF.NamedNode | RDF.BlankNode | RDF.Literal {
  switch (t.termType) {
    case 'NamedNode': return DataFactory.namedNode(t.value);
    case 'BlankNode': return DataFactory.blankNode(t.value);
    case 'Literal': return DataFactory.literal(t.value, t.language || DataFactory.namedNode(t.datatype.value));
  }
}
