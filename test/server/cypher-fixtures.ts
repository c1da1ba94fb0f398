/** The ledger of cypher.md §11 shared by the Cypher HTTP tests (not a test file itself). */

/** The stored default context D of §11. */
export const D = { '@vocab': 'http://example.org/', ex: 'http://example.org/', xsd: 'http://www.w3.org/2001/XMLSchema#' };
/** The t = 1 data of §11 (23 facts). */
export const DATA = `@prefix ex: <http://example.org/> .  @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:ana  a ex:Person ; ex:name "Ana" ; ex:age 34 ; ex:city "Lisbon" ; ex:tags "ops", "admin" ;
        ex:KNOWS ex:ben, ex:caro ; ex:WORKS_AT ex:acme .
ex:ben  a ex:Person ; ex:name "Ben" ; ex:age 27 ; ex:city "Porto" ; ex:KNOWS ex:caro ; ex:WORKS_AT ex:acme .
ex:caro a ex:Person, ex:Admin ; ex:name "Caro" ; ex:age 41 ; ex:city "Lisbon" .
ex:acme a ex:Company ; ex:name "Acme" ; ex:founded "1999-05-01"^^xsd:date .`;
