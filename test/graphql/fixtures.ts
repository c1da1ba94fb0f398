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
