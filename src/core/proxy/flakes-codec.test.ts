/** The storage-proxy flake format: exact bytes of a vector, round trips, and refusals. */
import { describe, expect, it } from 'vitest';
import { NamespaceTable } from '../commit/namespaces.js';
import { blankNode, literal, namedNode } from '../rdf/terms.js';
import { decodeFlakes, encodeFlakes } from './flakes-codec.js';
import { FLAKES_VECTOR, FLAKES_VECTOR_HEX } from './flakes-vector.js';
import { wireObject } from './leaf-flakes.js';

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
const unhex = (s: string) => new Uint8Array(s.match(/../g)!.map((h) => parseInt(h, 16)));

describe('flakes codec', () => {
  it('encodes the vector to its exact bytes and decodes it back', () => {
    expect(hex(encodeFlakes(FLAKES_VECTOR))).toBe(FLAKES_VECTOR_HEX);
    expect(decodeFlakes(unhex(FLAKES_VECTOR_HEX))).toEqual(FLAKES_VECTOR);
  });

  it('refuses a bad header, an unknown version, non-zero reserved bytes, bad CBOR and a non-array', () => {
    const good = unhex(FLAKES_VECTOR_HEX);
    const bad = (mut: (b: Uint8Array) => Uint8Array) => () => decodeFlakes(mut(good.slice()));
    expect(bad((b) => { b[0] = 0; return b; })).toThrow('malformed flakes block: bad magic');
    expect(bad((b) => { b[4] = 2; return b; })).toThrow('unknown version 2');
    expect(bad((b) => { b[6] = 1; return b; })).toThrow('reserved bytes must be zero');
    expect(bad((b) => b.subarray(0, b.length - 3))).toThrow('invalid CBOR');
    expect(() => decodeFlakes(new Uint8Array([0x46, 0x4c, 0x4b, 0x42, 1, 0, 0, 0, 0xa0]))).toThrow('expected a CBOR array');
  });
});

describe('wireObject', () => {
  const ns = new NamespaceTable();
  ns.split('http://example.org/x'); // allocates 100 for http://example.org/
  const XSD = 'http://www.w3.org/2001/XMLSchema#';
  const typed = (v: string, dt: string) => wireObject(ns, literal(v, namedNode(XSD + dt)));

  it('types canonical numbers and booleans natively, everything else by its exact lexical form', () => {
    expect(wireObject(ns, namedNode('http://example.org/bob'))).toEqual({ o: { type: 'ref', value: { ns: 100, name: 'bob' } }, dt: { ns: 0, name: '@id' } });
    expect(wireObject(ns, blankNode('b1')).o).toEqual({ type: 'ref', value: { ns: 0, name: '_:b1' } });
    expect(typed('42', 'integer')).toEqual({ o: { type: 'long', value: 42 }, dt: { ns: 1, name: 'integer' } });
    expect(typed('042', 'integer').o).toEqual({ type: 'string', value: '042' });
    expect(typed('123456789012345678', 'long').o).toEqual({ type: 'bigint', value: '123456789012345678' });
    expect(typed('1.5', 'double').o).toEqual({ type: 'double', value: 1.5 });
    expect(typed('1.50', 'double').o).toEqual({ type: 'string', value: '1.50' });
    expect(typed('INF', 'double').o).toEqual({ type: 'string', value: 'INF' });
    expect(typed('true', 'boolean').o).toEqual({ type: 'bool', value: true });
    expect(typed('1', 'boolean').o).toEqual({ type: 'string', value: '1' });
    expect(typed('1.50', 'decimal').o).toEqual({ type: 'bigdec', value: '1.50' });
    expect(typed('2024-01-02T03:04:05Z', 'dateTime').o).toEqual({ type: 'datetime', value: '2024-01-02T03:04:05Z' });
    expect(typed('2024-01-02', 'date').o).toEqual({ type: 'date', value: '2024-01-02' });
    expect(typed('03:04:05', 'time').o).toEqual({ type: 'time', value: '03:04:05' });
    expect(typed('P1D', 'duration')).toEqual({ o: { type: 'string', value: 'P1D' }, dt: { ns: 1, name: 'duration' } });
    expect(wireObject(ns, literal('{"a":1}', namedNode('http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON'))).o).toEqual({ type: 'json', value: '{"a":1}' });
    expect(wireObject(ns, literal('{ "a": 1 }', namedNode('http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON'))).o).toEqual({ type: 'json', value: '{ "a": 1 }' });
    expect(wireObject(ns, literal('hej', 'sv'))).toEqual({ o: { type: 'string', value: 'hej' }, dt: { ns: 2, name: 'langString' }, lang: 'sv' });
  });
});
