/**
 * The JSON-LD fast path (src/core/transact/jsonld-fast.ts) against jsonld.js: every input document
 * of the W3C toRdf and expand suites, and the insert bench's document shape, is expanded both ways;
 * wherever the fast path answers, its expansion must be identical to jsonld.js's (keys and order),
 * and the whole toRdf suite must parse to the same transaction (or the same 400) through both paths.
 */
import jsonld from 'jsonld';
import { describe, expect, it } from 'vitest';
import { fastExpand } from '../../src/core/transact/jsonld-fast.js';
import { parseJsonLdTxn } from '../../src/core/transact/parse-jsonld.js';
import { loadJsonLdManifest, parserOptions, preloadedContexts, readSuiteFile } from './jsonld-suite.js';

const toRdf = loadJsonLdManifest('toRdf');
const expand = loadJsonLdManifest('expand');

async function outcome(p: Promise<unknown>): Promise<unknown> {
  try { return { ok: await p }; } catch (e) { return { error: e instanceof Error ? e.message : String(e) }; }
}

describe('JSON-LD fast path', () => {
  it('expands every W3C input it accepts exactly as jsonld.js does', async () => {
    let fast = 0;
    const differences: string[] = [];
    for (const t of [...toRdf, ...expand]) {
      let doc: unknown;
      try { doc = JSON.parse(readSuiteFile(t.input)); } catch { continue; }
      const mine = fastExpand(doc);
      if (mine === undefined) continue;
      fast++;
      const theirs = await jsonld.expand(doc as jsonld.JsonLdDocument, { base: 'https://w3c.github.io/json-ld-api/tests/' + t.input } as jsonld.Options.Expand);
      if (JSON.stringify(mine) !== JSON.stringify(theirs)) differences.push(`${t.id}\n  fast    ${JSON.stringify(mine)}\n  jsonld  ${JSON.stringify(theirs)}`);
    }
    expect(differences).toEqual([]);
    expect(fast).toBeGreaterThan(20);
  });

  it('the whole toRdf suite parses to the same transaction, or the same 400, through both paths', async () => {
    const contexts = preloadedContexts('toRdf');
    let same = 0;
    for (const t of toRdf) {
      const doc = JSON.parse(readSuiteFile(t.input)) as unknown;
      const opts = parserOptions(t, contexts);
      const a = await outcome(parseJsonLdTxn(doc, 'insert', opts));
      const b = await outcome(parseJsonLdTxn(doc, 'insert', { ...opts, fastPath: false }));
      expect(a, t.id).toEqual(b);
      same++;
    }
    expect(same).toBe(toRdf.length);
  });

  it('takes plain insert documents (the bench shape) and agrees there too', async () => {
    const doc = {
      '@context': { bsbm: 'http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/', rdfs: 'http://www.w3.org/2000/01/rdf-schema#', xsd: 'http://www.w3.org/2001/XMLSchema#' },
      '@graph': [
        { '@id': 'bsbm:p1', '@type': ['bsbm:Product'], 'rdfs:label': ['Lamp'], 'bsbm:price': [{ '@value': '12.5', '@type': 'xsd:decimal' }], 'rdfs:comment': [{ '@value': 'Olá', '@language': 'PT' }], 'bsbm:producer': [{ '@id': 'bsbm:pr1' }], 'bsbm:n': [3, true] },
        { '@id': '_:x', 'bsbm:part': { 'rdfs:label': 'nested' } },
        { '@id': 'http://example.org/only-id' },
      ],
      'bsbm:batch': 7,
    };
    const mine = fastExpand(doc);
    expect(mine).toBeDefined();
    expect(JSON.stringify(mine)).toBe(JSON.stringify(await jsonld.expand(doc)));
    expect(await parseJsonLdTxn(doc, 'insert')).toEqual(await parseJsonLdTxn(doc, 'insert', { fastPath: false }));
  });

  it('leaves everything else to jsonld.js', () => {
    const c = { ex: 'http://example.org/' };
    for (const doc of [
      { '@context': { ...c, '@vocab': 'http://example.org/' }, '@id': 'ex:a', p: 1 },
      { '@context': { ...c, p: { '@id': 'ex:p', '@type': '@id' } }, '@id': 'ex:a', p: 'ex:b' },
      { '@context': 'http://example.org/ctx.jsonld', '@id': 'ex:a', 'ex:p': 1 },
      { '@context': c, '@id': 'rel', 'ex:p': 1 },
      { '@context': c, '@id': 'ex:a', 'ex:p': { '@list': [1] } },
      { '@context': c, '@id': 'ex:a', 'ex:p': null },
      { '@context': c, '@id': 'ex:a', 'unknown': 1 },
      { '@context': c, '@id': 'ex:a', 'ex:p': 'x', '@graph': [] },
    ]) expect(fastExpand(doc), JSON.stringify(doc)).toBeUndefined();
  });
});
