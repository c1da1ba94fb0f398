/** The §16 worked-example ledger shared by the GraphQL tests (not a test file itself). */
export const PEOPLE_TTL = `@prefix ex: <http://example.org/> .  @prefix schema: <http://schema.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:ana  a ex:Person ; schema:name "Ana" ; ex:age 34 ; ex:level "senior" ; ex:tags "ops", "admin" ;
        ex:knows ex:ben, ex:caro ; ex:site <http://ana.example/> .
ex:ben  a ex:Person ; schema:name "Ben" ; ex:age 27 ; ex:level "junior" ; ex:knows ex:caro ;
        ex:motto "Move fast"@en, "Anda depressa"@pt ; ex:site "ben.example" .
ex:caro a ex:Person ; schema:name "Caro" ; ex:age 41 ; ex:motto "Carpe diem"@la .
ex:acme a ex:Company ; schema:name "Acme" ; ex:founded "1999-05-01"^^xsd:date ;
        ex:revenue "1250000.5"^^xsd:decimal ; ex:employs ex:ana, ex:ben .
`;
export const PEOPLE_CTX = { ex: 'http://example.org/', schema: 'http://schema.org/', xsd: 'http://www.w3.org/2001/XMLSchema#' };
/** The §16 shapes (t = 2 of the worked example), also validated by the write pipeline's SHACL tests. */
export const SHAPES_TTL = `@prefix ex: <http://example.org/> .  @prefix schema: <http://schema.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> . @prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:PersonShape a sh:NodeShape ; sh:targetClass ex:Person ; rdfs:comment "Someone known to the ledger." ;
  sh:property [ sh:path schema:name ; sh:datatype xsd:string ; sh:minCount 1 ; sh:maxCount 1 ; sh:description "Display name." ] ,
    [ sh:path ex:age ; sh:datatype xsd:integer ; sh:maxCount 1 ] ,
    [ sh:path ex:level ; sh:in ( "junior" "senior" ) ; sh:maxCount 1 ] ,
    [ sh:path ex:knows ; sh:class ex:Person ] ,
    [ sh:path [ sh:inversePath ex:employs ] ; sh:name "employer" ; sh:class ex:Company ] .
ex:CompanyShape a sh:NodeShape ; sh:targetClass ex:Company ; sh:closed true ; sh:ignoredProperties ( rdf:type ) ;
  sh:property [ sh:path schema:name ; sh:datatype xsd:string ; sh:minCount 1 ; sh:maxCount 1 ] ,
    [ sh:path ex:founded ; sh:datatype xsd:date ; sh:maxCount 1 ] ,
    [ sh:path ex:revenue ; sh:datatype xsd:decimal ; sh:maxCount 1 ] ,
    [ sh:path ex:employs ; sh:class ex:Person ] .
`;
