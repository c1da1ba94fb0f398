import { describe, expect, it } from 'vitest';
import { blankNode, literal, namedNode } from '../../rdf/terms.js';
import { xsd } from '../../rdf/vocab.js';
import { tableToResult, type ResultTable } from './sparql-json.js';
import { parseSparqlXml, parseXml, toSparqlXml, xmlTextContent } from './sparql-xml.js';

const table: ResultTable = {
  type: 'bindings',
  variables: ['s', 'o'],
  rows: [
    { s: namedNode('http://example.org/a?x=1&y=2'), o: literal('<b> & "c"\r\n') },
    { s: blankNode('b0'), o: literal('chat', 'fr') },
    { o: literal('1', namedNode(xsd.integer)) },
  ],
};

describe('SPARQL XML writer', () => {
  it('writes solutions with escaped text and attributes', async () => {
    expect(await toSparqlXml(tableToResult(table))).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
      '<sparql xmlns="http://www.w3.org/2005/sparql-results#">\n' +
      '  <head>\n' +
      '    <variable name="s"/>\n' +
      '    <variable name="o"/>\n' +
      '  </head>\n' +
      '  <results>\n' +
      '    <result>\n' +
      '      <binding name="s"><uri>http://example.org/a?x=1&amp;y=2</uri></binding>\n' +
      '      <binding name="o"><literal>&lt;b&gt; &amp; "c"&#13;\n</literal></binding>\n' +
      '    </result>\n' +
      '    <result>\n' +
      '      <binding name="s"><bnode>b0</bnode></binding>\n' +
      '      <binding name="o"><literal xml:lang="fr">chat</literal></binding>\n' +
      '    </result>\n' +
      '    <result>\n' +
      '      <binding name="o"><literal datatype="http://www.w3.org/2001/XMLSchema#integer">1</literal></binding>\n' +
      '    </result>\n' +
      '  </results>\n' +
      '</sparql>\n');
  });

  it('writes booleans', async () => {
    expect(await toSparqlXml({ type: 'boolean', value: true })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">\n' +
      '  <head/>\n  <boolean>true</boolean>\n</sparql>\n');
  });

  it('refuses characters XML cannot carry', async () => {
    await expect(toSparqlXml(tableToResult({ type: 'bindings', variables: ['x'], rows: [{ x: literal('\u0001') }] })))
      .rejects.toThrow(/XML 1.0/);
  });

  it('round-trips through the parser (CR and markup preserved)', async () => {
    expect(parseSparqlXml(await toSparqlXml(tableToResult(table)))).toEqual(table);
    expect(parseSparqlXml(await toSparqlXml({ type: 'boolean', value: false }))).toEqual({ type: 'boolean', value: false });
  });
});

describe('SPARQL XML parser', () => {
  it('reads prefixed namespaces, single quotes, comments, CDATA and character references', () => {
    const doc = `<?xml version="1.0"?>
<!DOCTYPE sparql [ <!ELEMENT x ANY> ]>
<!-- leading comment -->
<r:sparql xmlns:r='http://www.w3.org/2005/sparql-results#' xmlns:xs="http://www.w3.org/2001/XMLSchema#">
  <r:head><r:variable name="x"/><r:variable name='y'/><r:link href="meta"/></r:head>
  <r:results>
    <r:result>
      <r:binding name="x"> <r:uri> http://example.org/x </r:uri> </r:binding>
      <r:binding name="y"><r:literal xml:lang="EN-gb">a<![CDATA[<&>]]>&#x263A;&#65;<!-- c --></r:literal></r:binding>
    </r:result>
    <r:result><r:binding name="y"><r:literal datatype="http://www.w3.org/2001/XMLSchema#string"> sp </r:literal></r:binding></r:result>
  </r:results>
</r:sparql>
`;
    expect(parseSparqlXml(doc)).toEqual({
      type: 'bindings', variables: ['x', 'y'],
      rows: [{ x: namedNode('http://example.org/x'), y: literal('a<&>\u263aA', 'en-gb') }, { y: literal(' sp ') }],
    });
  });

  it('reads booleans with surrounding whitespace', () => {
    expect(parseSparqlXml('<sparql xmlns="http://www.w3.org/2005/sparql-results#"><head></head><boolean>\n true </boolean></sparql>'))
      .toEqual({ type: 'boolean', value: true });
  });

  it('normalises line ends and attribute whitespace like an XML processor', () => {
    const root = parseXml('<a b="x\ty&#10;z">1\r\n2\r3</a>');
    expect(root.attrs.get('b')).toBe('x y\nz');
    expect(xmlTextContent(root)).toBe('1\n2\n3');
  });

  it('rejects malformed XML', () => {
    for (const bad of ['<a>', '<a></b>', '<a b=c/>', '<a>&nope;</a>', '<a>&</a>', '<a/><b/>', '<p:a/>', '<a b="1" b="2"/>', '<a>&#0;</a>']) {
      expect(() => parseXml(bad), bad).toThrow(expect.objectContaining({ name: 'LedgraphError', status: 400 }));
    }
  });

  it('rejects documents that are not SPARQL results', () => {
    expect(() => parseSparqlXml('<sparql/>')).toThrow(/root element/);
    expect(() => parseSparqlXml('<sparql xmlns="http://www.w3.org/2005/sparql-results#"><head/><results><result><binding name="x"/></result></results></sparql>'))
      .toThrow(/exactly one term/);
  });
});
