/**
 * Valid documents of every body type the server parses, used as seeds for mutation fuzzing
 * (mutate.ts) and as the fixture data of the fuzz server (the ledgers `fz`, `fzw`, `canary`).
 */
export const FZ = 'http://example.org/fz/';
export const CTX = { ex: FZ, schema: 'http://schema.org/', xsd: 'http://www.w3.org/2001/XMLSchema#' };

/** The fixture loaded into `fz` (read target) and `canary` (never fuzzed; the health probe reads it). */
export const FIXTURE_TTL = `@prefix ex: <${FZ}> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:alice ex:name "Alice" ; ex:age 34 ; ex:knows ex:bob , ex:carol ; ex:nick "al"@en , "ali"@fr .
ex:bob ex:name "Bob" ; ex:age 27 ; ex:knows ex:carol ; ex:score 1.5 ; ex:born "1999-01-02"^^xsd:date .
ex:carol ex:name "Carol" ; ex:age 41 ; ex:tags ( "x" "y" ) ; ex:home [ ex:city "Oslo" ] .
`;

/** The canary probe: this query on `canary` answers exactly CANARY_ANSWER. */
export const CANARY_QUERY = `SELECT ?n WHERE { <${FZ}alice> <${FZ}name> ?n }`;
export const CANARY_ANSWER = 'Alice';

export const SPARQL_QUERIES = [
  `PREFIX ex: <${FZ}> SELECT ?n ?a WHERE { ?p ex:name ?n ; ex:age ?a . FILTER(?a > 30) } ORDER BY ?n`,
  `PREFIX ex: <${FZ}> SELECT (COUNT(*) AS ?c) WHERE { ?s ?p ?o }`,
  `PREFIX ex: <${FZ}> SELECT * WHERE { ?a ex:knows+ ?b OPTIONAL { ?b ex:nick ?k FILTER(LANG(?k) = "en") } }`,
  `PREFIX ex: <${FZ}> ASK { ex:alice ex:knows/ex:knows ex:carol }`,
  `PREFIX ex: <${FZ}> CONSTRUCT { ?s ex:n ?n } WHERE { ?s ex:name ?n }`,
  `PREFIX ex: <${FZ}> DESCRIBE ex:bob`,
  `PREFIX ex: <${FZ}> SELECT ?s (SUM(?a) AS ?t) WHERE { { ?s ex:age ?a } UNION { VALUES (?s ?a) { (ex:x 1) (UNDEF 2) } } } GROUP BY ?s HAVING (SUM(?a) > 1) LIMIT 5 OFFSET 1`,
  `PREFIX ex: <${FZ}> SELECT ?x WHERE { BIND(CONCAT(STR(?y), "-", UCASE("é\\u00e9")) AS ?x) ?s ex:name ?y FILTER(REGEX(?y, "^a", "i")) MINUS { ?s ex:age 27 } }`,
  `PREFIX ex: <${FZ}> SELECT * FROM <fz:main> FROM NAMED <fz:main@t:1> WHERE { GRAPH ?g { ?s ?p ?o } }`,
  `SELECT ?s WHERE { ?s <${FZ}born> ?d FILTER(?d < "2000-01-01"^^<http://www.w3.org/2001/XMLSchema#date> && YEAR(?d) = 1999) }`,
];

export const SPARQL_UPDATES = [
  `PREFIX ex: <${FZ}> INSERT DATA { ex:dan ex:name "Dan" ; ex:age 5 . GRAPH ex:g { ex:dan ex:p "in g"@en } }`,
  `PREFIX ex: <${FZ}> DELETE DATA { ex:dan ex:age 5 }`,
  `PREFIX ex: <${FZ}> DELETE { ?s ex:age ?a } INSERT { ?s ex:age ?b } WHERE { ?s ex:age ?a BIND(?a + 1 AS ?b) }`,
  `PREFIX ex: <${FZ}> DELETE WHERE { ?s ex:nick ?n }`,
  `PREFIX ex: <${FZ}> WITH ex:g INSERT { ?s ex:seen true } WHERE { ?s ex:p ?o } ; CLEAR SILENT GRAPH ex:h`,
  `PREFIX ex: <${FZ}> INSERT { ?a ex:pair ?b } WHERE { ?a ex:knows ?b FILTER NOT EXISTS { ?b ex:knows ?a } }`,
];

export const JSONLD_TXNS: unknown[] = [
  { '@context': CTX, '@graph': [{ '@id': 'ex:erin', 'ex:name': 'Erin', 'ex:age': 22, 'ex:knows': { '@id': 'ex:alice' } }] },
  { '@context': CTX, '@id': 'ex:fay', '@type': 'schema:Person', 'schema:name': { '@value': 'Fay', '@language': 'en' }, 'ex:list': { '@list': [1, 2, { '@id': 'ex:x' }] } },
  { '@context': CTX, where: { '@id': '?s', 'ex:age': '?a' }, delete: { '@id': '?s', 'ex:age': '?a' }, insert: { '@id': '?s', 'ex:age': 1 } },
  { '@context': CTX, '@id': 'ex:gus', 'ex:born': { '@value': '2001-02-03', '@type': 'xsd:date' }, 'ex:child': { 'ex:name': 'nested', 'ex:child': { 'ex:name': 'deeper' } } },
  { '@context': CTX, ledger: 'fzw', insert: [{ '@id': 'ex:h', 'ex:v': [true, 1.25, -7, 'str'] }], opts: { meta: true } },
];

export const JSONLD_QUERIES: unknown[] = [
  { '@context': CTX, select: ['?n', '?a'], where: { '@id': '?p', 'ex:name': '?n', 'ex:age': '?a' }, orderBy: '?n' },
  { '@context': CTX, select: { '?p': ['*'] }, where: { '@id': '?p', 'ex:age': '?a' }, limit: 2 },
  { '@context': CTX, select: ['?n'], where: [{ '@id': '?p', 'ex:name': '?n' }, ['filter', '(> (strlen ?n) 3)']] },
  { '@context': CTX, select: ['?p', '?k'], where: [{ '@id': '?p', 'ex:name': '?n' }, ['optional', { '@id': '?p', 'ex:nick': '?k' }]] },
  { '@context': CTX, select: ['?x'], where: [['union', { '@id': '?x', 'ex:age': 34 }, { '@id': '?x', 'ex:age': 27 }]] },
  { '@context': CTX, select: ['?p', '(count ?k)'], where: { '@id': '?p', 'ex:knows': '?k' }, groupBy: '?p' },
  { '@context': CTX, selectOne: { 'ex:alice': ['*', { 'ex:knows': ['ex:name'] }] }, depth: 2 },
  { '@context': CTX, select: ['?a'], values: ['?a', [34, 41]], where: { '@id': '?p', 'ex:age': '?a' }, from: 'fz:main' },
];

export const TURTLE = [
  FIXTURE_TTL,
  `@prefix ex: <${FZ}> . @base <${FZ}> . <a> ex:p """multi
line""" , 'single' , "esc\\t\\u00e9\\U0001F600" ; ex:q -1.5e3 , +2 , .5 , true .`,
  `PREFIX ex: <${FZ}>\nex:s ex:p [ ex:q ( 1 2 ( 3 ) ) ; ex:r _:b1 ] . _:b1 ex:p ex:s .`,
];

export const TRIG = [
  `@prefix ex: <${FZ}> . ex:g { ex:a ex:p 1 . } { ex:b ex:p "default" } GRAPH ex:h { ex:c ex:p ex:a }`,
  `PREFIX ex: <${FZ}>\nex:g2 { ex:a ex:p "named" ; ex:q ( 1 [ ex:r 2 ] ) }`,
  `PREFIX ex: <${FZ}>\n_:g { ex:a ex:p "blank graph: refused" }`,
];

export const NTRIPLES = [
  `<${FZ}a> <${FZ}p> "x"@en .\n<${FZ}a> <${FZ}q> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .\n_:b <${FZ}p> <${FZ}a> .\n`,
  `<${FZ}a> <${FZ}p> "tab\\there \\u00e9 \\U0001F600" . # comment\n`,
];

export const NQUADS = [
  `<${FZ}a> <${FZ}p> "x" <${FZ}g> .\n<${FZ}a> <${FZ}p> _:o .\n_:s <${FZ}p> "y"@fr <${FZ}h> .\n`,
];
