/** The datatype limit of http-api.md §2.9: 16,369 non-reserved datatypes; 15 reserved never count. */
import { datatypeLimitExceeded } from '../errors.js';
import { rdf, XSD } from '../rdf/vocab.js';

export const MAX_DATATYPES = 16_369;

/** The fifteen reserved datatypes (decided: the most common XSD types plus rdf:langString and rdf:JSON). */
export const RESERVED_DATATYPES: ReadonlySet<string> = new Set([
  XSD + 'string', XSD + 'boolean', XSD + 'integer', XSD + 'decimal', XSD + 'double', XSD + 'float',
  XSD + 'long', XSD + 'int', XSD + 'dateTime', XSD + 'date', XSD + 'time', XSD + 'anyURI',
  rdf.langString, rdf.JSON, '@id',
]);

/** The new non-reserved datatypes of a write; refuses the write when they would pass the limit. */
export function checkDatatypeLimit(known: ReadonlySet<string>, objects: { termType: string; datatype?: { value: string } }[]): Set<string> {
  const names: string[] = [];
  for (const o of objects) if (o.termType === 'Literal') names.push(o.datatype!.value);
  return checkDatatypeNames(known, names);
}

/** checkDatatypeLimit for the datatype IRIs of a write's literals (repeats allowed). */
export function checkDatatypeNames(known: ReadonlySet<string>, datatypes: Iterable<string>): Set<string> {
  const fresh = new Set<string>();
  for (const dt of datatypes) if (!RESERVED_DATATYPES.has(dt) && !known.has(dt)) fresh.add(dt);
  if (fresh.size > 0 && known.size + fresh.size > MAX_DATATYPES) {
    throw datatypeLimitExceeded(`this write would use ${known.size + fresh.size} distinct non-reserved datatypes; a ledger allows at most ${MAX_DATATYPES}`);
  }
  return fresh;
}
