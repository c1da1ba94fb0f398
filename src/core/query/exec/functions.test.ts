import { describe, expect, it } from 'vitest';
import { LedgraphError } from '../../errors.js';
import { type BlankNode, type Term, blankNode, literal } from '../../rdf/terms.js';
import { ExprError, type FunctionContext, callFunction, ebv, functionArity, isKnownFunction } from './functions.js';
import { t } from '../../test-support/term-syntax.js';

const X = 'http://www.w3.org/2001/XMLSchema#';
const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';

/** The same compact syntax for results ("lex" for xsd:string, "lex"^^xsd:t for XSD types). */
function nt(r: Term): string {
  switch (r.termType) {
    case 'NamedNode': return '<' + r.value + '>';
    case 'BlankNode': return '_:' + r.value;
    case 'Literal': {
      const q = JSON.stringify(r.value);
      if (r.language) return q + '@' + r.language;
      const dt = r.datatype.value;
      if (dt === X + 'string') return q;
      return q + (dt.startsWith(X) ? '^^xsd:' + dt.slice(X.length) : '^^<' + dt + '>');
    }
  }
}

function ctx(): FunctionContext {
  let n = 0;
  const labels = new Map<string, BlankNode>();
  return {
    now: new Date('2024-05-01T12:34:56.789Z'),
    baseIri: 'http://example.org/',
    bnode(label?: string) {
      if (label === undefined) return blankNode('b' + n++);
      let b = labels.get(label);
      if (!b) { b = blankNode('b' + n++); labels.set(label, b); }
      return b;
    },
  };
}

const f = (name: string, ...args: string[]) => nt(callFunction(name, args.map(t), ctx()));
const fails = (name: string, ...args: string[]) => {
  try {
    const r = callFunction(name, args.map(t), ctx());
    return 'no error: ' + nt(r);
  } catch (e) {
    if (e instanceof ExprError) return 'ExprError';
    throw e;
  }
};
/** Run [name, args..., expected] rows; expected 'ExprError' means an evaluation error. */
function table(rows: string[][]) {
  for (const row of rows) {
    const [name, ...rest] = row;
    const expected = rest.pop()!;
    const got = expected === 'ExprError' ? fails(name!, ...rest) : f(name!, ...rest);
    expect([name, ...rest, got]).toEqual([name, ...rest, expected]);
  }
}

describe('ebv', () => {
  it('follows §17.2.2', () => {
    const cases: [string, boolean][] = [
      ['true', true], ['false', false], ['"0"^^xsd:boolean', false], ['"abc"^^xsd:boolean', false],
      ['0', false], ['0.0', false], ['"NaN"^^xsd:double', false], ['"-0.0e0"^^xsd:double', false], ['1', true],
      ['"0.001"^^xsd:decimal', true], ['"abc"^^xsd:integer', false], ['"300"^^xsd:byte', false],
      ['""', false], ['"a"', true], ['"a"@en', true], ['"0"', true],
    ];
    for (const [s, b] of cases) expect([s, ebv(t(s))]).toEqual([s, b]);
    for (const s of ['<http://a>', '_:b', '"2010-01-01"^^xsd:date', '"x"^^<http://ex/t>']) expect(() => ebv(t(s))).toThrow(ExprError);
  });
});

describe('operators', () => {
  it('does arithmetic with type promotion and canonical results', () => {
    table([
      ['+', '1', '2', '"3"^^xsd:integer'],
      ['+', '1', '2.5', '"3.5"^^xsd:decimal'],
      ['+', '1.5', '1.5', '"3.0"^^xsd:decimal'],
      ['+', '0.1', '0.2', '"0.3"^^xsd:decimal'],
      ['+', '1', '1e0', '"2.0E0"^^xsd:double'],
      ['+', '0.1e0', '0.2e0', '"3.0000000000000004E-1"^^xsd:double'],
      ['+', '"1"^^xsd:int', '"2"^^xsd:short', '"3"^^xsd:integer'],
      ['+', '"1.5"^^xsd:float', '1', '"2.5E0"^^xsd:float'],
      ['+', '"0.1"^^xsd:float', '"0.2"^^xsd:float', '"3.0E-1"^^xsd:float'],
      ['+', '"1.5"^^xsd:float', '1e0', '"2.5E0"^^xsd:double'],
      ['-', '5', '7', '"-2"^^xsd:integer'],
      ['-', '5', '"-5"^^xsd:integer'],
      ['+', '"7"^^xsd:byte', '"7"^^xsd:integer'],
      ['neg', '2.5', '"-2.5"^^xsd:decimal'],
      ['neg', '"1"^^xsd:int', '"-1"^^xsd:integer'],
      ['neg', '0e0', '"-0.0E0"^^xsd:double'],
      ['pos', '"1"^^xsd:byte', '"1"^^xsd:integer'],
      ['*', '2', '3', '"6"^^xsd:integer'],
      ['*', '1.5', '2', '"3.0"^^xsd:decimal'],
      ['*', '9223372036854775807', '2', '"18446744073709551614"^^xsd:integer'],
      ['/', '1', '2', '"0.5"^^xsd:decimal'],
      ['/', '4', '2', '"2.0"^^xsd:decimal'],
      ['/', '1', '3', '"0.333333333333333333333333"^^xsd:decimal'],
      ['/', '-1.5', '0.5', '"-3.0"^^xsd:decimal'],
      ['/', '1e0', '0', '"INF"^^xsd:double'],
      ['/', '-1e0', '0', '"-INF"^^xsd:double'],
      ['/', '0e0', '0', '"NaN"^^xsd:double'],
      ['/', '"1"^^xsd:float', '0', '"INF"^^xsd:float'],
      ['/', '1', '0', 'ExprError'],
      ['/', '1.0', '0.0', 'ExprError'],
      ['+', '"1"', '2', 'ExprError'],
      ['+', '<http://a>', '1', 'ExprError'],
      ['+', '"abc"^^xsd:integer', '1', 'ExprError'],
      ['*', 'true', '1', 'ExprError'],
      ['neg', '"1"', 'ExprError'],
    ]);
  });

  it('compares', () => {
    table([
      ['=', '1', '1.0', '"true"^^xsd:boolean'],
      ['=', '"a"', '"a"@en', 'ExprError'],
      ['!=', '1', '"1"', 'ExprError'],
      ['!=', '1', '2', '"true"^^xsd:boolean'],
      ['!=', '"a"', '"a"^^xsd:string', '"false"^^xsd:boolean'],
      ['!=', '<http://a>', '"http://a"', '"true"^^xsd:boolean'],
      ['!=', '"x"^^<http://ex/t>', '"y"^^<http://ex/t>', 'ExprError'],
      ['<', '1', '2', '"true"^^xsd:boolean'],
      ['>', '1', '2', '"false"^^xsd:boolean'],
      ['<=', '2', '2.0', '"true"^^xsd:boolean'],
      ['>=', '"b"', '"a"', '"true"^^xsd:boolean'],
      ['>', '"2010-06-21T11:28:01Z"^^xsd:dateTime', '"2008-06-20T23:59:00Z"^^xsd:dateTime', '"true"^^xsd:boolean'],
      ['<', '"NaN"^^xsd:double', '1', '"false"^^xsd:boolean'],
      ['>=', '"NaN"^^xsd:double', '"NaN"^^xsd:double', '"false"^^xsd:boolean'],
      ['<', '"a"', '1', 'ExprError'],
      ['<', '<http://a>', '<http://b>', 'ExprError'],
      ['!', 'true', '"false"^^xsd:boolean'],
      ['!', '""', '"true"^^xsd:boolean'],
      ['!', '<http://a>', 'ExprError'],
    ]);
  });
});

describe('numeric functions (W3C functions/abs01, ceil01, floor01, round01)', () => {
  it('keeps the primitive type; decimals in XSD 1.1 canonical form (no ".0" on whole numbers)', () => {
    table([
      ['abs', '-2', '"2"^^xsd:integer'],
      ['abs', '-1.6', '"1.6"^^xsd:decimal'],
      ['abs', '-2.0', '"2"^^xsd:decimal'],
      ['abs', '"-0.50"^^xsd:decimal', '"0.5"^^xsd:decimal'],
      ['abs', '"-1"^^xsd:int', '"1"^^xsd:integer'],
      ['abs', '"-1.5e0"^^xsd:double', '"1.5E0"^^xsd:double'],
      ['abs', '"abc"', 'ExprError'],
      ['ceil', '-1', '"-1"^^xsd:integer'],
      ['ceil', '2.5', '"3"^^xsd:decimal'],
      ['ceil', '1.1', '"2"^^xsd:decimal'],
      ['ceil', '-1.6', '"-1"^^xsd:decimal'],
      ['ceil', '-0.5', '"0"^^xsd:decimal'],
      ['ceil', '"-0.5e0"^^xsd:double', '"-0.0E0"^^xsd:double'],
      ['floor', '2.5', '"2"^^xsd:decimal'],
      ['floor', '1.1', '"1"^^xsd:decimal'],
      ['floor', '-1.6', '"-2"^^xsd:decimal'],
      ['floor', '"1.5"^^xsd:float', '"1.0E0"^^xsd:float'],
      ['round', '2.5', '"3"^^xsd:decimal'],
      ['round', '-2.5', '"-2"^^xsd:decimal'],
      ['round', '1.1', '"1"^^xsd:decimal'],
      ['round', '-1.6', '"-2"^^xsd:decimal'],
      ['round', '-2', '"-2"^^xsd:integer'],
      ['round', '2.5e0', '"3.0E0"^^xsd:double'],
      ['round', '-2.5e0', '"-2.0E0"^^xsd:double'],
      ['round', '"0.5"^^xsd:float', '"1.0E0"^^xsd:float'],
    ]);
  });

  it('operators keep the XSD 1.0 canonical forms the functions above drop', () => {
    table([
      ['+', '1.0', '2', '"3.0"^^xsd:decimal'],
      ['/', '4', '2', '"2.0"^^xsd:decimal'],
      ['-', '-2.0', '"2.0"^^xsd:decimal'],
      ['+', '"2E-1"^^xsd:double', '0.2', '"4.0E-1"^^xsd:double'],
      ['+', '"1.0E2"^^xsd:double', '"2.0E3"^^xsd:double', '"2.1E3"^^xsd:double'],
    ]);
  });

  it('RAND returns a double in [0, 1)', () => {
    for (let i = 0; i < 20; i++) {
      const r = callFunction('rand', [], ctx());
      expect(r.termType === 'Literal' && r.datatype.value).toBe(X + 'double');
      const v = Number(r.value);
      expect(v >= 0 && v < 1).toBe(true);
    }
  });
});

describe('string functions', () => {
  it('STRLEN, SUBSTR count code points (W3C length01, substring01/02 incl. non-BMP)', () => {
    table([
      ['strlen', '"食べ物"', '"3"^^xsd:integer'],
      ['strlen', '"\u{1F46A}a"', '"2"^^xsd:integer'],
      ['strlen', '"bar"@en', '"3"^^xsd:integer'],
      ['strlen', '""', '"0"^^xsd:integer'],
      ['strlen', '<http://a>', 'ExprError'],
      ['strlen', '1', 'ExprError'],
      ['substr', '"bar"@en', '1', '1', '"b"@en'],
      ['substr', '"食べ物"', '2', '"べ物"'],
      ['substr', '"\u{1F46A}abc"', '2', '2', '"ab"'],
      ['substr', '"abc"^^xsd:string', '2', '"bc"'],
      // XPath fn:substring examples.
      ['substr', '"12345"', '1.5', '2.6', '"234"'],
      ['substr', '"12345"', '0', '3', '"12"'],
      ['substr', '"12345"', '5', '-3', '""'],
      ['substr', '"12345"', '-3', '5', '"1"'],
      ['substr', '"12345"', '"NaN"^^xsd:double', '3', '""'],
      ['substr', '"12345"', '-42', '"INF"^^xsd:double', '"12345"'],
      ['substr', '"12345"', '"-INF"^^xsd:double', '"INF"^^xsd:double', '""'],
      ['substr', '"abc"', '"2"', 'ExprError'],
    ]);
  });

  it('UCASE, LCASE keep the language tag', () => {
    table([
      ['ucase', '"foo"', '"FOO"'],
      ['ucase', '"bar"@en', '"BAR"@en'],
      ['ucase', '"食べ物"', '"食べ物"'],
      ['ucase', '"straße"', '"STRASSE"'],
      ['lcase', '"BAZ"', '"baz"'],
      ['lcase', '"DEF"^^xsd:string', '"def"'],
      ['lcase', '1', 'ExprError'],
    ]);
  });

  it('STRSTARTS, STRENDS, CONTAINS check argument compatibility', () => {
    table([
      ['strstarts', '"foobar"', '"foo"', '"true"^^xsd:boolean'],
      ['strstarts', '"foobar"@en', '"foo"', '"true"^^xsd:boolean'],
      ['strstarts', '"foobar"@en', '"foo"@en', '"true"^^xsd:boolean'],
      ['strstarts', '"foobar"@en', '"foo"^^xsd:string', '"true"^^xsd:boolean'],
      ['strstarts', '"foobar"@en', '"foo"@fr', 'ExprError'],
      ['strstarts', '"foobar"', '"foo"@en', 'ExprError'],
      ['strstarts', '1', '"1"', 'ExprError'],
      ['strends', '"abc"', '"bc"', '"true"^^xsd:boolean'],
      ['strends', '"abc"', '"b"', '"false"^^xsd:boolean'],
      ['contains', '"bar"@en', '"a"', '"true"^^xsd:boolean'],
      ['contains', '"foo"', '""', '"true"^^xsd:boolean'],
      ['contains', '"foo"', '"a"', '"false"^^xsd:boolean'],
    ]);
  });

  it('STRBEFORE, STRAFTER (W3C strbefore02, strafter02)', () => {
    table([
      ['strbefore', '"abc"', '"b"', '"a"'],
      ['strbefore', '"abc"@en', '"bc"', '"a"@en'],
      ['strbefore', '"abc"@en', '"b"@cy', 'ExprError'],
      ['strbefore', '"abc"', '""', '""'],
      ['strbefore', '"abc"@en', '""', '""@en'],
      ['strbefore', '"abc"@en', '""@en', '""@en'],
      ['strbefore', '"abc"@en', '"b"^^xsd:string', '"a"@en'],
      ['strbefore', '"abc"@en', '"xyz"^^xsd:string', '""'],
      ['strbefore', '"abc"', '""@en', 'ExprError'],
      ['strafter', '"abc"', '"b"', '"c"'],
      ['strafter', '"abc"@en', '"ab"', '"c"@en'],
      ['strafter', '"abc"', '""', '"abc"'],
      ['strafter', '"abc"@en', '""', '"abc"@en'],
      ['strafter', '"abc"@en', '"xyz"', '""'],
      ['strafter', '"abc"@en', '"b"@cy', 'ExprError'],
      ['strafter', '"english"@en', '"e"', '"nglish"@en'],
    ]);
  });

  it('ENCODE_FOR_URI (W3C encode01)', () => {
    table([
      ['encode_for_uri', '"Los Angeles"', '"Los%20Angeles"'],
      ['encode_for_uri', '"食べ物"', '"%E9%A3%9F%E3%81%B9%E7%89%A9"'],
      ['encode_for_uri', '"100%"', '"100%25"'],
      ['encode_for_uri', '"bar"@en', '"bar"'],
      ['encode_for_uri', '"~._-!*\'()"', '"~._-%21%2A%27%28%29"'],
      ['encode_for_uri', '"\u{1F600}"', '"%F0%9F%98%80"'],
    ]);
  });

  it('CONCAT types its result by its arguments (W3C concat01/02)', () => {
    table([
      ['concat', '""'],
      ['concat', '"abc"^^xsd:string', '"abc"'],
      ['concat', '"abc"', '"DEF"', '"abcDEF"'],
      ['concat', '"english"@en', '"english"@en', '"englishenglish"@en'],
      ['concat', '"abc"@en', '"def"@fr', '"abcdef"'],
      ['concat', '"123"', '"english"@en', '"123english"'],
      ['concat', '"a"', '1', 'ExprError'],
    ]);
  });

  it('LANGMATCHES uses RFC 4647 basic filtering', () => {
    table([
      ['langmatches', '"en"', '"en"', '"true"^^xsd:boolean'],
      ['langmatches', '"en-US"', '"en"', '"true"^^xsd:boolean'],
      ['langmatches', '"en"', '"en-US"', '"false"^^xsd:boolean'],
      ['langmatches', '"EN-us"', '"en-US"', '"true"^^xsd:boolean'],
      ['langmatches', '"english"', '"en"', '"false"^^xsd:boolean'],
      ['langmatches', '"fr"', '"*"', '"true"^^xsd:boolean'],
      ['langmatches', '""', '"*"', '"false"^^xsd:boolean'],
      ['langmatches', '""', '""', '"true"^^xsd:boolean'],
      ['langmatches', '"en"@en', '"en"', 'ExprError'],
    ]);
  });

  it('REGEX translates XPath patterns and flags', () => {
    const T = '"true"^^xsd:boolean', F = '"false"^^xsd:boolean';
    table([
      ['regex', '"abc"', '"^a"', T],
      ['regex', '"ABC"', '"b"', '"i"', T],
      ['regex', '"abc"@en', '"b"', T],
      ['regex', '"abc"', '"B"', F],
      ['regex', '"a\\nb"', '"a.b"', F],
      ['regex', '"a\\nb"', '"a.b"', '"s"', T],
      ['regex', '"a\\nb"', '"^b$"', F],
      ['regex', '"a\\nb"', '"^b$"', '"m"', T],
      ['regex', '"abc"', '"a b c"', '"x"', T],
      ['regex', '"a c"', '"a[ ]c"', '"x"', T],
      ['regex', '"a.c"', '"."', '"q"', T],
      ['regex', '"abc"', '"."', '"q"', F],
      ['regex', '"食べ物"', '"^\\\\p{IsCJKUnifiedIdeographs}"', T],
      ['regex', '"\u0663"', '"^\\\\d$"', T],
      ['regex', '"abc"', '"^[a-z-[b]]+$"', F],
      ['regex', '"acd"', '"^[a-z-[b]]+$"', T],
      ['regex', '"x:y"', '"^\\\\i\\\\c*$"', T],
      ['regex', '"1x"', '"^\\\\i"', F],
      ['regex', '"a-b"', '"a\\\\-b"', T],
      ['regex', '"é!"', '"^\\\\w\\\\W$"', T],
      ['regex', '"3B1A2B3C-4D5E-6F70-8192-A3B4C5D6E7F8"', '"^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$"', '"i"', T],
      ['regex', '"a cat"', '"\\\\bcat\\\\b"', T],
      ['regex', '"concat"', '"\\\\bcat"', F],
      ['regex', '"abc"', '"["', 'ExprError'],
      ['regex', '"abc"', '"a"', '"z"', 'ExprError'],
      ['regex', '"abc"', '"\\\\k"', 'ExprError'],
      ['regex', '1', '"1"', 'ExprError'],
      ['regex', '"abc"', '"b"@en', 'ExprError'],
    ]);
  });

  it('REPLACE (W3C replace01-03, replace-case-insensitive, XPath examples)', () => {
    table([
      ['replace', '"aAbBaC"', '"a"', '"~/"', '"i"', '"~/~/bB~/C"'],
      ['replace', '"日本語"@ja', '"[^a-z0-9]"', '"-"', '"---"@ja'],
      ['replace', '"français"@fr', '"[^a-z0-9]"', '"-"', '"fran-ais"@fr'],
      ['replace', '"banana"', '"ana"', '"*"', '"b*na"'],
      ['replace', '"abcd"', '"(ab)|(a)"', '"[1=$1][2=$2]"', '"[1=ab][2=]cd"'],
      ['replace', '"abracadabra"', '"bra"', '"*"', '"a*cada*"'],
      ['replace', '"abracadabra"', '"a(.)"', '"a$1$1"', '"abbraccaddabbra"'],
      ['replace', '"AAAA"', '"A+"', '"b"', '"b"'],
      ['replace', '"AAAA"', '"A+?"', '"b"', '"bbbb"'],
      ['replace', '"darted"', '"^(.*?)d(.*)$"', '"$1c$2"', '"carted"'],
      ['replace', '"abc"', '"(a)"', '"$10"', '"a0bc"'],
      ['replace', '"abc"', '"b"', '"\\\\$x"', '"a$xc"'],
      ['replace', '"a.b.c"', '"."', '"$"', '"q"', '"a$b$c"'],
      ['replace', '"abc"', '"b"', '"$"', 'ExprError'],
      ['replace', '"abc"', '"b"', '"\\\\x"', 'ExprError'],
      ['replace', '"abc"', '"x*"', '"-"', 'ExprError'],
      ['replace', '7', '"7"', '"-"', 'ExprError'],
    ]);
  });

  it('hash functions take simple literals (W3C md5-01/02, sha*-01/02)', () => {
    table([
      ['md5', '"foo"', '"acbd18db4cc2f85cedef654fccc4a4d8"'],
      ['md5', '"食べ物"', '"e7ada485d13b1decf628c9211bc3a97b"'],
      ['sha1', '"foo"', '"0beec7b5ea3f0fdbc95d0dd47f3c5bc275da8a33"'],
      ['sha1', '"食"', '"d46696735b6a09ff407bfc1a9407e008840db9c9"'],
      ['sha256', '"foo"', '"2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"'],
      ['sha256', '"食"', '"0fbe868d1df356ca9df7ebff346da3a56280e059a7ea81186ef885b140d254ee"'],
      ['sha384', '"foo"', '"98c11ffdfdd540676b1a137cb1a22b2a70350c9a44171d6b1180c6be5cbb2ee3f79d532c8a1dd9ef2e8e08e752a3babb"'],
      ['sha384', '"食"', '"adfda7e9ad8789b391855038d0d74dce3efe3af1eefcea35d50b91d6c244a0c546375445b518c9fb61e03e6a060bc95d"'],
      ['sha512', '"foo"', '"f7fbba6e0636f890e56fbbf3283e524c6fa3204ae298382d624741d0dc6638326e282c41be5e4254d8820772c5518a2c5a8c0c7f7eda19594a7eb539453e1ed7"'],
      ['sha512', '"食"', '"b433ed0e60c818bea72d3aa1a43db89b3ed2b624597407b7912bbb7685f2e45ae5500e092da5f938391d282b26bc43e4035b12460c93ab5e2e1a05d582331d85"'],
      ['md5', '"foo"@en', 'ExprError'],
      ['sha1', '1', 'ExprError'],
    ]);
  });
});

describe('term functions', () => {
  it('STR, LANG, DATATYPE', () => {
    table([
      ['str', '<http://a>', '"http://a"'],
      ['str', '"abc"@en', '"abc"'],
      ['str', '1.50', '"1.50"'],
      ['str', '_:b', 'ExprError'],
      ['lang', '"abc"@en', '"en"'],
      ['lang', '"abc"', '""'],
      ['lang', '<http://a>', 'ExprError'],
      ['datatype', '"abc"', `<${X}string>`],
      ['datatype', '"abc"@en', `<${RDF}langString>`],
      ['datatype', '1', `<${X}integer>`],
      ['datatype', '"x"^^<http://ex/t>', '<http://ex/t>'],
      ['datatype', '<http://a>', 'ExprError'],
    ]);
  });

  it('IRI/URI resolve against the base (W3C iri01/02, RFC 3986 §5.4)', () => {
    table([
      ['iri', '"iri"', '<http://example.org/iri>'],
      ['uri', '"uri"', '<http://example.org/uri>'],
      ['iri', '<http://example.org/iri>', '<http://example.org/iri>'],
      ['iri', '"http://other/a"', '<http://other/a>'],
      ['iri', '"a b"', 'ExprError'],
      ['iri', '1', 'ExprError'],
      ['iri', '"x"@en', 'ExprError'],
    ]);
    const base = 'http://a/b/c/d;p?q';
    const rfc: [string, string][] = [
      ['g', 'http://a/b/c/g'], ['./g', 'http://a/b/c/g'], ['g/', 'http://a/b/c/g/'], ['/g', 'http://a/g'],
      ['//g', 'http://g'], ['?y', 'http://a/b/c/d;p?y'], ['g?y', 'http://a/b/c/g?y'], ['#s', 'http://a/b/c/d;p?q#s'],
      ['', 'http://a/b/c/d;p?q'], ['.', 'http://a/b/c/'], ['..', 'http://a/b/'], ['../g', 'http://a/b/g'],
      ['../../../g', 'http://a/g'], ['g;x=1/../y', 'http://a/b/c/y'], ['/./g', 'http://a/g'], ['g#s', 'http://a/b/c/g#s'],
    ];
    for (const [ref, want] of rfc) {
      const r = callFunction('iri', [literal(ref)], { ...ctx(), baseIri: base });
      expect([ref, r.value]).toEqual([ref, want]);
    }
    expect(() => callFunction('iri', [literal('rel')], { ...ctx(), baseIri: undefined })).toThrow(ExprError);
  });

  it('BNODE scopes labels through the context (W3C bnode01/02)', () => {
    const c = ctx();
    const a = callFunction('bnode', [], c), b = callFunction('bnode', [], c);
    expect([a.termType, a.value, b.value]).toEqual(['BlankNode', 'b0', 'b1']);
    const x1 = callFunction('BNODE', [literal('foo')], c), x2 = callFunction('bnode', [literal('foo')], c);
    expect(x1).toEqual(x2);
    expect(() => callFunction('bnode', [t('1')], c)).toThrow(ExprError);
  });

  it('isIRI, isBlank, isLiteral, isNumeric, sameTerm', () => {
    const T = '"true"^^xsd:boolean', F = '"false"^^xsd:boolean';
    table([
      ['isiri', '<http://a>', T], ['isuri', '"a"', F], ['isblank', '_:x', T], ['isblank', '<http://a>', F],
      ['isliteral', '"a"', T], ['isliteral', '_:x', F],
      ['isnumeric', '1', T], ['isnumeric', '"1"', F], ['isnumeric', '"1200"^^xsd:byte', F], ['isnumeric', '"1e0"^^xsd:double', T],
      ['isnumeric', '"abc"^^xsd:decimal', F],
      ['sameterm', '1', '1.0', F], ['sameterm', '1', '"1"^^xsd:integer', T], ['sameterm', '"a"@en', '"a"@EN', T],
    ]);
  });

  it('STRDT, STRLANG take simple literals (W3C strdt01-03, strlang01-03)', () => {
    table([
      ['strdt', '"123"', `<${X}integer>`, '"123"^^xsd:integer'],
      ['strdt', '"bar"', `<${X}string>`, '"bar"'],
      ['strdt', '"x"', '<http://ex/t>', '"x"^^<http://ex/t>'],
      ['strdt', '"bar"@en', `<${X}string>`, 'ExprError'],
      ['strdt', '1', `<${X}string>`, 'ExprError'],
      ['strdt', '"x"', '"http://ex/t"', 'ExprError'],
      ['strdt', '"x"', `<${RDF}langString>`, 'ExprError'],
      ['strlang', '"bar"', '"en-US"', '"bar"@en-us'],
      ['strlang', '"bar"@en', '"en-US"', 'ExprError'],
      ['strlang', '"foo"', '""', 'ExprError'],
      ['strlang', '"foo"', '"en"@en', 'ExprError'],
      ['strlang', '1', '"en"', 'ExprError'],
    ]);
  });

  it('UUID and STRUUID (W3C uuid01/02, struuid01)', () => {
    const u1 = callFunction('uuid', [], ctx()), u2 = callFunction('uuid', [], ctx());
    expect(u1.termType).toBe('NamedNode');
    expect(u1.value).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(u1.value.length).toBe(45);
    expect(u1.value).not.toBe(u2.value);
    const s = callFunction('struuid', [], ctx());
    expect(s.termType === 'Literal' && s.datatype.value).toBe(X + 'string');
    expect(s.value).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('date/time functions (W3C year-01 … tz-01, now01)', () => {
  it('extracts components', () => {
    const d1 = '"2010-06-21T11:28:01Z"^^xsd:dateTime', d2 = '"2010-12-21T15:38:02-08:00"^^xsd:dateTime';
    const d3 = '"2008-06-20T23:59:00Z"^^xsd:dateTime', d4 = '"2011-02-01T01:02:03"^^xsd:dateTime';
    table([
      ['year', d1, '"2010"^^xsd:integer'], ['year', d3, '"2008"^^xsd:integer'], ['year', d4, '"2011"^^xsd:integer'],
      ['month', d1, '"6"^^xsd:integer'], ['month', d2, '"12"^^xsd:integer'], ['month', d4, '"2"^^xsd:integer'],
      ['day', d1, '"21"^^xsd:integer'], ['day', d3, '"20"^^xsd:integer'], ['day', d4, '"1"^^xsd:integer'],
      ['hours', d1, '"11"^^xsd:integer'], ['hours', d2, '"15"^^xsd:integer'], ['hours', d3, '"23"^^xsd:integer'],
      ['minutes', d1, '"28"^^xsd:integer'], ['minutes', d2, '"38"^^xsd:integer'], ['minutes', d4, '"2"^^xsd:integer'],
      ['seconds', d1, '"1"^^xsd:decimal'], ['seconds', d3, '"0"^^xsd:decimal'],
      ['seconds', '"2010-06-21T11:28:02.750Z"^^xsd:dateTime', '"2.75"^^xsd:decimal'],
      ['year', '"-0044-03-15T12:00:00Z"^^xsd:dateTime', '"-44"^^xsd:integer'],
      ['year', '"2010-12-31T24:00:00Z"^^xsd:dateTime', '"2011"^^xsd:integer'],
      ['hours', '"2010-12-31T24:00:00Z"^^xsd:dateTime', '"0"^^xsd:integer'],
      ['year', '"2010-06-21"^^xsd:date', '"2010"^^xsd:integer'],
      ['hours', '"13:20:00"^^xsd:time', '"13"^^xsd:integer'],
      ['hours', '"2010-06-21"^^xsd:date', 'ExprError'],
      ['year', '"2010-06-21T11:28:01Z"', 'ExprError'],
      ['year', '"2010-02-30T11:28:01Z"^^xsd:dateTime', 'ExprError'],
    ]);
  });

  it('TIMEZONE and TZ', () => {
    table([
      ['timezone', '"2010-06-21T11:28:01Z"^^xsd:dateTime', '"PT0S"^^xsd:dayTimeDuration'],
      ['timezone', '"2010-12-21T15:38:02-08:00"^^xsd:dateTime', '"-PT8H"^^xsd:dayTimeDuration'],
      ['timezone', '"2010-12-21T15:38:02+05:30"^^xsd:dateTime', '"PT5H30M"^^xsd:dayTimeDuration'],
      ['timezone', '"2011-02-01T01:02:03"^^xsd:dateTime', 'ExprError'],
      ['tz', '"2010-06-21T11:28:01Z"^^xsd:dateTime', '"Z"'],
      ['tz', '"2010-12-21T15:38:02-08:00"^^xsd:dateTime', '"-08:00"'],
      ['tz', '"2010-12-21T15:38:02+00:00"^^xsd:dateTime', '"+00:00"'],
      ['tz', '"2011-02-01T01:02:03"^^xsd:dateTime', '""'],
      ['tz', '"2011-02-01"^^xsd:date', '""'],
      ['tz', '"x"', 'ExprError'],
    ]);
  });

  it('NOW returns the query time as xsd:dateTime', () => {
    expect(f('now')).toBe('"2024-05-01T12:34:56.789Z"^^xsd:dateTime');
  });
});

describe('XSD casts (W3C cast/*)', () => {
  // Rows: source, then xsd:string, integer, decimal, double, float, boolean, dateTime ('-' = error).
  const rows: string[][] = [
    ['<http://example.org/z>', '"http://example.org/z"', '-', '-', '-', '-', '-', '-'],
    ['"string"', '"string"', '-', '-', '-', '-', '-', '-'],
    ['"-10.2E3"', '"-10.2E3"', '-', '-', '"-1.02E4"^^xsd:double', '"-1.02E4"^^xsd:float', '-', '-'],
    ['"+33.3300"', '"+33.3300"', '-', '"33.33"^^xsd:decimal', '"3.333E1"^^xsd:double', '"3.333E1"^^xsd:float', '-', '-'],
    ['"0.0"', '"0.0"', '-', '"0.0"^^xsd:decimal', '"0.0E0"^^xsd:double', '"0.0E0"^^xsd:float', '-', '-'],
    ['"0"', '"0"', '"0"^^xsd:integer', '"0.0"^^xsd:decimal', '"0.0E0"^^xsd:double', '"0.0E0"^^xsd:float', '"false"^^xsd:boolean', '-'],
    ['"0E1"', '"0E1"', '-', '-', '"0.0E0"^^xsd:double', '"0.0E0"^^xsd:float', '-', '-'],
    ['"1.5"', '"1.5"', '-', '"1.5"^^xsd:decimal', '"1.5E0"^^xsd:double', '"1.5E0"^^xsd:float', '-', '-'],
    ['"1"', '"1"', '"1"^^xsd:integer', '"1.0"^^xsd:decimal', '"1.0E0"^^xsd:double', '"1.0E0"^^xsd:float', '"true"^^xsd:boolean', '-'],
    ['"1E0"', '"1E0"', '-', '-', '"1.0E0"^^xsd:double', '"1.0E0"^^xsd:float', '-', '-'],
    ['"13"', '"13"', '"13"^^xsd:integer', '"13.0"^^xsd:decimal', '"1.3E1"^^xsd:double', '"1.3E1"^^xsd:float', '-', '-'],
    ['"2002-10-10T17:00:00Z"', '"2002-10-10T17:00:00Z"', '-', '-', '-', '-', '-', '"2002-10-10T17:00:00Z"^^xsd:dateTime'],
    ['"false"', '"false"', '-', '-', '-', '-', '"false"^^xsd:boolean', '-'],
    ['"true"', '"true"', '-', '-', '-', '-', '"true"^^xsd:boolean', '-'],
    ['true', '"true"', '"1"^^xsd:integer', '"1.0"^^xsd:decimal', '"1.0E0"^^xsd:double', '"1.0E0"^^xsd:float', '"true"^^xsd:boolean', '-'],
    ['false', '"false"', '"0"^^xsd:integer', '"0.0"^^xsd:decimal', '"0.0E0"^^xsd:double', '"0.0E0"^^xsd:float', '"false"^^xsd:boolean', '-'],
    ['"0"^^xsd:boolean', '"false"', '"0"^^xsd:integer', '"0.0"^^xsd:decimal', '"0.0E0"^^xsd:double', '"0.0E0"^^xsd:float', '"false"^^xsd:boolean', '-'],
    ['0', '"0"', '"0"^^xsd:integer', '"0.0"^^xsd:decimal', '"0.0E0"^^xsd:double', '"0.0E0"^^xsd:float', '"false"^^xsd:boolean', '-'],
    ['1', '"1"', '"1"^^xsd:integer', '"1.0"^^xsd:decimal', '"1.0E0"^^xsd:double', '"1.0E0"^^xsd:float', '"true"^^xsd:boolean', '-'],
    ['-1', '"-1"', '"-1"^^xsd:integer', '"-1.0"^^xsd:decimal', '"-1.0E0"^^xsd:double', '"-1.0E0"^^xsd:float', '"true"^^xsd:boolean', '-'],
    ['0.0', '"0"', '"0"^^xsd:integer', '"0.0"^^xsd:decimal', '"0.0E0"^^xsd:double', '"0.0E0"^^xsd:float', '"false"^^xsd:boolean', '-'],
    ['1.0', '"1"', '"1"^^xsd:integer', '"1.0"^^xsd:decimal', '"1.0E0"^^xsd:double', '"1.0E0"^^xsd:float', '"true"^^xsd:boolean', '-'],
    ['-1.0', '"-1"', '"-1"^^xsd:integer', '"-1.0"^^xsd:decimal', '"-1.0E0"^^xsd:double', '"-1.0E0"^^xsd:float', '"true"^^xsd:boolean', '-'],
    ['0E1', '"0"', '"0"^^xsd:integer', '"0.0"^^xsd:decimal', '"0.0E0"^^xsd:double', '"0.0E0"^^xsd:float', '"false"^^xsd:boolean', '-'],
    ['1E0', '"1"', '"1"^^xsd:integer', '"1.0"^^xsd:decimal', '"1.0E0"^^xsd:double', '"1.0E0"^^xsd:float', '"true"^^xsd:boolean', '-'],
    ['"0E1"^^xsd:float', '"0"', '"0"^^xsd:integer', '"0.0"^^xsd:decimal', '"0.0E0"^^xsd:double', '"0.0E0"^^xsd:float', '"false"^^xsd:boolean', '-'],
    ['"1E0"^^xsd:float', '"1"', '"1"^^xsd:integer', '"1.0"^^xsd:decimal', '"1.0E0"^^xsd:double', '"1.0E0"^^xsd:float', '"true"^^xsd:boolean', '-'],
    ['"1.25"^^xsd:float', '"1.25"', '"1"^^xsd:integer', '"1.25"^^xsd:decimal', '"1.25E0"^^xsd:double', '"1.25E0"^^xsd:float', '"true"^^xsd:boolean', '-'],
    ['"-7.875"^^xsd:float', '"-7.875"', '"-7"^^xsd:integer', '"-7.875"^^xsd:decimal', '"-7.875E0"^^xsd:double', '"-7.875E0"^^xsd:float', '"true"^^xsd:boolean', '-'],
    ['2.5', '"2.5"', '"2"^^xsd:integer', '"2.5"^^xsd:decimal', '"2.5E0"^^xsd:double', '"2.5E0"^^xsd:float', '"true"^^xsd:boolean', '-'],
    ['-2.5', '"-2.5"', '"-2"^^xsd:integer', '"-2.5"^^xsd:decimal', '"-2.5E0"^^xsd:double', '"-2.5E0"^^xsd:float', '"true"^^xsd:boolean', '-'],
  ];
  const targets = ['string', 'integer', 'decimal', 'double', 'float', 'boolean', 'dateTime'];

  it('follows the §17.5 cast table on the W3C cast data', () => {
    for (const [src, ...want] of rows) {
      targets.forEach((target, i) => {
        const expected = want[i] === '-' ? 'ExprError' : want[i]!;
        const got = expected === 'ExprError' ? fails(X + target, src!) : f(X + target, src!);
        expect([src, target, got]).toEqual([src, target, expected]);
      });
    }
  });

  it('casts to the other XSD types by XPath rules', () => {
    table([
      [X + 'int', '"300"', '"300"^^xsd:int'],
      [X + 'byte', '"300"', 'ExprError'],
      [X + 'byte', '300', 'ExprError'],
      [X + 'unsignedInt', '-1.5', 'ExprError'],
      [X + 'integer', '"12345678901234567890123"', '"12345678901234567890123"^^xsd:integer'],
      [X + 'integer', '"1e3"^^xsd:double', '"1000"^^xsd:integer'],
      [X + 'integer', '"NaN"^^xsd:double', 'ExprError'],
      [X + 'decimal', '"INF"^^xsd:double', 'ExprError'],
      [X + 'decimal', '"1.1"^^xsd:float', '"1.1"^^xsd:decimal'],
      [X + 'double', '"1.1"^^xsd:float', '"1.100000023841858E0"^^xsd:double'],
      [X + 'float', '"1.1"^^xsd:double', '"1.1E0"^^xsd:float'],
      [X + 'double', '" 1.5 "', '"1.5E0"^^xsd:double'],
      [X + 'double', '"INF"', '"INF"^^xsd:double'],
      [X + 'integer', '"abc"^^xsd:integer', 'ExprError'],
      [X + 'string', '"x"^^<http://ex/t>', '"x"'],
      [X + 'string', `"{\\"a\\":1}"^^<${RDF}JSON>`, '"{\\"a\\":1}"'],
      [X + 'integer', '"x"^^<http://ex/t>', 'ExprError'],
      [X + 'string', '"chat"@fr', '"chat"'],
      [X + 'integer', '"1"@en', 'ExprError'],
      [X + 'string', '_:b', 'ExprError'],
      [X + 'string', '"2010-06-21T11:28:01.500Z"^^xsd:dateTime', '"2010-06-21T11:28:01.5Z"'],
      [X + 'date', '"2010-06-21T10:00:00Z"^^xsd:dateTime', '"2010-06-21Z"^^xsd:date'],
      [X + 'dateTime', '"2010-06-21"^^xsd:date', '"2010-06-21T00:00:00"^^xsd:dateTime'],
      [X + 'time', '"2010-06-21T10:00:00-05:00"^^xsd:dateTime', '"10:00:00-05:00"^^xsd:time'],
      [X + 'gYear', '"2010-06-21T10:00:00Z"^^xsd:dateTime', '"2010Z"^^xsd:gYear'],
      [X + 'time', '"2010-06-21"^^xsd:date', 'ExprError'],
      [X + 'date', '"2010-12-31T24:00:00Z"^^xsd:dateTime', '"2011-01-01Z"^^xsd:date'],
      [X + 'date', '"2010-02-30"', 'ExprError'],
      [X + 'dateTime', '"2010-12-31T24:00:00"', '"2011-01-01T00:00:00"^^xsd:dateTime'],
      [X + 'dayTimeDuration', '"P1DT2H"^^xsd:duration', '"P1DT2H"^^xsd:dayTimeDuration'],
      [X + 'yearMonthDuration', '"P1Y2M3D"^^xsd:duration', '"P1Y2M"^^xsd:yearMonthDuration'],
      [X + 'duration', '"PT36H"', '"P1DT12H"^^xsd:duration'],
      [X + 'token', '"  a   b "', '"a b"^^xsd:token'],
      [X + 'language', '"en-US"', '"en-US"^^xsd:language'],
      [X + 'language', '"not a tag"', 'ExprError'],
      [X + 'anyURI', '<http://a>', '"http://a"^^xsd:anyURI'],
      [X + 'string', '1e6', '"1.0E6"'],
    ]);
  });

  it("a cast to the literal's own datatype gives the canonical form, not the input term", () => {
    table([
      [X + 'double', '"2E-1"^^xsd:double', '"2.0E-1"^^xsd:double'],
      [X + 'float', '"1.25"^^xsd:float', '"1.25E0"^^xsd:float'],
      [X + 'decimal', '"01.50"^^xsd:decimal', '"1.5"^^xsd:decimal'],
      [X + 'decimal', '"2"^^xsd:decimal', '"2.0"^^xsd:decimal'],
      [X + 'integer', '"007"^^xsd:integer', '"7"^^xsd:integer'],
      [X + 'boolean', '"1"^^xsd:boolean', '"true"^^xsd:boolean'],
    ]);
  });
});

describe('callFunction dispatch', () => {
  it('accepts built-in names in any case', () => {
    expect(f('STRLEN', '"abc"')).toBe('"3"^^xsd:integer');
    expect(f('StrStarts', '"abc"', '"a"')).toBe('"true"^^xsd:boolean');
  });

  it('rejects unknown functions and wrong arity with 400, not ExprError', () => {
    const err = (name: string, args: string[]) => {
      try { callFunction(name, args.map(t), ctx()); } catch (e) {
        expect(e).toBeInstanceOf(LedgraphError);
        return [(e as LedgraphError).status, (e as LedgraphError).type, (e as LedgraphError).message];
      }
      return undefined;
    };
    expect(err('foo', [])).toEqual([400, 'err:db/BadRequest', 'unknown function foo']);
    expect(err('http://example.org/fn', ['1'])).toEqual([400, 'err:db/BadRequest', 'unknown function <http://example.org/fn>']);
    expect(err(X + 'nope', ['1'])).toEqual([400, 'err:db/BadRequest', `unknown function <${X}nope>`]);
    expect(err('strlen', [])).toEqual([400, 'err:db/BadRequest', 'wrong number of arguments for strlen: expected 1, got 0']);
    expect(err('substr', ['"a"'])).toEqual([400, 'err:db/BadRequest', 'wrong number of arguments for substr: expected 2 to 3, got 1']);
    expect(err(X + 'integer', ['1', '2'])).toEqual([400, 'err:db/BadRequest', `wrong number of arguments for ${X}integer: expected 1, got 2`]);
  });

  it('reports what it knows', () => {
    expect(isKnownFunction('concat')).toBe(true);
    expect(isKnownFunction('REGEX')).toBe(true);
    expect(isKnownFunction(X + 'dateTime')).toBe(true);
    expect(isKnownFunction(X + 'foo')).toBe(false);
    expect(isKnownFunction('bound')).toBe(false);
    expect(functionArity('concat')).toEqual([0, Infinity]);
    expect(functionArity('regex')).toEqual([2, 3]);
    expect(functionArity('-')).toEqual([1, 2]);
    expect(functionArity('nope')).toBeUndefined();
  });
});
