import { describe, expect, it } from 'vitest';
import { LedgraphError } from '../errors.js';
import { ActiveContext, resolveIri } from './jsonld-context.js';

const EX = 'http://example.org/';
const SCHEMA = 'http://schema.org/';
const XSD = 'http://www.w3.org/2001/XMLSchema#';
const C = { ex: EX, schema: SCHEMA, xsd: XSD };

function error400(fn: () => unknown): LedgraphError {
  try { fn(); } catch (e) {
    expect(e).toBeInstanceOf(LedgraphError);
    expect((e as LedgraphError).status).toBe(400);
    expect((e as LedgraphError).type).toBe('err:db/BadRequest');
    return e as LedgraphError;
  }
  throw new Error('expected a 400');
}

describe('ActiveContext.expandIri', () => {
  const ctx = ActiveContext.create(C);

  it('expands compact IRIs with declared prefixes', () => {
    expect(ctx.expandIri('ex:ana', false)).toBe(EX + 'ana');
    expect(ctx.expandIri('schema:name', true)).toBe(SCHEMA + 'name');
  });

  it('keeps IRIs with no matching prefix verbatim', () => {
    expect(ctx.expandIri('urn:x:1', false)).toBe('urn:x:1');
    expect(ctx.expandIri('http://other.org/a', true)).toBe('http://other.org/a');
    expect(ctx.expandIri('foaf:bar', true)).toBe('foaf:bar');
  });

  it('does not treat scheme://... as a compact IRI even when the scheme is a term', () => {
    const c = ActiveContext.create({ http: 'http://wrong/' });
    expect(c.expandIri('http://example.org/a', true)).toBe('http://example.org/a');
  });

  it('expands the built-in prefixes when not declared', () => {
    const e = ActiveContext.empty();
    expect(e.expandIri('rdf:type', true)).toBe('http://www.w3.org/1999/02/22-rdf-syntax-ns#type');
    expect(e.expandIri('rdfs:label', true)).toBe('http://www.w3.org/2000/01/rdf-schema#label');
    expect(e.expandIri('xsd:date', true)).toBe(XSD + 'date');
    expect(e.expandIri('owl:sameAs', true)).toBe('http://www.w3.org/2002/07/owl#sameAs');
    expect(e.expandIri('sh:path', true)).toBe('http://www.w3.org/ns/shacl#path');
    expect(e.expandIri('f:message', true)).toBe('https://ns.ledgraph.dev/message');
  });

  it('lets a declared prefix override a built-in one', () => {
    const c = ActiveContext.create({ f: 'http://foo/' });
    expect(c.expandIri('f:x', true)).toBe('http://foo/x');
  });

  it('uses @vocab for bare words in vocab position and @base in @id position', () => {
    const c = ActiveContext.create({ '@vocab': SCHEMA, '@base': EX });
    expect(c.expandIri('name', true)).toBe(SCHEMA + 'name');
    expect(c.expandIri('ana', false)).toBe(EX + 'ana');
    expect(c.expandIri('../x', false)).toBe('http://example.org/x');
    expect(c.expandIri('#frag', false)).toBe(EX + '#frag');
  });

  it('keeps bare words when neither @vocab nor @base is set', () => {
    expect(ctx.expandIri('name', true)).toBe('name');
    expect(ctx.expandIri('ana', false)).toBe('ana');
  });

  it('expands term aliases and their chains within one context object', () => {
    const c = ActiveContext.create({ name: 'schema:name', schema: SCHEMA, nm: 'name' });
    expect(c.expandIri('name', true)).toBe(SCHEMA + 'name');
    expect(c.expandIri('nm', true)).toBe(SCHEMA + 'name');
  });

  it('expands a compact @vocab', () => {
    const c = ActiveContext.create([C, { '@vocab': 'ex:' }]);
    expect(c.expandIri('knows', true)).toBe(EX + 'knows');
  });

  it('leaves blank node identifiers alone', () => {
    expect(ctx.expandIri('_:b1', false)).toBe('_:b1');
  });

  it('resolves keyword aliases', () => {
    const c = ActiveContext.create({ id: '@id', type: '@type', name: 'schema:name' });
    expect(c.keyword('id')).toBe('@id');
    expect(c.keyword('type')).toBe('@type');
    expect(c.keyword('@graph')).toBe('@graph');
    expect(c.keyword('name')).toBeUndefined();
    expect(c.keyword('@nope')).toBeUndefined();
    expect(c.expandIri('id', true)).toBe('@id');
  });
});

describe('ActiveContext term definitions', () => {
  it('records @type coercion, containers and language', () => {
    const c = ActiveContext.create([C, {
      'ex:born': { '@type': 'xsd:date' },
      likes: { '@id': 'ex:likes', '@type': '@id' },
      steps: { '@id': 'ex:steps', '@container': '@list' },
      tags: { '@id': 'ex:tags', '@container': ['@set'] },
      label: { '@id': 'ex:label', '@language': 'PT' },
      plain: { '@id': 'ex:plain', '@language': null },
      data: { '@id': 'ex:data', '@type': '@json' },
    }]);
    expect(c.termDefinition('ex:born')).toEqual({ id: EX + 'born', reverse: false, type: XSD + 'date', container: [], prefixUsable: false, prefix: false });
    expect(c.termDefinition('likes')).toEqual({ id: EX + 'likes', reverse: false, type: '@id', container: [], prefixUsable: true, prefix: false });
    expect(c.termDefinition('steps')?.container).toEqual(['@list']);
    expect(c.termDefinition('tags')?.container).toEqual(['@set']);
    expect(c.termDefinition('label')?.language).toBe('pt');
    expect(c.termDefinition('plain')?.language).toBeNull();
    expect(c.termDefinition('data')?.type).toBe('@json');
  });

  it('defines terms used before their prefix in the same object', () => {
    const c = ActiveContext.create({ 'ex:born': { '@type': 'xsd:date' }, ex: EX });
    expect(c.termDefinition('ex:born')?.id).toBe(EX + 'born');
  });

  it('derives a term IRI from @vocab when @id is omitted', () => {
    const c = ActiveContext.create({ '@vocab': SCHEMA, age: { '@type': 'xsd:integer' } });
    expect(c.termDefinition('age')).toEqual({ id: SCHEMA + 'age', reverse: false, type: XSD + 'integer', container: [], prefixUsable: true, prefix: false });
  });

  it('records reverse terms, including reverse @type', () => {
    const c = ActiveContext.create([C, { knownBy: { '@reverse': 'ex:knows' }, instances: { '@reverse': '@type' } }]);
    expect(c.termDefinition('knownBy')).toEqual({ id: EX + 'knows', reverse: true, container: [], prefixUsable: false, prefix: false });
    expect(c.termDefinition('instances')?.id).toBe('http://www.w3.org/1999/02/22-rdf-syntax-ns#type');
  });

  it('records path aliases', () => {
    const c = ActiveContext.create([C, { reaches: { '@path': 'ex:knows+' } }]);
    expect(c.termDefinition('reaches')).toEqual({ id: null, reverse: false, container: [], prefixUsable: false, prefix: false, path: 'ex:knows+' });
  });

  it('maps a term to null', () => {
    const c = ActiveContext.create([{ name: SCHEMA + 'name' }, { name: null }]);
    expect(c.termDefinition('name')?.id).toBeNull();
    expect(c.expandIri('name', true)).toBe('name');
  });

  it('merges arrays left to right and resets on null', () => {
    const c = ActiveContext.create([C, { ex: 'http://other/' }]);
    expect(c.expandIri('ex:a', true)).toBe('http://other/a');
    const reset = ActiveContext.create([C, null, { s: SCHEMA }]);
    expect(reset.expandIri('ex:a', true)).toBe('ex:a');
    expect(reset.expandIri('s:name', true)).toBe(SCHEMA + 'name');
  });

  it('layers a nested context over its parent', () => {
    const outer = ActiveContext.create(C);
    const inner = ActiveContext.create({ '@vocab': EX, schema: 'http://schema2/' }, outer);
    expect(inner.expandIri('ex:a', true)).toBe(EX + 'a');
    expect(inner.expandIri('schema:a', true)).toBe('http://schema2/a');
    expect(inner.expandIri('city', true)).toBe(EX + 'city');
    expect(outer.expandIri('schema:a', true)).toBe(SCHEMA + 'a');
  });

  it('keeps the default language', () => {
    expect(ActiveContext.create({ '@language': 'EN' }).language).toBe('en');
    expect(ActiveContext.create([{ '@language': 'en' }, { '@language': null }]).language).toBeNull();
  });

  it('ignores @version 1.1, @protected and @propagate; ignores unknown @-words', () => {
    const c = ActiveContext.create({ '@version': 1.1, '@protected': true, '@propagate': false, '@foo': 1, ex: EX });
    expect(c.expandIri('ex:a', true)).toBe(EX + 'a');
    expect([...c.termNames()]).toEqual(['ex']);
  });

  it('rejects remote and malformed contexts with 400', () => {
    expect(error400(() => ActiveContext.create('http://schema.org/')).message)
      .toBe('remote contexts are not supported (got "http://schema.org/"); send the context as a JSON object');
    expect(error400(() => ActiveContext.create([C, 'https://x/ctx.jsonld'])).message).toContain('remote contexts are not supported');
    expect(error400(() => ActiveContext.create({ '@import': 'http://x' })).message).toContain('@import is not supported');
    expect(error400(() => ActiveContext.create(5)).message).toBe('invalid @context: expected an object, an array or null, got 5');
    expect(error400(() => ActiveContext.create({ a: 5 })).message).toBe('invalid term definition for "a": expected a string, an object or null');
    expect(error400(() => ActiveContext.create({ a: { '@id': EX, '@foo': 1 } })).message).toBe('invalid term definition for "a": unsupported key "@foo"');
    expect(error400(() => ActiveContext.create({ a: { '@container': '@index', '@id': EX } })).message).toBe('invalid term definition for "a": unsupported @container "@index"');
    expect(error400(() => ActiveContext.create({ a: { '@reverse': 'ex:b', '@path': 'ex:c' } })).message).toBe('invalid term definition for "a": @reverse and @path cannot be combined');
    expect(error400(() => ActiveContext.create({ a: { '@type': 'xsd:date' } })).message).toBe('invalid term definition for "a": no @id and no @vocab to derive its IRI from');
    expect(error400(() => ActiveContext.create({ a: 'b', b: 'a' })).message).toBe('invalid @context: cyclic definition of term "a"');
    expect(error400(() => ActiveContext.create({ '@version': 1.0 })).message).toBe('invalid @version 1; only 1.1 is accepted');
    expect(error400(() => ActiveContext.create({ '@vocab': 5 })).message).toBe('@vocab must be a string or null');
  });
});

describe('ActiveContext.compactIri', () => {
  const ctx = ActiveContext.create([C, { name: 'schema:name', nm: 'schema:name', '@vocab': 'http://vocab.org/' }]);

  it('prefers an exact term (shortest, then alphabetical) in vocab position', () => {
    expect(ctx.compactIri(SCHEMA + 'name', true)).toBe('nm');
  });

  it('uses prefixes only in @id position', () => {
    expect(ctx.compactIri(SCHEMA + 'name', false)).toBe('schema:name');
    expect(ctx.compactIri('http://vocab.org/x', false)).toBe('http://vocab.org/x');
  });

  it('falls back to @vocab, then the full IRI', () => {
    expect(ctx.compactIri('http://vocab.org/thing', true)).toBe('thing');
    expect(ctx.compactIri('http://nowhere.org/x', true)).toBe('http://nowhere.org/x');
  });

  it('chooses the longest matching prefix', () => {
    const c = ActiveContext.create({ ex: EX, exg: EX + 'g/' });
    expect(c.compactIri(EX + 'g/hr', false)).toBe('exg:hr');
    expect(c.compactIri(EX + 'ana', false)).toBe('ex:ana');
  });

  it('never compacts with undeclared built-in prefixes', () => {
    expect(ActiveContext.create(C).compactIri('http://www.w3.org/1999/02/22-rdf-syntax-ns#type', true))
      .toBe('http://www.w3.org/1999/02/22-rdf-syntax-ns#type');
    expect(ActiveContext.create(C).compactIri(XSD + 'date', true)).toBe('xsd:date');
  });

  it('only uses simple terms ending in a gen-delim, or @prefix: true, as prefixes', () => {
    const c = ActiveContext.create({ nm: SCHEMA + 'name', p: { '@id': 'http://p.org/', '@prefix': true }, q: { '@id': 'http://q.org/' } });
    expect(c.compactIri(SCHEMA + 'nameX', false)).toBe(SCHEMA + 'nameX');
    expect(c.compactIri('http://p.org/a', false)).toBe('p:a');
    expect(c.compactIri('http://q.org/a', false)).toBe('http://q.org/a');
    // ...but any plain term still works as a prefix when expanding.
    expect(c.expandIri('q:a', true)).toBe('http://q.org/a');
  });

  it('does not use reverse terms', () => {
    const c = ActiveContext.create([C, { knownBy: { '@reverse': 'ex:knows' } }]);
    expect(c.compactIri(EX + 'knows', true)).toBe('ex:knows');
  });
});

describe('resolveIri', () => {
  it('follows RFC 3986 §5.4 examples', () => {
    const base = 'http://a/b/c/d;p?q';
    const cases: [string, string][] = [
      ['g', 'http://a/b/c/g'], ['./g', 'http://a/b/c/g'], ['g/', 'http://a/b/c/g/'], ['/g', 'http://a/g'],
      ['//g', 'http://g'], ['?y', 'http://a/b/c/d;p?y'], ['g?y', 'http://a/b/c/g?y'], ['#s', 'http://a/b/c/d;p?q#s'],
      ['', 'http://a/b/c/d;p?q'], ['.', 'http://a/b/c/'], ['..', 'http://a/b/'], ['../g', 'http://a/b/g'],
      ['../..', 'http://a/'], ['../../g', 'http://a/g'], ['../../../g', 'http://a/g'], ['g;x=1/../y', 'http://a/b/c/y'],
      ['urn:x', 'urn:x'],
    ];
    for (const [ref, want] of cases) expect(resolveIri(ref, base), ref).toBe(want);
  });
});
