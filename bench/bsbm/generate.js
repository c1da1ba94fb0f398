#!/usr/bin/env node
/**
 * Deterministic BSBM-shaped data generator (see /work/shared/bench/README.md, "Dataset").
 *
 *   node bench/bsbm/generate.js --products 2825 --out bench/data/bsbm-2825 [--seed 1]
 *
 * writes <out>.nt (N-Triples, streamed to disk) and <out>.params.json (query parameters chosen
 * from the generated data so every query returns rows). Same seed + same product count gives a
 * byte-identical file.
 *
 * Module API: generate({ products, seed, onTriple(s, p, o) }) -> { triples, entities, triplesBy, params }
 * where s, p, o are N-Triples term strings (`<iri>`, `"lex"@lang`, `"lex"^^<dt>`).
 *
 * Interpretation notes where the README leaves room (all rules are the README's unless said):
 * - Type tree: root ProductType1 (depth 0); levels 1..depth. Level 1 fans out 2·round(log10 pc),
 *   inner levels 8, the last level 2, 4 or 8 chosen from the fractional part f of log10(pc)/2:
 *   f < 0.5 (depth rounded down) -> 8, f < 0.75 -> 2, else 4. This reproduces bsbmtools' published
 *   type counts (151 types at 1M, 731 at 25M, 2011 at 100M triples).
 * - Optional product properties ("40/20/40"): productPropertyTextual/Numeric 4 with 40 %,
 *   5 with 20 %, 6 with 40 %, drawn independently.
 * - Producers 1–99 products each, vendors 1–3999 offers, persons 1–39 reviews, rating sites
 *   1–199 persons (all uniform); the last group is truncated so totals are exact (pc, 20·pc, 10·pc).
 * - Country weights (producers, vendors, persons): US 40, GB 10, DE 10, JP 10, CN 10, FR 5, ES 5,
 *   RU 5, KR 2.5, AT 2.5; review text language from the reviewer's country.
 * - "Today" is 2008-06-20: reviewDate within the year before; offers valid from a day in that year
 *   for 1–90 days.
 */
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CURRENT_DATE, chooseParams } from './params.js';

export { CURRENT_DATE };

export const DEFAULT_SEED = 20080620;

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const RDFS = 'http://www.w3.org/2000/01/rdf-schema#';
const XSD = 'http://www.w3.org/2001/XMLSchema#';
const DC = 'http://purl.org/dc/elements/1.1/';
const FOAF = 'http://xmlns.com/foaf/0.1/';
const REV = 'http://purl.org/stuff/rev#';
export const BSBM = 'http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/';
export const INST = 'http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/instances/';
const COUNTRY = 'http://downlode.org/rdf/iso-3166/countries#';

const iri = (s) => `<${s}>`;
const P = {
  type: iri(RDF + 'type'),
  label: iri(RDFS + 'label'),
  comment: iri(RDFS + 'comment'),
  subClassOf: iri(RDFS + 'subClassOf'),
  publisher: iri(DC + 'publisher'),
  date: iri(DC + 'date'),
  title: iri(DC + 'title'),
  homepage: iri(FOAF + 'homepage'),
  name: iri(FOAF + 'name'),
  mbox: iri(FOAF + 'mbox_sha1sum'),
  country: iri(BSBM + 'country'),
  producer: iri(BSBM + 'producer'),
  feature: iri(BSBM + 'productFeature'),
  num: [0, 1, 2, 3, 4, 5, 6].map((i) => iri(BSBM + 'productPropertyNumeric' + i)),
  text: [0, 1, 2, 3, 4, 5, 6].map((i) => iri(BSBM + 'productPropertyTextual' + i)),
  product: iri(BSBM + 'product'),
  vendor: iri(BSBM + 'vendor'),
  price: iri(BSBM + 'price'),
  validFrom: iri(BSBM + 'validFrom'),
  validTo: iri(BSBM + 'validTo'),
  deliveryDays: iri(BSBM + 'deliveryDays'),
  offerWebpage: iri(BSBM + 'offerWebpage'),
  reviewFor: iri(BSBM + 'reviewFor'),
  reviewer: iri(REV + 'reviewer'),
  reviewDate: iri(BSBM + 'reviewDate'),
  text_: iri(REV + 'text'),
  rating: [0, 1, 2, 3, 4].map((i) => iri(BSBM + 'rating' + i)),
};
const C = {
  ProductType: iri(BSBM + 'ProductType'),
  ProductFeature: iri(BSBM + 'ProductFeature'),
  Producer: iri(BSBM + 'Producer'),
  Product: iri(BSBM + 'Product'),
  Vendor: iri(BSBM + 'Vendor'),
  Offer: iri(BSBM + 'Offer'),
  Person: iri(FOAF + 'Person'),
  Review: iri(REV + 'Review'),
};
const DT_INT = `^^<${XSD}integer>`;
const DT_STR = `^^<${XSD}string>`;
const DT_DATE = `^^<${XSD}date>`;
const DT_DATETIME = `^^<${XSD}dateTime>`;
const DT_USD = `^^<${BSBM}USD>`;
const STD_INST = iri(INST + 'StandardizationInstitution1');

const COUNTRIES = [
  ['US', 'en', 40], ['GB', 'en', 10], ['DE', 'de', 10], ['JP', 'ja', 10], ['CN', 'zh', 10],
  ['FR', 'fr', 5], ['ES', 'es', 5], ['RU', 'ru', 5], ['KR', 'ko', 2.5], ['AT', 'de', 2.5],
];
const COUNTRY_IRI = COUNTRIES.map(([c]) => iri(COUNTRY + c));
const COUNTRY_CUM = (() => {
  const total = COUNTRIES.reduce((a, c) => a + c[2], 0);
  let acc = 0;
  return COUNTRIES.map((c) => (acc += c[2] / total));
})();
const US = 0;
const DE = 2;

/** mulberry32: small, fast, good enough for synthetic data; 32-bit state. */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The synthetic 4,000-word list; fixed (independent of the data seed). */
const WORDS = (() => {
  const rnd = mulberry32(0x5eed1234);
  const onsets = ['b', 'c', 'd', 'f', 'g', 'h', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'w', 'z',
    'br', 'ch', 'cl', 'dr', 'gr', 'pl', 'pr', 'sh', 'st', 'th', 'tr', ''];
  const nuclei = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'io', 'ou', 'y'];
  const codas = ['', '', '', 'n', 'r', 's', 't', 'l', 'm', 'ck', 'nd', 'st'];
  const seen = new Set();
  const out = [];
  while (out.length < 4000) {
    const syl = 1 + Math.floor(rnd() * 3) + (rnd() < 0.35 ? 1 : 0);
    let w = '';
    for (let i = 0; i < syl; i++) {
      w += onsets[Math.floor(rnd() * onsets.length)] + nuclei[Math.floor(rnd() * nuclei.length)];
      if (i === syl - 1 || rnd() < 0.3) w += codas[Math.floor(rnd() * codas.length)];
    }
    if (w.length < 2 || seen.has(w)) continue;
    seen.add(w);
    out.push(w);
  }
  return out;
})();

const DAY_MS = 86400000;
const EPOCH = Date.UTC(2000, 0, 1);
const TODAY = Math.round((Date.UTC(2008, 5, 20) - EPOCH) / DAY_MS); // day index of 2008-06-20
const DAYS = (() => {
  const out = [];
  for (let d = 0; d <= TODAY + 400; d++) out.push(new Date(EPOCH + d * DAY_MS).toISOString().slice(0, 10));
  return out;
})();
const CURRENT_DAY = Math.round((Date.parse(`${CURRENT_DATE}Z`) - EPOCH) / DAY_MS);

/** Shape of the type tree for a product count (README rule); exported for tests. */
export function typeTreeShape(pc) {
  const half = Math.log10(Math.max(1, pc)) / 2;
  const depth = Math.round(half) + 1;
  const f = half - Math.floor(half);
  const last = f < 0.5 ? 8 : f < 0.75 ? 2 : 4;
  const fanout = [];
  for (let level = 1; level <= depth; level++) {
    if (level === 1) fanout.push(Math.max(1, 2 * Math.round(Math.log10(Math.max(1, pc)))));
    else if (level === depth) fanout.push(last);
    else fanout.push(8);
  }
  return { depth, fanout };
}

/**
 * Generate the dataset, calling onTriple(s, p, o) for every triple in a fixed order.
 * Memory is O(pc) (per-product bookkeeping for parameter choice); triples are never held.
 */
export function generate({ products, seed = DEFAULT_SEED, onTriple, onProgress }) {
  const pc = Math.floor(products);
  if (!(pc >= 1)) throw new Error('products must be >= 1');
  const rnd = mulberry32(seed);
  const randInt = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
  const words = (lo, hi) => {
    const n = randInt(lo, hi);
    let s = WORDS[Math.floor(rnd() * 4000)];
    for (let i = 1; i < n; i++) s += ' ' + WORDS[Math.floor(rnd() * 4000)];
    return s;
  };
  const str = (s) => `"${s}"`;
  const country = () => {
    const r = rnd();
    let i = 0;
    while (i < COUNTRY_CUM.length - 1 && r >= COUNTRY_CUM[i]) i++;
    return i;
  };
  const pubDate = () => `"${DAYS[TODAY - randInt(30, 3000)]}"${DT_DATE}`;

  let triples = 0;
  const triplesBy = {};
  const entities = {};
  let current = 'ProductType';
  const emit = (s, p, o) => {
    triples++;
    triplesBy[current]++;
    onTriple(s, p, o);
  };
  const begin = (kind) => {
    current = kind;
    entities[kind] ??= 0;
    triplesBy[kind] ??= 0;
  };
  // Progress against the expected size (~352 triples per product), reported every 64 products,
  // 1024 offers and 1024 reviews.
  const expected = 352 * pc;
  const progress = () => {
    if (onProgress) onProgress(Math.min(1, triples / expected), triples);
  };

  // ---- ProductType tree -------------------------------------------------------------------
  const { depth, fanout } = typeTreeShape(pc);
  const typeParent = [0, 0]; // 1-based; root (1) has parent 0
  const typeDepth = [0, 0];
  let levelTypes = [1];
  for (let level = 1; level <= depth; level++) {
    const next = [];
    for (const parent of levelTypes) {
      for (let k = 0; k < fanout[level - 1]; k++) {
        const id = typeParent.length;
        typeParent.push(parent);
        typeDepth.push(level);
        next.push(id);
      }
    }
    levelTypes = next;
  }
  const nTypes = typeParent.length - 1;
  const leaves = levelTypes;
  const typeIri = (t) => iri(INST + 'ProductType' + t);
  begin('ProductType');
  for (let t = 1; t <= nTypes; t++) {
    const s = typeIri(t);
    entities.ProductType++;
    emit(s, P.type, C.ProductType);
    emit(s, P.label, str(words(1, 3)));
    emit(s, P.comment, str(words(20, 50)));
    if (typeParent[t] !== 0) emit(s, P.subClassOf, typeIri(typeParent[t]));
    emit(s, P.publisher, STD_INST);
    emit(s, P.date, pubDate());
  }

  // ---- ProductFeature: per non-root type -------------------------------------------------
  const S = (depth * (depth + 1)) / 2 - 1;
  const featStart = new Int32Array(nTypes + 1);
  const featCount = new Int32Array(nTypes + 1);
  let nFeatures = 0;
  for (let t = 2; t <= nTypes; t++) {
    const d = typeDepth[t];
    const n = d === 1 ? 5 : randInt(Math.floor((35 * d) / S), Math.floor((75 * d) / S));
    featStart[t] = nFeatures + 1;
    featCount[t] = n;
    nFeatures += n;
  }
  const featIri = (f) => iri(INST + 'ProductFeature' + f);
  begin('ProductFeature');
  for (let f = 1; f <= nFeatures; f++) {
    const s = featIri(f);
    entities.ProductFeature++;
    emit(s, P.type, C.ProductFeature);
    emit(s, P.label, str(words(1, 3)));
    emit(s, P.comment, str(words(20, 50)));
    emit(s, P.publisher, STD_INST);
    emit(s, P.date, pubDate());
  }
  progress();

  // ---- Producers and their products --------------------------------------------------------
  const productProducer = new Int32Array(pc + 1);
  const productLeaf = new Int32Array(pc + 1);
  const productNum = [new Int16Array(pc + 1), new Int16Array(pc + 1), new Int16Array(pc + 1)];
  const productFeatures = new Array(pc + 1);
  const productIri = (n) => iri(`${INST}dataFromProducer${productProducer[n]}/Product${n}`);
  let productNo = 0;
  let producerNo = 0;
  while (productNo < pc) {
    producerNo++;
    const count = Math.min(randInt(1, 99), pc - productNo);
    begin('Producer');
    const ps = iri(`${INST}dataFromProducer${producerNo}/Producer${producerNo}`);
    entities.Producer++;
    emit(ps, P.type, C.Producer);
    emit(ps, P.label, str(words(1, 3)));
    emit(ps, P.comment, str(words(20, 50)));
    emit(ps, P.homepage, iri(`http://www.Producer${producerNo}.com/`));
    emit(ps, P.country, COUNTRY_IRI[country()]);
    emit(ps, P.publisher, ps);
    emit(ps, P.date, pubDate());
    begin('Product');
    for (let k = 0; k < count; k++) {
      const n = ++productNo;
      productProducer[n] = producerNo;
      const s = productIri(n);
      entities.Product++;
      const leaf = leaves[Math.floor(rnd() * leaves.length)];
      productLeaf[n] = leaf;
      emit(s, P.type, C.Product);
      for (let t = leaf; t !== 0; t = typeParent[t]) emit(s, P.type, typeIri(t));
      emit(s, P.label, str(words(1, 3)));
      emit(s, P.comment, str(words(50, 150)));
      emit(s, P.producer, ps);
      for (let i = 1; i <= 3; i++) {
        const v = randInt(1, 2000);
        productNum[i - 1][n] = v;
        emit(s, P.num[i], `"${v}"${DT_INT}`);
      }
      for (let i = 1; i <= 3; i++) emit(s, P.text[i], `"${words(3, 15)}"${DT_STR}`);
      for (const [i, prob] of [[4, 0.4], [5, 0.2], [6, 0.4]]) {
        if (rnd() < prob) {
          emit(s, P.num[i], `"${randInt(1, 2000)}"${DT_INT}`);
          emit(s, P.text[i], `"${words(3, 15)}"${DT_STR}`);
        }
      }
      const feats = [];
      for (let t = leaf; t !== 0; t = typeParent[t]) {
        for (let f = featStart[t], end = featStart[t] + featCount[t]; f < end; f++) {
          if (rnd() < 0.25) {
            feats.push(f);
            emit(s, P.feature, featIri(f));
          }
        }
      }
      productFeatures[n] = feats;
      emit(s, P.publisher, ps);
      emit(s, P.date, pubDate());
      if ((n & 63) === 0) progress();
    }
  }
  progress();

  // ---- Vendors and their offers ------------------------------------------------------------
  const nOffers = 20 * pc;
  const q10 = new Int32Array(pc + 1); // offers matching E-Q10's filters (US vendor, <= 3 days, valid)
  const q7 = new Int32Array(pc + 1); // offers matching E-Q7's offer branch (DE vendor, valid)
  const firstOffer = new Int32Array(pc + 1);
  const firstOfferVendor = new Int32Array(pc + 1);
  let offerNo = 0;
  let vendorNo = 0;
  while (offerNo < nOffers) {
    vendorNo++;
    const count = Math.min(randInt(1, 3999), nOffers - offerNo);
    begin('Vendor');
    const vs = iri(`${INST}dataFromVendor${vendorNo}/Vendor${vendorNo}`);
    const vc = country();
    entities.Vendor++;
    emit(vs, P.type, C.Vendor);
    emit(vs, P.label, str(words(1, 3)));
    emit(vs, P.comment, str(words(20, 50)));
    emit(vs, P.homepage, iri(`http://www.Vendor${vendorNo}.com/`));
    emit(vs, P.country, COUNTRY_IRI[vc]);
    emit(vs, P.publisher, vs);
    emit(vs, P.date, pubDate());
    begin('Offer');
    for (let k = 0; k < count; k++) {
      const n = ++offerNo;
      const s = iri(`${INST}dataFromVendor${vendorNo}/Offer${n}`);
      entities.Offer++;
      const product = randInt(1, pc);
      const from = TODAY - randInt(0, 364);
      const to = from + randInt(1, 90);
      const days = randInt(1, 21);
      const cents = randInt(500, 1000000);
      emit(s, P.type, C.Offer);
      emit(s, P.product, productIri(product));
      emit(s, P.vendor, vs);
      emit(s, P.price, `"${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}"${DT_USD}`);
      emit(s, P.validFrom, `"${DAYS[from]}T00:00:00"${DT_DATETIME}`);
      emit(s, P.validTo, `"${DAYS[to]}T00:00:00"${DT_DATETIME}`);
      emit(s, P.deliveryDays, `"${days}"${DT_INT}`);
      emit(s, P.offerWebpage, iri(`http://www.Vendor${vendorNo}.com/Offer${n}/`));
      emit(s, P.publisher, vs);
      emit(s, P.date, `"${DAYS[from - randInt(0, 30)]}"${DT_DATE}`);
      if (to > CURRENT_DAY) {
        if (vc === US && days <= 3) q10[product]++;
        if (vc === DE) q7[product]++;
      }
      if (firstOffer[product] === 0) {
        firstOffer[product] = n;
        firstOfferVendor[product] = vendorNo;
      }
      if ((n & 1023) === 0) progress();
    }
  }

  // ---- Rating sites, persons and reviews ---------------------------------------------------
  const nReviews = 10 * pc;
  const reviewsOf = new Int32Array(pc + 1);
  const enReviewsOf = new Int32Array(pc + 1);
  const firstReview = new Int32Array(pc + 1);
  const firstReviewSite = new Int32Array(pc + 1);
  let reviewNo = 0;
  let personNo = 0;
  let siteNo = 0;
  while (reviewNo < nReviews) {
    siteNo++;
    const site = iri(`${INST}dataFromRatingSite${siteNo}/RatingSite${siteNo}`);
    const persons = randInt(1, 199);
    for (let k = 0; k < persons && reviewNo < nReviews; k++) {
      const pn = ++personNo;
      const count = Math.min(randInt(1, 39), nReviews - reviewNo);
      const pcIdx = country();
      const lang = COUNTRIES[pcIdx][1];
      const name = WORDS[Math.floor(rnd() * 4000)] + '-' + WORDS[Math.floor(rnd() * 4000)];
      const person = iri(`${INST}dataFromRatingSite${siteNo}/Reviewer${pn}`);
      begin('Person');
      entities.Person++;
      emit(person, P.type, C.Person);
      emit(person, P.name, str(name));
      const sha = createHash('sha1').update(`mailto:${name}@RatingSite${siteNo}.com`).digest('hex');
      emit(person, P.mbox, str(sha));
      emit(person, P.country, COUNTRY_IRI[pcIdx]);
      emit(person, P.publisher, site);
      emit(person, P.date, pubDate());
      begin('Review');
      for (let r = 0; r < count; r++) {
        const n = ++reviewNo;
        const s = iri(`${INST}dataFromRatingSite${siteNo}/Review${n}`);
        entities.Review++;
        const product = randInt(1, pc);
        const day = TODAY - randInt(1, 365);
        emit(s, P.type, C.Review);
        emit(s, P.reviewFor, productIri(product));
        emit(s, P.reviewer, person);
        emit(s, P.reviewDate, `"${DAYS[day]}T00:00:00"${DT_DATETIME}`);
        emit(s, P.title, str(words(4, 15)));
        emit(s, P.text_, `"${words(50, 200)}"@${lang}`);
        for (let i = 1; i <= 4; i++) {
          if (rnd() < 0.7) emit(s, P.rating[i], `"${randInt(1, 10)}"${DT_INT}`);
        }
        emit(s, P.publisher, site);
        emit(s, P.date, `"${DAYS[day + randInt(0, 10)]}"${DT_DATE}`);
        reviewsOf[product]++;
        if (lang === 'en') enReviewsOf[product]++;
        if (firstReview[product] === 0) {
          firstReview[product] = n;
          firstReviewSite[product] = siteNo;
        }
        if ((n & 1023) === 0) progress();
      }
    }
  }
  progress();

  const params = chooseParams({
    pc, typeParent, typeDepth, nTypes, featStart, featCount, productLeaf, productNum, productFeatures,
    q10, q7, reviewsOf, enReviewsOf, firstOffer, firstOfferVendor, firstReview, firstReviewSite, productIri, inst: INST,
  });
  return {
    triples,
    entities,
    triplesBy,
    shape: { depth, fanout, types: nTypes, leaves: leaves.length, features: nFeatures, producers: producerNo, vendors: vendorNo, persons: personNo, ratingSites: siteNo },
    params,
  };
}

/** CLI: stream N-Triples to <out>.nt and the parameters to <out>.params.json. */
async function main(argv) {
  const args = { products: 2825, seed: DEFAULT_SEED, out: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--products' || a === '--pc') args.products = Number(argv[++i]);
    else if (a === '--seed') args.seed = Number(argv[++i]);
    else if (a === '--out') args.out = argv[++i];
    else if (a === '--help' || a === '-h') {
      console.error('usage: node bench/bsbm/generate.js --products N --out PATH_PREFIX [--seed S]');
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  if (!Number.isInteger(args.products) || args.products < 1) throw new Error('--products must be a positive integer');
  if (!Number.isInteger(args.seed)) throw new Error('--seed must be an integer');
  const out = resolve(args.out ?? `bench/data/bsbm-${args.products}`);
  mkdirSync(dirname(out), { recursive: true });
  const ntPath = `${out}.nt`;
  const tmpPath = `${ntPath}.tmp-${process.pid}`;
  const fd = openSync(tmpPath, 'w');
  let buf = '';
  let bytes = 0;
  const flush = () => {
    if (buf.length === 0) return;
    bytes += writeSync(fd, buf);
    buf = '';
  };
  const t0 = performance.now();
  let lastPct = -1;
  const result = generate({
    products: args.products,
    seed: args.seed,
    onTriple(s, p, o) {
      buf += s + ' ' + p + ' ' + o + ' .\n';
      if (buf.length > 1 << 20) flush();
    },
    onProgress(frac, triples) {
      const pct = Math.min(100, Math.floor(frac * 100));
      if (pct >= lastPct + 10) {
        lastPct = pct;
        process.stderr.write(`generate: ${pct}% (${triples.toLocaleString('en-US')} triples)\n`);
      }
    },
  });
  flush();
  closeSync(fd);
  renameSync(tmpPath, ntPath);
  const seconds = (performance.now() - t0) / 1000;
  const meta = {
    generator: 'ledgraph bench/bsbm/generate.js v1',
    products: args.products,
    seed: args.seed,
    triples: result.triples,
    bytes,
    entities: result.entities,
    triplesBy: result.triplesBy,
    shape: result.shape,
  };
  writeFileSync(`${out}.params.json`, JSON.stringify({ ...result.params, _meta: meta }, null, 2) + '\n');
  process.stderr.write(
    `generate: wrote ${ntPath}: ${result.triples.toLocaleString('en-US')} triples, ` +
      `${(bytes / 1e6).toFixed(1)} MB in ${seconds.toFixed(1)} s; params in ${out}.params.json\n`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).catch((err) => {
    console.error(err?.stack ?? String(err));
    process.exit(1);
  });
}
