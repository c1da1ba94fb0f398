/** The datatype limit of http-api.md §2.9: 16,369 non-reserved datatypes; 15 reserved never count. */
import { rdf, XSD } from '../rdf/vocab.js';

export const MAX_DATATYPES = 16_369;

/** The fifteen reserved datatypes (decided: the most common XSD types plus rdf:langString and rdf:JSON). */
export const RESERVED_DATATYPES: ReadonlySet<string> = new Set([
  XSD + 'string', XSD + 'boolean', XSD + 'integer', XSD + 'decimal', XSD + 'double', XSD + 'float',
  XSD + 'long', XSD + 'int', XSD + 'dateTime', XSD + 'date', XSD + 'time', XSD + 'anyURI',
  rdf.langString, rdf.JSON, '@id',
]);
