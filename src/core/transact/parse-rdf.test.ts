import { describe, expect, it } from 'vitest';
import { LedgraphError } from '../errors.js';
import { type Term, blankNode, defaultGraph, literal, namedNode } from '../rdf/terms.js';
import { parseRdfTxn } from './parse-rdf.js';
import type { GraphName, TxnQuad } from './txn-request.js';

const EX = 'http://example.org/';
const XSD = 'http://www.w3.org/2001/XMLSchema#';
const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const F = 'https://ns.ledgraph.dev/';
const ex = (l: string) => namedNode(EX + l);
const int = (n: number) => literal(String(n), namedNode(XSD + 'integer'));
const q = (s: TxnQuad['subject'], p: TxnQuad['predicate'], o: Term, g: GraphName = defaultGraph): TxnQuad => ({ subject: s, predicate: p, object: o, graph: g });

function msg(fn: () => unknown): string {
  try { fn(); } catch (e) {
    expect(e).toBeInstanceOf(LedgraphError);
    expect((e as LedgraphError).status).toBe(400);
    expect((e as LedgraphError).type).toBe('err:db/BadRequest');
    return (e as LedgraphError).message;
  }
  throw new Error('expected a 400');
}

describe('parseRdfTxn', () => {
  it('Turtle: prefixes, literals, language tags, types', () => {
    const r = parseRdfTxn(`@prefix ex: <${EX}> .
ex:ana a ex:Person ; ex:name "Ana" ; ex:age 34 ; ex:h 1.5 ; ex:ok true ; ex:motto "Carpe diem"@LA ; ex:born "1990-01-02"^^<${XSD}date> .`,
    'text/turtle', 'insert');
    expect(r).toEqual({
      kind: 'insert',
      quads: [
        q(ex('ana'), namedNode(RDF + 'type'), ex('Person')),
        q(ex('ana'), ex('name'), literal('Ana')),
        q(ex('ana'), ex('age'), int(34)),
        q(ex('ana'), ex('h'), literal('1.5', namedNode(XSD + 'decimal'))),
        q(ex('ana'), ex('ok'), literal('true', namedNode(XSD + 'boolean'))),
        q(ex('ana'), ex('motto'), literal('Carpe diem', 'la')),
        q(ex('ana'), ex('born'), literal('1990-01-02', namedNode(XSD + 'date'))),
      ],
      meta: [],
      opts: {},
    });
  });

  it('upsert mode', () => {
    expect(parseRdfTxn(`<${EX}a> <${EX}p> 1 .`, 'application/n-triples', 'upsert')).toEqual({
      kind: 'upsert', quads: [q(ex('a'), ex('p'), int(1))], meta: [], opts: {},
    });
  });

  it('blank nodes: written labels kept, anonymous ones labelled b0, b1, ... skipping used labels; collections stay triples', () => {
    const r = parseRdfTxn(`@prefix ex: <${EX}> .
_:b0 ex:p [ ex:q _:x ] .
ex:s ex:list ( 1 ) .`, 'text/turtle', 'insert');
    expect(r.kind === 'insert' && r.quads).toEqual([
      q(blankNode('b1'), ex('q'), blankNode('x')),
      q(blankNode('b0'), ex('p'), blankNode('b1')),
      q(blankNode('b2'), namedNode(RDF + 'first'), int(1)),
      q(blankNode('b2'), namedNode(RDF + 'rest'), namedNode(RDF + 'nil')),
      q(ex('s'), ex('list'), blankNode('b2')),
    ]);
  });

  it('labels do not depend on earlier parses (n3 numbers anonymous nodes process-wide)', () => {
    const text = `<${EX}s> <${EX}p> [ <${EX}q> 1 ] .`;
    const a = parseRdfTxn(text, 'text/turtle', 'insert');
    const b = parseRdfTxn(text, 'text/turtle', 'insert');
    expect(a).toEqual(b);
    expect(a.kind === 'insert' && a.quads[0]!.subject).toEqual(blankNode('b0'));
  });

  it('TriG: GRAPH blocks, compact blocks, and a <#txn-meta> block as commit metadata', () => {
    const r = parseRdfTxn(`@prefix ex: <${EX}> .
@prefix f: <${F}> .
ex:a ex:p 1 .
GRAPH ex:g1 { ex:a ex:p 2 }
ex:g2 { ex:a ex:p 3 }
<#txn-meta> { [] f:message "nightly import" ; ex:batch 7 . }`, 'application/trig', 'insert', 'http://base.org/doc');
    expect(r).toEqual({
      kind: 'insert',
      quads: [q(ex('a'), ex('p'), int(1)), q(ex('a'), ex('p'), int(2), ex('g1')), q(ex('a'), ex('p'), int(3), ex('g2'))],
      meta: [{ predicate: F + 'message', object: literal('nightly import') }, { predicate: EX + 'batch', object: int(7) }],
      opts: {},
    });
  });

  it('a literal #txn-meta graph (no base) and graph blocks in text/turtle', () => {
    const r = parseRdfTxn(`<${EX}a> <${EX}p> 1 .
<#txn-meta> { <urn:x> <${F}message> "m" }
<${EX}g> { <${EX}a> <${EX}p> 2 }`, 'text/turtle', 'insert');
    expect(r.meta).toEqual([{ predicate: F + 'message', object: literal('m') }]);
    expect(r.kind === 'insert' && r.quads).toEqual([q(ex('a'), ex('p'), int(1)), q(ex('a'), ex('p'), int(2), ex('g'))]);
  });

  it('relative IRIs resolve against the base IRI', () => {
    const r = parseRdfTxn('<a> <p> <../b> .', 'text/turtle', 'insert', 'http://base.org/x/doc');
    expect(r.kind === 'insert' && r.quads).toEqual([q(namedNode('http://base.org/x/a'), namedNode('http://base.org/x/p'), namedNode('http://base.org/b'))]);
  });

  it('a relative IRI without a base is a 400 naming it, never stored', () => {
    expect(() => parseRdfTxn('<a> <http://x/p> <http://x/o> .', 'text/turtle', 'insert')).toThrow(
      'relative IRI "a": give "@base" in the context or the base request parameter, or write an absolute IRI');
    expect(() => parseRdfTxn('<http://x/s> <http://x/p> <o> .', 'text/turtle', 'insert')).toThrow('relative IRI "o"');
    expect(() => parseRdfTxn('GRAPH <g> { <http://x/s> <http://x/p> 1 }', 'application/trig', 'insert')).toThrow('relative IRI "g"');
  });

  it('N-Quads: graphs and blank nodes', () => {
    const r = parseRdfTxn(`_:n <${EX}p> "x"@en-GB <${EX}g> .\n<${EX}a> <${EX}p> _:n .\n`, 'application/n-quads', 'insert');
    expect(r.kind === 'insert' && r.quads).toEqual([
      q(blankNode('n'), ex('p'), literal('x', 'en-gb'), ex('g')),
      q(ex('a'), ex('p'), blankNode('n')),
    ]);
  });

  it('blank graph names are labelled like blank subjects and objects (TriG, N-Quads)', () => {
    const r = parseRdfTxn(`_:g { <${EX}a> <${EX}p> [ <${EX}q> 2 ] }\n<${EX}b> <${EX}p> _:g .`, 'application/trig', 'insert');
    expect(r.kind === 'insert' && r.quads).toEqual([
      q(blankNode('b0'), ex('q'), int(2), blankNode('g')),
      q(ex('a'), ex('p'), blankNode('b0'), blankNode('g')),
      q(ex('b'), ex('p'), blankNode('g')),
    ]);
    const n = parseRdfTxn(`<${EX}a> <${EX}p> "x" _:h .\n_:h <${EX}p> "y" .\n`, 'application/n-quads', 'insert');
    expect(n.kind === 'insert' && n.quads).toEqual([q(ex('a'), ex('p'), literal('x'), blankNode('h')), q(blankNode('h'), ex('p'), literal('y'))]);
  });

  it('syntax errors are 400 with line and column', () => {
    expect(msg(() => parseRdfTxn('@prefix ex: <http://e/> .\nex:a ex:b\n  ex:c ex:d .', 'text/turtle', 'insert')))
      .toBe('invalid Turtle: Expected punctuation to follow "http://e/c" (line 3, column 8)');
    expect(msg(() => parseRdfTxn('ex:a ex:b ex:c .', 'text/turtle', 'insert')))
      .toBe('invalid Turtle: Undefined prefix "ex:" (line 1, column 1)');
    expect(msg(() => parseRdfTxn('<http://a> <http://b> <http://c> .\n<http://a> <http://b> "x', 'application/trig', 'insert')))
      .toBe('invalid TriG: Unexpected ""x" (line 2, column 23)');
    expect(msg(() => parseRdfTxn('<a> <http://p> <http://o> .', 'application/n-quads', 'insert')))
      .toBe('invalid N-Quads: Invalid IRI (line 1, column 1)');
  });

  it('rejects empty documents, reserved graphs, RDF-star and bad metadata', () => {
    expect(msg(() => parseRdfTxn('# nothing\n', 'text/turtle', 'insert'))).toBe('nothing to write: the document contains no triples');
    expect(msg(() => parseRdfTxn(`<#txn-meta> { [] <${F}message> "only meta" }`, 'application/trig', 'insert'))).toBe('nothing to write: the document contains no triples');
    expect(msg(() => parseRdfTxn(`<txn-meta> { <${EX}a> <${EX}p> 1 }`, 'application/trig', 'insert'))).toBe('the graph name "txn-meta" is reserved');
    expect(msg(() => parseRdfTxn(`<< <${EX}a> <${EX}b> <${EX}c> >> <${EX}p> 1 .`, 'text/turtle', 'insert'))).toBe('RDF-star triple terms are not supported');
    expect(msg(() => parseRdfTxn(`<${EX}a> <${EX}p> 1 .\n<#txn-meta> { [] <${F}t> 5 }`, 'application/trig', 'insert')))
      .toBe('<https://ns.ledgraph.dev/t> is written by the server and cannot be supplied as metadata');
    expect(msg(() => parseRdfTxn(`<${EX}a> <${EX}p> 1 .\n<#txn-meta> { [] <${EX}m> [ <${EX}x> 1 ] }`, 'application/trig', 'insert')))
      .toBe('metadata <http://example.org/m> cannot be a blank node or nested node');
    expect(msg(() => parseRdfTxn(`<${EX}a> <${EX}p> 1 .\n<http://example.org/${'g'.repeat(8192)}> { <${EX}a> <${EX}p> 1 }`, 'application/trig', 'insert')))
      .toBe('graph IRI too long: at most 8192 bytes');
  });
});
