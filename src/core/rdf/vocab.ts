/** Namespace IRIs and well-known terms used across the engine. */
export const XSD = 'http://www.w3.org/2001/XMLSchema#';
export const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
export const RDFS = 'http://www.w3.org/2000/01/rdf-schema#';
export const OWL = 'http://www.w3.org/2002/07/owl#';
export const SHACL = 'http://www.w3.org/ns/shacl#';
/** Ledgraph's own vocabulary (`f:`). */
export const F = 'https://ns.ledgraph.dev/';

export const xsd = {
  string: XSD + 'string',
  boolean: XSD + 'boolean',
  integer: XSD + 'integer',
  decimal: XSD + 'decimal',
  double: XSD + 'double',
  float: XSD + 'float',
  long: XSD + 'long',
  int: XSD + 'int',
  short: XSD + 'short',
  byte: XSD + 'byte',
  dateTime: XSD + 'dateTime',
  date: XSD + 'date',
  time: XSD + 'time',
  duration: XSD + 'duration',
  anyURI: XSD + 'anyURI',
} as const;

export const rdf = {
  type: RDF + 'type',
  langString: RDF + 'langString',
  JSON: RDF + 'JSON',
  first: RDF + 'first',
  rest: RDF + 'rest',
  nil: RDF + 'nil',
} as const;

/** Pseudo-datatype of references in flakes and commits. */
export const ID_DATATYPE = '@id';
