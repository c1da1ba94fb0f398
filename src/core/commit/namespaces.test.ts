import { describe, expect, test } from 'vitest';
import { NamespaceTable, deriveName, FIRST_ALLOCATED_NS, MAX_NS_CODE, RESERVED_NAMESPACES } from './namespaces.js';
import { expect422 } from '../test-support/expect-error.js';

describe('reserved codes', () => {
  test('table of replication.md §2', () => {
    expect(RESERVED_NAMESPACES.map(([c, p]) => [c, p])).toEqual([
      [0, ''],
      [1, 'http://www.w3.org/2001/XMLSchema#'],
      [2, 'http://www.w3.org/1999/02/22-rdf-syntax-ns#'],
      [3, 'http://www.w3.org/2000/01/rdf-schema#'],
      [4, 'http://www.w3.org/2002/07/owl#'],
      [5, 'http://www.w3.org/ns/shacl#'],
      [6, 'https://ns.ledgraph.dev/'],
      [7, 'did:key:'],
    ]);
    expect([FIRST_ALLOCATED_NS, MAX_NS_CODE]).toEqual([100, 65535]);
  });

  test('reserved IRIs split without allocating', () => {
    const t = new NamespaceTable();
    expect(t.split('http://www.w3.org/2001/XMLSchema#integer')).toEqual({ ns: 1, local: 'integer', isNew: false });
    expect(t.split('http://www.w3.org/1999/02/22-rdf-syntax-ns#type')).toEqual({ ns: 2, local: 'type', isNew: false });
    expect(t.split('http://www.w3.org/2000/01/rdf-schema#label')).toEqual({ ns: 3, local: 'label', isNew: false });
    expect(t.split('http://www.w3.org/2002/07/owl#sameAs')).toEqual({ ns: 4, local: 'sameAs', isNew: false });
    expect(t.split('http://www.w3.org/ns/shacl#path')).toEqual({ ns: 5, local: 'path', isNew: false });
    expect(t.split('https://ns.ledgraph.dev/message')).toEqual({ ns: 6, local: 'message', isNew: false });
    expect(t.split('did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK')).toEqual({ ns: 7, local: 'z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK', isNew: false });
    expect(t.size).toBe(8);
    expect(t.nextCode).toBe(100);
  });
});

describe('split and allocation', () => {
  test('codes are allocated from 100 in order of first use', () => {
    const t = new NamespaceTable();
    expect(t.split('http://example.org/alice')).toEqual({ ns: 100, local: 'alice', isNew: true });
    expect(t.split('http://example.org/bob')).toEqual({ ns: 100, local: 'bob', isNew: false });
    expect(t.split('http://other.org/vocab#name')).toEqual({ ns: 101, local: 'name', isNew: true });
    expect(t.split('urn:isbn:0451450523')).toEqual({ ns: 102, local: '0451450523', isNew: true });
    expect(t.allocated()).toEqual([[100, 'http://example.org/'], [101, 'http://other.org/vocab#'], [102, 'urn:isbn:']]);
  });

  test('split after the last / or #, only then after the last :', () => {
    const t = new NamespaceTable();
    expect(t.split('http://a.org/x#y/z')).toEqual({ ns: 100, local: 'z', isNew: true });
    expect(t.prefixOf(100)).toBe('http://a.org/x#y/');
    expect(t.split('http://b.org/p/q:r')).toEqual({ ns: 101, local: 'q:r', isNew: true });
    expect(t.split('http://c.org/')).toEqual({ ns: 102, local: '', isNew: true });
  });

  test('an IRI ending in / or # is split before its last segment, never inside the authority', () => {
    const t = new NamespaceTable();
    expect(t.split('http://www.Vendor1.com/Offer5/')).toEqual({ ns: 100, local: 'Offer5/', isNew: true });
    expect(t.prefixOf(100)).toBe('http://www.Vendor1.com/');
    expect(t.split('http://www.Vendor1.com/Offer6/')).toEqual({ ns: 100, local: 'Offer6/', isNew: false });
    expect(t.split('http://www.Vendor1.com/')).toEqual({ ns: 100, local: '', isNew: false });
    expect(t.split('http://d.org/a/b#')).toEqual({ ns: 101, local: 'b#', isNew: true });
    expect(t.prefixOf(101)).toBe('http://d.org/a/');
    expect(t.split('http://e.org/')).toEqual({ ns: 102, local: '', isNew: true });
    expect(t.split('http://f.org//')).toEqual({ ns: 103, local: '', isNew: true });
    expect(t.prefixOf(103)).toBe('http://f.org//');
    expect(t.split('urn:x:y/')).toEqual({ ns: 104, local: '', isNew: true });
    expect(t.split('tag:a/b/')).toEqual({ ns: 105, local: 'b/', isNew: true });
    expect(t.prefixOf(105)).toBe('tag:a/');
  });

  test('an IRI without a delimiter is code 0', () => {
    const t = new NamespaceTable();
    expect(t.split('relative')).toEqual({ ns: 0, local: 'relative', isNew: false });
    expect(t.lookup('relative')).toEqual({ ns: 0, local: 'relative' });
    expect(t.size).toBe(8);
  });

  test('longest known prefix wins over a new split', () => {
    const t = new NamespaceTable();
    t.split('http://example.org/a/b');
    expect(t.prefixOf(100)).toBe('http://example.org/a/');
    expect(t.split('http://example.org/x')).toEqual({ ns: 101, local: 'x', isNew: true });
    expect(t.split('http://example.org/a/c')).toEqual({ ns: 100, local: 'c', isNew: false });
    expect(t.split('http://example.org/z/deep/er')).toEqual({ ns: 101, local: 'z/deep/er', isNew: false });
    expect(t.split('https://ns.ledgraph.dev/sub/thing')).toEqual({ ns: 6, local: 'sub/thing', isNew: false });
  });

  test('lookup never allocates', () => {
    const t = new NamespaceTable();
    expect(t.lookup('http://example.org/a')).toBe(null);
    expect(t.nextCode).toBe(100);
    t.split('http://example.org/a');
    expect(t.lookup('http://example.org/b')).toEqual({ ns: 100, local: 'b' });
  });

  test('prefixes from foreign deltas need not end in a delimiter', () => {
    const t = new NamespaceTable();
    t.applyDelta([[100, 'http://x.org/pre']]);
    expect(t.split('http://x.org/prefix')).toEqual({ ns: 100, local: 'fix', isNew: false });
    expect(t.split('http://x.org/other')).toEqual({ ns: 101, local: 'other', isNew: true });
    expect(t.split('http://x.org/prelude')).toEqual({ ns: 100, local: 'lude', isNew: false });
  });

  test('past code 65,535 IRIs fall back to code 0', () => {
    const t = new NamespaceTable();
    t.applyDelta([[65535, 'http://last.org/']]);
    expect(t.nextCode).toBe(65536);
    expect(t.split('http://last.org/a')).toEqual({ ns: 65535, local: 'a', isNew: false });
    expect(t.split('http://new.org/a')).toEqual({ ns: 0, local: 'http://new.org/a', isNew: false });
    expect(t.lookup('http://new.org/a')).toEqual({ ns: 0, local: 'http://new.org/a' });
  });

  test('expand', () => {
    const t = new NamespaceTable();
    t.split('http://example.org/a');
    expect(t.expand(100, 'bob')).toBe('http://example.org/bob');
    expect(t.expand(0, 'whole:iri')).toBe('whole:iri');
    expect(t.expand(1, 'string')).toBe('http://www.w3.org/2001/XMLSchema#string');
    expect422(() => t.expand(101, 'x'), 'unknown namespace code 101');
  });

  test('clone is independent', () => {
    const a = new NamespaceTable();
    a.split('http://example.org/a');
    const b = a.clone();
    b.split('http://other.org/a');
    expect(a.prefixOf(101)).toBe(undefined);
    expect(b.prefixOf(101)).toBe('http://other.org/');
    expect(a.nextCode).toBe(101);
    expect(b.nextCode).toBe(102);
    expect(a.split('http://other.org/a')).toEqual({ ns: 101, local: 'a', isNew: true });
  });
});

describe('deltas', () => {
  test('applyDelta adds codes and moves the next code past them', () => {
    const t = new NamespaceTable();
    t.applyDelta([[100, 'http://a.org/'], [150, 'http://b.org/']]);
    expect(t.nextCode).toBe(151);
    expect(t.split('http://c.org/x')).toEqual({ ns: 151, local: 'x', isNew: true });
    expect(t.codeOf('http://b.org/')).toBe(150);
  });

  test('re-announcing a code with the same prefix is a no-op', () => {
    const t = new NamespaceTable();
    t.applyDelta([[100, 'http://a.org/']]);
    expect(t.checkDelta([[100, 'http://a.org/'], [101, 'http://b.org/']])).toEqual([[101, 'http://b.org/']]);
    t.applyDelta([[100, 'http://a.org/']]);
    expect(t.size).toBe(9);
  });

  test('contradictions are 422', () => {
    const t = new NamespaceTable();
    t.applyDelta([[100, 'http://a.org/']]);
    expect422(() => t.applyDelta([[100, 'http://b.org/']]), 'namespace delta contradicts the table: code 100 is "http://a.org/", not "http://b.org/"');
    expect422(() => t.applyDelta([[101, 'http://a.org/']]), 'namespace delta contradicts the table: prefix "http://a.org/" already has code 100');
    expect422(() => t.applyDelta([[101, 'http://www.w3.org/2001/XMLSchema#']]), 'namespace delta contradicts the table: prefix "http://www.w3.org/2001/XMLSchema#" already has code 1');
    expect422(() => t.applyDelta([[99, 'http://c.org/']]), 'namespace delta contradicts the table: code 99 is outside 100..65535');
    expect422(() => t.applyDelta([[65536, 'http://c.org/']]), 'namespace delta contradicts the table: code 65536 is outside 100..65535');
    expect422(() => t.applyDelta([[102, 'http://c.org/'], [101, 'http://d.org/']]), 'namespace delta contradicts the table: codes not strictly ascending at 101');
    expect422(() => t.applyDelta([[101, 'http://c.org/'], [102, 'http://c.org/']]), 'namespace delta contradicts the table: prefix "http://c.org/" announced twice');
    expect422(() => t.applyDelta([[101, '']]), 'namespace delta contradicts the table: empty prefix for code 101');
    // A failed delta leaves the table untouched.
    expect(t.size).toBe(9);
  });
});

describe('prefix names', () => {
  test('reserved names, well-known vocabularies, derived names, fallbacks', () => {
    const t = new NamespaceTable();
    t.split('http://example.org/alice');
    t.split('http://schema.org/name');
    t.split('http://data.acme.com/vocab/terms#x');
    t.split('https://www.acme.com/people/1');
    t.split('http://example.com/y');
    t.split('urn:ledgraph:commit:bagabc');
    t.split('http://127.0.0.1:8080/x');
    t.split('http://other.net/0.1/x');
    expect(t.prefixes()).toEqual({
      xsd: 'http://www.w3.org/2001/XMLSchema#',
      rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
      rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
      owl: 'http://www.w3.org/2002/07/owl#',
      sh: 'http://www.w3.org/ns/shacl#',
      f: 'https://ns.ledgraph.dev/',
      ex: 'http://example.org/',
      schema: 'http://schema.org/',
      terms: 'http://data.acme.com/vocab/terms#',
      people: 'https://www.acme.com/people/',
      ns104: 'http://example.com/',
      commit: 'urn:ledgraph:commit:',
      ns106: 'http://127.0.0.1:8080/',
      other: 'http://other.net/0.1/',
    });
    expect(t.prefixes([100, 1, 7, 0, 100])).toEqual({ xsd: 'http://www.w3.org/2001/XMLSchema#', ex: 'http://example.org/' });
    expect(t.nameOf(7)).toBe(undefined);
  });

  test('names are stable across clones and deltas', () => {
    const a = new NamespaceTable();
    a.applyDelta([[100, 'http://acme.com/'], [101, 'http://acme.org/']]);
    const b = a.clone();
    expect(b.prefixes([100, 101])).toEqual({ acme: 'http://acme.com/', ns101: 'http://acme.org/' });
  });

  test('deriveName', () => {
    expect(deriveName('http://example.net/vocab/')).toBe('vocab');
    expect(deriveName('http://www.acme.com/')).toBe('acme');
    expect(deriveName('http://acme.com/Some-Thing#')).toBe('something');
    expect(deriveName('http://acme.com/v1.2/')).toBe('v1');
    expect(deriveName('http://acme.com/123/')).toBe('acme');
    expect(deriveName('urn:isbn:')).toBe('isbn');
    expect(deriveName('http://10.0.0.1/')).toBe(null);
    expect(deriveName('http://http/')).toBe(null);
    expect(deriveName('tag:x.org,2024:')).toBe('x');
  });
});
