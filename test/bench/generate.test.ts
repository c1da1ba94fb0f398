/**
 * The BSBM-shaped generator (bench/bsbm/generate.js): deterministic, the README's entity counts and
 * per-entity triple counts, valid N-Triples, and parameters that point into the data.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Parser, type Quad } from 'n3';
import { describe, expect, it } from 'vitest';
import { BSBM, INST, generate, typeTreeShape, type GenerateResult } from '../../bench/bsbm/generate.js';
import { loadQueries, MIX_SEQUENCE } from '../../bench/queries.js';

const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const SUBCLASS = 'http://www.w3.org/2000/01/rdf-schema#subClassOf';

function run(products: number, seed: number): { text: string; result: GenerateResult } {
  const lines: string[] = [];
  const result = generate({ products, seed, onTriple: (s, p, o) => lines.push(`${s} ${p} ${o} .\n`) });
  return { text: lines.join(''), result };
}

describe('bench/bsbm/generate.js', () => {
  const a = run(20, 7);

  it('is deterministic: same seed and product count give identical output', () => {
    const b = run(20, 7);
    expect(b.text).toBe(a.text);
    expect(b.result.params).toEqual(a.result.params);
    const c = run(20, 8);
    expect(c.text).not.toBe(a.text);
  });

  it('writes byte-identical files from the CLI', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bsbm-gen-'));
    try {
      for (const name of ['one', 'two']) {
        const r = spawnSync(process.execPath, ['bench/bsbm/generate.js', '--products', '20', '--seed', '7', '--out', join(dir, name)], { encoding: 'utf8' });
        expect(r.status, r.stderr).toBe(0);
      }
      const one = readFileSync(join(dir, 'one.nt'));
      expect(one.equals(readFileSync(join(dir, 'two.nt')))).toBe(true);
      expect(one.toString('utf8')).toBe(a.text);
      const params = JSON.parse(readFileSync(join(dir, 'one.params.json'), 'utf8'));
      expect(params._meta.triples).toBe(a.result.triples);
      expect(params.ProductXYZ).toBe(a.result.params.ProductXYZ);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('has the README entity counts and triples per entity', () => {
    const { entities: e, triplesBy: t, shape } = a.result;
    expect(e.Product).toBe(20);
    expect(e.Offer).toBe(400);
    expect(e.Review).toBe(200);
    expect(e.ProductType).toBe(shape.types);
    expect(shape).toMatchObject(typeTreeShape(20));
    // pc=20: depth round(log10(20)/2)+1 = 2, root fan-out 2·round(log10 20) = 2, last level 2
    expect(shape.depth).toBe(2);
    expect(shape.fanout).toEqual([2, 2]);
    expect(e.ProductType).toBe(1 + 2 + 4);
    // features: 5 per depth-1 type; depth-2 types randInt(35·2/2, 75·2/2)
    expect(e.ProductFeature).toBeGreaterThanOrEqual(2 * 5 + 4 * 35);
    expect(e.ProductFeature).toBeLessThanOrEqual(2 * 5 + 4 * 75);
    expect(e.Producer).toBeGreaterThanOrEqual(1);
    expect(e.Vendor).toBeGreaterThanOrEqual(1);
    expect(e.Person).toBeGreaterThanOrEqual(Math.ceil(200 / 39));
    expect(e.Person).toBeLessThanOrEqual(200);

    expect(t.ProductType).toBe(6 * e.ProductType - 1); // the root has no rdfs:subClassOf
    expect(t.ProductFeature).toBe(5 * e.ProductFeature);
    expect(t.Producer).toBe(7 * e.Producer);
    expect(t.Vendor).toBe(7 * e.Vendor);
    expect(t.Offer).toBe(10 * e.Offer);
    expect(t.Person).toBe(6 * e.Person);
    // review: 8 fixed + rating1..4 each with 70 %
    expect(t.Review).toBeGreaterThanOrEqual(8 * e.Review);
    expect(t.Review).toBeLessThanOrEqual(12 * e.Review);
    expect(t.Review / e.Review).toBeGreaterThan(10.8 - 0.5);
    expect(t.Review / e.Review).toBeLessThan(10.8 + 0.5);
    // product: 1 + 3 types + label, comment, producer + 6 properties + publisher, date = 15 fixed
    expect(t.Product).toBeGreaterThanOrEqual(15 * e.Product);
    const total = Object.values(t).reduce((x, y) => x + y, 0);
    expect(total).toBe(a.result.triples);
  });

  it('scales like the README (≈380 triples per product at pc=265)', () => {
    let n = 0;
    const r = generate({ products: 265, seed: 20080620, onTriple: () => n++ });
    expect(r.triples).toBe(n);
    expect(Math.abs(n - 100_846) / 100_846).toBeLessThan(0.04);
    expect(r.shape.fanout).toEqual([4, 8]);
  });

  it('emits N-Triples that n3 parses, with forward-chained types and language-tagged reviews', () => {
    const quads: Quad[] = new Parser({ format: 'N-Triples' }).parse(a.text);
    expect(quads.length).toBe(a.result.triples);

    const parent = new Map<string, string>();
    const typesOf = new Map<string, Set<string>>();
    const langs = new Set<string>();
    for (const q of quads) {
      if (q.predicate.value === SUBCLASS) parent.set(q.subject.value, q.object.value);
      if (q.predicate.value === RDF_TYPE) {
        if (!typesOf.has(q.subject.value)) typesOf.set(q.subject.value, new Set());
        typesOf.get(q.subject.value)!.add(q.object.value);
      }
      if (q.predicate.value === 'http://purl.org/stuff/rev#text' && q.object.termType === 'Literal') langs.add(q.object.language);
      if (q.predicate.value === `${BSBM}price` && q.object.termType === 'Literal') {
        expect(q.object.datatype.value).toBe(`${BSBM}USD`);
        expect(q.object.value).toMatch(/^\d+\.\d\d$/);
      }
    }
    expect([...langs].every((l) => /^[a-z]{2}$/.test(l))).toBe(true);
    const products = [...typesOf].filter(([, ts]) => ts.has(`${BSBM}Product`));
    expect(products.length).toBe(20);
    for (const [, ts] of products) {
      const leaf = [...ts].find((t) => t.startsWith(INST) && ![...ts].some((u) => parent.get(u) === t));
      expect(leaf).toBeDefined();
      for (let t: string | undefined = leaf; t; t = parent.get(t)) expect(ts.has(t)).toBe(true);
    }
  });

  it('chooses parameters from the data', () => {
    const p = a.result.params;
    const has = (s: string, pr: string, o: string) => a.text.includes(`<${s}> <${pr}> <${o}> .\n`);
    expect(has(p.ProductXYZ, RDF_TYPE, `${BSBM}Product`)).toBe(true);
    expect(has(p.ProductType, SUBCLASS, `${INST}ProductType1`)).toBe(true);
    expect(has(p.ProductXYZ, `${BSBM}productFeature`, p.ProductFeatureAbsent)).toBe(false);
    expect(has(p.OfferXYZ, `${BSBM}product`, p.ProductXYZ)).toBe(true);
    expect(has(p.ReviewXYZ, `${BSBM}reviewFor`, p.ProductXYZ)).toBe(true);
    expect(p).toMatchObject({ x: 473, y: 500, y3: 1000, currentDate: '2008-05-20T00:00:00' });
  });
});

describe('bench/queries.js', () => {
  it('fills every placeholder and builds the 24-query mix', () => {
    const { params } = run(20, 7).result;
    const { core, explore, mix } = loadQueries({ ...params });
    expect(core.map((q) => q.name)).toEqual(['C1', 'C2', 'C3', 'C4', 'C5', 'C6']);
    expect(explore).toHaveLength(11);
    expect(mix).toHaveLength(24);
    expect(mix.map((q) => q.name)).toEqual(MIX_SEQUENCE.map((n) => `E-Q${n}`));
    for (const q of [...core, ...explore]) {
      expect(q.text).not.toMatch(/%[A-Za-z0-9_]+%/);
      expect(q.text.match(/^PREFIX bsbm: /gm)).toHaveLength(1);
    }
    const q10 = explore.find((q) => q.name === 'E-Q10')!.text;
    expect(q10).toContain(`<${params.ProductXYZ}>`);
    expect(q10).toContain('"2008-05-20T00:00:00"^^xsd:dateTime');
    expect(explore.find((q) => q.name === 'E-Q1')!.text).toContain('FILTER (?value1 > 473)');
  });

  it('rejects a missing parameter instead of leaving it in the query', () => {
    expect(() => loadQueries({ x: 1 })).toThrow(/missing/);
  });
});
