/**
 * Input generators for the HTTP fuzzer: near-valid documents (a valid seed under a few mutations:
 * truncation, byte flips, inserted grammar tokens, deep nesting, huge literals, odd unicode and
 * invalid UTF-8, invalid escapes, deleted or repeated ranges) and grammar-aware random documents
 * (Turtle-family token streams, JSON-LD-shaped JSON). Mutations are data, so fast-check shrinks a
 * failing input to few, small mutations.
 */
import fc from 'fast-check';

/** Size bounds: the quick slice in `npm test` keeps them small, long runs use the full range. */
export interface Bounds { maxDepth: number; maxLiteral: number; maxName: number }

export const QUICK_BOUNDS: Bounds = { maxDepth: 64, maxLiteral: 64 * 1024, maxName: 64 };
export const LONG_BOUNDS: Bounds = { maxDepth: 20_000, maxLiteral: 4 * 1024 * 1024, maxName: 1024 };

/** Unicode oddities: NUL, noncharacters, bidi overrides, combining marks, zero-width, BOM, separators, astral. */
const ODD_UNICODE = ['\u0000', '\uFFFE', '\uFFFF', '\u202E', 'e\u0301\u0301', '\u200B', '\uFEFF', '\u2028', '\u{1F600}', '\u{10FFFF}', 'İ', 'ß', '\uD800', '\uDC00x'];
/** Bytes that are not UTF-8: a lone surrogate, an overlong NUL, 0xFF, a truncated sequence. */
const BAD_UTF8 = [[0xed, 0xa0, 0x80], [0xc0, 0x80], [0xff], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80]];
const BAD_ESCAPES = ['\\u00ZZ', '\\U0011FFFF', '\\UFFFFFFFF', '\\x41', '\\', '\\uD800', '%ZZ', '%00', '\\"', '\\\\u', '&#0;', '\\u{41}'];

/** Grammar tokens worth inserting, per body family. */
export const TOKENS = {
  sparql: ['{', '}', '(', ')', '[', ']', '.', ';', ',', '?x', '$y', '*', 'OPTIONAL {', 'UNION', 'FILTER(', 'BIND(', ' AS ?z)', 'VALUES ?v { 1 }', 'GRAPH ?g {', 'SERVICE <http://127.0.0.1:1/> {', 'SELECT * WHERE {', 'a', '^^', '@en', '"', '"""', "'", '<', '>', '<>', '_:b', '[]', '|', '/', '^', '+', '?', '!', 'EXISTS {', 'REGEX(?x, "(a+)+$")', 'COUNT(*)', 'GROUP BY', 'ORDER BY', 'LIMIT 99999999999999999999', 'OFFSET -1', '1e999999', '0x10', 'PREFIX : <a:>', 'BASE <rel>', '#', '\n', 'LOAD <file:///etc/passwd>', 'FROM <other:main@t:999999>', 'DESCRIBE *', ';;', 'DELETE', 'INSERT', 'WITH <x:>'],
  turtle: ['<', '>', '<>', '"', '"""', "'''", '@prefix', 'PREFIX', '@base', '.', ';', ',', '[', ']', '(', ')', '{', '}', '_:', 'a', '^^', '@', '@en-', 'GRAPH', 'true', '1.', '.5', '1e', '+-1', ':', 'ex:', 'x:y:z', '\\', '#', '\n', '\r', '<http://[::1>', '<a b>'],
  json: ['{', '}', '[', ']', ',', ':', '"', '"@id"', '"@type"', '"@value"', '"@list"', '"@graph"', '"@context"', '"@reverse"', '"@language"', 'null', 'true', '1e309', '-0', '9007199254740993', '"?x"', '"select"', '"where"', '"filter"', '"(> ?x 1)"', '"@vocab"', '"@nest"', '"@included"', '"@index"', '"__proto__"', '"constructor"'],
  jws: ['.', '..', '=', '-', '_', '+', '/', 'eyJ', 'e30', 'eyJhbGciOiJub25lIn0', 'eyJhbGciOiJIUzI1NiJ9', 'eyJhbGciOiJFZERTQSIsImp3ayI6e319', ' ', 'Bearer ', '\t'],
} as const;
export type Family = keyof typeof TOKENS;

/** Open/close pairs for deep nesting, per family. */
const NESTERS: Record<Family, [string, string][]> = {
  sparql: [['{ ', ' }'], ['OPTIONAL { ', ' }'], ['(', ')'], ['{ SELECT * WHERE { ', ' } }'], ['(!', ')'], ['[ <p:p> ', ' ]'], ['(', ')/<p:p>']],
  turtle: [['[ <p:p> ', ' ]'], ['( ', ' )'], ['{ ', ' }']],
  json: [['[', ']'], ['{"a":', '}'], ['{"@list":[', ']}'], ['{"ex:p":{"@id":"ex:x","ex:q":', '}}'], ['["filter",', ']'], ['{"where":', '}']],
  jws: [['eyJ', '']],
};

export type Mutation =
  | { op: 'truncate'; at: number }
  | { op: 'flip'; at: number; bit: number }
  | { op: 'insert'; at: number; text: string }
  | { op: 'bytes'; at: number; bytes: number[] }
  | { op: 'delete'; at: number; len: number }
  | { op: 'repeat'; at: number; len: number; times: number }
  | { op: 'nest'; at: number; open: string; close: string; depth: number }
  | { op: 'literal'; at: number; quote: string; size: number };

const enc = new TextEncoder();
const pos = (at: number, n: number) => (n === 0 ? 0 : at % (n + 1));

/** Apply one mutation to bytes. */
export function applyMutation(b: Uint8Array, m: Mutation): Uint8Array {
  const at = pos(m.at, b.length);
  const splice = (ins: Uint8Array, end = at) => {
    const out = new Uint8Array(at + ins.length + (b.length - end));
    out.set(b.subarray(0, at));
    out.set(ins, at);
    out.set(b.subarray(end), at + ins.length);
    return out;
  };
  switch (m.op) {
    case 'truncate': return b.subarray(0, at);
    case 'flip': { if (!b.length) return b; const out = b.slice(); const i = at % b.length; out[i] = out[i]! ^ (1 << m.bit); return out; }
    case 'insert': return splice(enc.encode(m.text));
    case 'bytes': return splice(Uint8Array.from(m.bytes));
    case 'delete': return splice(new Uint8Array(0), Math.min(b.length, at + m.len));
    case 'repeat': { const part = b.subarray(at, Math.min(b.length, at + m.len)); const ins = new Uint8Array(part.length * m.times); for (let i = 0; i < m.times; i++) ins.set(part, i * part.length); return splice(ins); }
    case 'nest': return splice(enc.encode(m.open.repeat(m.depth) + m.close.repeat(m.depth)));
    case 'literal': return splice(enc.encode(m.quote + 'x'.repeat(m.size) + m.quote));
  }
}

/** A size up to `max`, mostly small: big inputs are worth trying but cost the most to send. */
function sizeArb(min: number, max: number): fc.Arbitrary<number> {
  const mid = Math.min(max, Math.max(min, 1024));
  return fc.oneof(
    { weight: 8, arbitrary: fc.integer({ min, max: Math.min(max, Math.max(min, 64)) }) },
    { weight: 3, arbitrary: fc.integer({ min, max: mid }) },
    { weight: 1, arbitrary: fc.integer({ min, max }) },
  );
}

/** A mutation arbitrary for a body family under the given bounds. */
export function mutationArb(family: Family, bounds: Bounds): fc.Arbitrary<Mutation> {
  const at = fc.nat({ max: 1 << 20 });
  const nest = fc.constantFrom(...NESTERS[family]);
  return fc.oneof(
    { arbitrary: at.map((a) => ({ op: 'truncate' as const, at: a })), weight: 3 },
    { arbitrary: fc.record({ op: fc.constant('flip' as const), at, bit: fc.integer({ min: 0, max: 7 }) }), weight: 3 },
    { arbitrary: fc.record({ op: fc.constant('insert' as const), at, text: fc.constantFrom(...TOKENS[family], ...ODD_UNICODE, ...BAD_ESCAPES) }), weight: 5 },
    { arbitrary: fc.record({ op: fc.constant('insert' as const), at, text: fc.string({ unit: 'binary', maxLength: 12 }) }), weight: 1 },
    { arbitrary: fc.record({ op: fc.constant('bytes' as const), at, bytes: fc.constantFrom(...BAD_UTF8) }), weight: 1 },
    { arbitrary: fc.record({ op: fc.constant('delete' as const), at, len: fc.integer({ min: 1, max: 64 }) }), weight: 2 },
    { arbitrary: fc.record({ op: fc.constant('repeat' as const), at, len: fc.integer({ min: 1, max: 40 }), times: fc.integer({ min: 2, max: 200 }) }), weight: 1 },
    { arbitrary: fc.tuple(at, nest, sizeArb(2, bounds.maxDepth)).map(([a, [open, close], depth]) => ({ op: 'nest' as const, at: a, open, close, depth })), weight: 1 },
    { arbitrary: fc.record({ op: fc.constant('literal' as const), at, quote: fc.constantFrom('"', "'", '"""', ''), size: sizeArb(1, bounds.maxLiteral) }), weight: 1 },
  );
}

/** A seed (one of `seeds`) under 1–3 mutations, as bytes. */
export function mutatedArb(seeds: readonly string[], family: Family, bounds: Bounds): fc.Arbitrary<Uint8Array> {
  return fc.tuple(fc.constantFrom(...seeds), fc.array(mutationArb(family, bounds), { minLength: 1, maxLength: 3 }))
    .map(([seed, ms]) => ms.reduce(applyMutation, enc.encode(seed)));
}

// ---------------------------------------------------------------------------------------------
// Grammar-aware random documents

const pname = fc.constantFrom('ex:a', 'ex:p', 'ex:', ':x', 'a', 'ex:a.b', 'ex:%41', 'ex:a\\~b', 'undefined:x');
const iriRef = fc.oneof(fc.constantFrom('<http://example.org/fz/a>', '<>', '<#frag>', '<rel/ative>', '<urn:x>', '<http://ex.org/é>', '<http://ex.org/\\u0041>'),
  fc.string({ maxLength: 20 }).map((s) => `<${s}>`));
const turtleLiteral = fc.oneof(
  fc.string({ maxLength: 20 }).map((s) => JSON.stringify(s)),
  fc.constantFrom('"x"@en', '"x"@en-GB-oxendict', '"1"^^<http://www.w3.org/2001/XMLSchema#integer>', '"no"^^xsd:boolean', '"x"^^ex:dt', '"""a"b"""', "'s'", '1', '-0.0', '1E400', 'true', '"2020-13-45"^^<http://www.w3.org/2001/XMLSchema#date>', '"\\uD800"', '"x"@'),
);
const bnode = fc.constantFrom('_:b0', '_:b.1', '[]', '_:');
const turtleTerm = fc.oneof(iriRef, pname, turtleLiteral, bnode);

/** Turtle / TriG / N-Triples / N-Quads shaped statements from random terms (`graphs`: allow a fourth term or graph blocks). */
export function rdfTextArb(graphs: boolean, lineBased: boolean): fc.Arbitrary<string> {
  const stmt = lineBased
    ? fc.tuple(turtleTerm, turtleTerm, turtleTerm, graphs ? fc.option(turtleTerm, { nil: '' }) : fc.constant('')).map((ts) => ts.filter(Boolean).join(' ') + ' .')
    : fc.tuple(turtleTerm, fc.array(fc.tuple(turtleTerm, fc.array(turtleTerm, { minLength: 1, maxLength: 3 })), { minLength: 1, maxLength: 3 }))
      .map(([s, pos]) => `${s} ${pos.map(([p, os]) => `${p} ${os.join(' , ')}`).join(' ; ')} .`);
  const block = graphs && !lineBased ? fc.tuple(fc.option(turtleTerm, { nil: '' }), fc.array(stmt, { maxLength: 3 })).map(([g, ss]) => `${g} { ${ss.join(' ')} }`) : stmt;
  const header = lineBased ? fc.constant('') : fc.constantFrom('', '@prefix ex: <http://example.org/fz/> .\n', 'PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\nPREFIX ex: <http://example.org/fz/>\n', '@base <http://b/> .\n');
  return fc.tuple(header, fc.array(block, { maxLength: 6 })).map(([h, bs]) => h + bs.join('\n'));
}

const jsonKey = fc.constantFrom('@id', '@type', '@value', '@language', '@list', '@set', '@graph', '@context', '@reverse', '@index', '@nest', '@direction', '@vocab', '@base', '@included', '@json',
  'ex:p', 'ex:q', 'schema:name', 'select', 'selectOne', 'selectDistinct', 'where', 'values', 'filter', 'bind', 'optional', 'union', 'orderBy', 'groupBy', 'having', 'limit', 'offset', 'from', 'fromNamed',
  't', 'opts', 'insert', 'delete', 'ledger', 'construct', 'depth', 'ex', 'meta', 'maxFuel', 'timeoutMs', 'queries', 'language', 'query', '__proto__', 'constructor');
const jsonScalar = fc.oneof(
  fc.constantFrom('?x', '?y', 'ex:a', 'ex:p', '@id', '@type', 'http://example.org/fz/alice', '(> ?x 1)', '(count ?x)', '(regex ?x "(a+)+$")', 'xsd:integer', 'en', '*', 'fz:main', 'fz:main@t:1', 'sparql', 'jsonld'),
  fc.string({ maxLength: 16 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null),
);

/** JSON-LD shaped JSON (keywords and query-language keys with random values), as text. */
export const jsonLdArb: fc.Arbitrary<string> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', maxDepth: 5 },
    { weight: 4, arbitrary: jsonScalar },
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(jsonKey, tie('v'), { maxKeys: 5 }),
  ),
})).v.map((v) => JSON.stringify({ '@context': { ex: 'http://example.org/fz/', xsd: 'http://www.w3.org/2001/XMLSchema#' }, ...(typeof v === 'object' && v && !Array.isArray(v) ? v : { v }) }));
