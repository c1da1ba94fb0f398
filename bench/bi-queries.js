/**
 * The BSBM V3 Business Intelligence use case's eight queries (grouping, aggregation, subqueries and
 * ORDER BY over large joins), written for bench/bsbm/generate.js's data and parameterised from its
 * <data>.params.json like the explore mix (bench/queries.js):
 *
 *   import { loadBiQueries } from './bi-queries.js';
 *   const { bi, mix } = loadBiQueries(params);   // each [{ name, text }]
 *
 * Adaptations to the generator (docs/analytic-queries.md lists them): countries are the
 * generator's IRIs (US, DE); the product type is params.ProductType (a depth-1 type, ≈1/6 of the
 * products at pc=2825); the producer is ProductXYZ's producer; the three consecutive months lie in
 * the generator's review-date window (2007-06-21 .. 2008-06-30); prices are bsbm:USD literals, so
 * `xsd:float(str(?price))` as the spec writes it, except Q4's sums, which are xsd:double: a
 * 32-bit float sum of ≈10,000 prices depends on the order of addition, which SPARQL leaves open
 * (oxigraph and Ledgraph differed in the 6th digit of the ratio). Q2 counts ?feature (the spec's COUNT(?otherFeature)
 * names a variable that is never bound and would count 0 everywhere). Q6's factor is the double 1.5e0, not the
 * decimal 1.5: oxigraph's fixed-point decimals overflow multiplying an 18-digit AVG by 1.5 (an
 * error, so its HAVING dropped every group: 0 rows where SPARQL 1.1 gives 28).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { queriesDir } from './queries.js';

const COUNTRY = 'http://downlode.org/rdf/iso-3166/countries#';

const RATING_UNION = (s) =>
  [1, 2, 3, 4].map((i) => `{ ?review bsbm:rating${i} ${s} . }`).join(' UNION\n      ');

/** Query templates; %Name% are filled by biParams(). */
const TEMPLATES = {
  // Top 10 most discussed product types of products from one country, by reviews from another.
  'BI-Q1': `SELECT ?productType ?reviewCount {
  { SELECT ?productType (COUNT(?review) AS ?reviewCount) {
      ?productType a bsbm:ProductType .
      ?product a ?productType .
      ?product bsbm:producer ?producer .
      ?producer bsbm:country %Country1% .
      ?review bsbm:reviewFor ?product .
      ?review rev:reviewer ?reviewer .
      ?reviewer bsbm:country %Country2% . }
    GROUP BY ?productType }
} ORDER BY DESC(?reviewCount) ?productType LIMIT 10`,

  // Top 10 products most similar to a product, by the number of features they share.
  'BI-Q2': `SELECT ?otherProduct ?sameFeatures {
  ?otherProduct a bsbm:Product .
  FILTER(?otherProduct != %Product%)
  { SELECT ?otherProduct (COUNT(?feature) AS ?sameFeatures) {
      %Product% bsbm:productFeature ?feature .
      ?otherProduct bsbm:productFeature ?feature . }
    GROUP BY ?otherProduct }
} ORDER BY DESC(?sameFeatures) ?otherProduct LIMIT 10`,

  // Products with the largest increase of interest (review counts) from one month to the next.
  'BI-Q3': `SELECT ?product (xsd:float(?monthCount)/?monthBeforeCount AS ?ratio) {
  { SELECT ?product (COUNT(?review) AS ?monthCount) {
      ?review bsbm:reviewFor ?product .
      ?review dc:date ?date .
      FILTER(?date >= %Month1% && ?date < %Month2%) }
    GROUP BY ?product }
  { SELECT ?product (COUNT(?review) AS ?monthBeforeCount) {
      ?review bsbm:reviewFor ?product .
      ?review dc:date ?date .
      FILTER(?date >= %Month0% && ?date < %Month1%) }
    GROUP BY ?product
    HAVING (COUNT(?review) > 0) }
} ORDER BY DESC(xsd:float(?monthCount) / ?monthBeforeCount) ?product LIMIT 10`,

  // The feature with the highest ratio between the price with it and the price without it.
  'BI-Q4': `SELECT ?feature ((?sumF*(?countTotal-?countF))/(?countF*(?sumTotal-?sumF)) AS ?priceRatio) {
  { SELECT (COUNT(?price) AS ?countTotal) (SUM(xsd:double(str(?price))) AS ?sumTotal) {
      ?product a %ProductType% .
      ?offer bsbm:product ?product ;
             bsbm:price ?price . } }
  { SELECT ?feature (COUNT(?price2) AS ?countF) (SUM(xsd:double(str(?price2))) AS ?sumF) {
      ?product2 a %ProductType% ;
                bsbm:productFeature ?feature .
      ?offer2 bsbm:product ?product2 ;
              bsbm:price ?price2 . }
    GROUP BY ?feature }
} ORDER BY DESC(?priceRatio) ?feature LIMIT 100`,

  // The most popular products of a product type per reviewer country, by review count.
  'BI-Q5': `SELECT ?country ?product ?nrOfReviews ?avgPrice {
  { SELECT ?country (MAX(?nrOfReviews) AS ?maxReviews) {
      { SELECT ?country ?product (COUNT(?review) AS ?nrOfReviews) {
          ?product a %ProductType% .
          ?review bsbm:reviewFor ?product ;
                  rev:reviewer ?reviewer .
          ?reviewer bsbm:country ?country . }
        GROUP BY ?country ?product } }
    GROUP BY ?country }
  { SELECT ?product (AVG(xsd:float(str(?price))) AS ?avgPrice) {
      ?product a %ProductType% .
      ?offer bsbm:product ?product .
      ?offer bsbm:price ?price . }
    GROUP BY ?product }
  { SELECT ?country ?product (COUNT(?review) AS ?nrOfReviews) {
      ?product a %ProductType% .
      ?review bsbm:reviewFor ?product .
      ?review rev:reviewer ?reviewer .
      ?reviewer bsbm:country ?country . }
    GROUP BY ?country ?product }
  FILTER(?nrOfReviews = ?maxReviews)
} ORDER BY ?country ?product`,

  // Reviewers who rated a producer's products much higher than the average.
  'BI-Q6': `SELECT ?reviewer (AVG(?score) AS ?reviewerAvgScore) {
  { SELECT (AVG(?score) AS ?avgScore) {
      ?product bsbm:producer %Producer% .
      ?review bsbm:reviewFor ?product .
      ${RATING_UNION('?score')} } }
  ?product bsbm:producer %Producer% .
  ?review bsbm:reviewFor ?product .
  ?review rev:reviewer ?reviewer .
  ${RATING_UNION('?score')}
} GROUP BY ?reviewer
HAVING (AVG(?score) > MIN(?avgScore) * 1.5e0)
ORDER BY ?reviewer`,

  // Products of a type offered most often by vendors of one country, with their cheapest price.
  'BI-Q7': `SELECT ?product (COUNT(?offer) AS ?offerCount) (MIN(xsd:float(str(?price))) AS ?cheapest) {
  ?product a %ProductType% .
  ?offer bsbm:product ?product ;
         bsbm:vendor ?vendor ;
         bsbm:price ?price .
  ?vendor bsbm:country %Country2% .
} GROUP BY ?product
ORDER BY DESC(?offerCount) ?cheapest ?product LIMIT 10`,

  // The 10 cheapest vendors for a product type: the highest share of offers below the product's average.
  'BI-Q8': `SELECT ?vendor (xsd:float(?belowAvg)/?offerCount AS ?cheapExpensiveRatio) {
  { SELECT ?vendor (COUNT(?offer) AS ?belowAvg) {
      { ?product a %ProductType% .
        ?offer bsbm:product ?product .
        ?offer bsbm:vendor ?vendor .
        ?offer bsbm:price ?price .
        { SELECT ?product (AVG(xsd:float(str(?price))) AS ?avgPrice) {
            ?product a %ProductType% .
            ?offer bsbm:product ?product .
            ?offer bsbm:vendor ?vendor .
            ?offer bsbm:price ?price . }
          GROUP BY ?product } }
      FILTER (xsd:float(str(?price)) < ?avgPrice) }
    GROUP BY ?vendor }
  { SELECT ?vendor (COUNT(?offer) AS ?offerCount) {
      ?product a %ProductType% .
      ?offer bsbm:product ?product .
      ?offer bsbm:vendor ?vendor . }
    GROUP BY ?vendor }
} ORDER BY DESC(xsd:float(?belowAvg)/?offerCount) ?vendor LIMIT 10`,
};

/** BSBM's BI mix runs each query once, in order. */
export const BI_NAMES = Object.keys(TEMPLATES);

/** The BI parameters, derived from the generator's params.json (see the header for the choices). */
export function biParams(p) {
  const product = String(p.ProductXYZ);
  const m = /dataFromProducer(\d+)\/Product\d+$/.exec(product);
  if (!m) throw new Error(`ProductXYZ does not name its producer: ${product}`);
  const producer = product.replace(/Product\d+$/, `Producer${m[1]}`);
  const date = (d) => `"${d}"^^xsd:date`;
  return {
    Country1: `<${COUNTRY}US>`,
    Country2: `<${COUNTRY}DE>`,
    Product: `<${product}>`,
    ProductType: `<${p.ProductType}>`,
    Producer: `<${producer}>`,
    Month0: date('2008-02-01'),
    Month1: date('2008-03-01'),
    Month2: date('2008-04-01'),
  };
}

/** Load the shared prefixes and instantiate the eight BI queries; params is params.json's object or path. */
export function loadBiQueries(params, dir = queriesDir()) {
  const p = typeof params === 'string' ? JSON.parse(readFileSync(params, 'utf8')) : params;
  const prefixes = readFileSync(join(dir, 'prefixes.rq'), 'utf8').trimEnd();
  const values = biParams(p);
  const fill = (t) =>
    t.replace(/%([A-Za-z0-9_]+)%/g, (_, name) => {
      if (values[name] === undefined) throw new Error(`BI query parameter ${name} is unknown`);
      return values[name];
    });
  const bi = BI_NAMES.map((name) => ({ name, text: `${prefixes}\n${fill(TEMPLATES[name])}` }));
  return { bi, mix: bi };
}
