/** Test support: terms written in a compact Turtle-like syntax. Excluded from the build. */
import { type Term, blankNode, literal, namedNode } from '../rdf/terms.js';

const X = 'http://www.w3.org/2001/XMLSchema#';

/** A term from compact Turtle-like syntax: <iri>, _:b, "lex", "lex"@en, "lex"^^xsd:t, "lex"^^<dt>, 1, 1.5, 1e0, true. */
export function t(s: string): Term {
  if (s.startsWith('<')) return namedNode(s.slice(1, -1));
  if (s.startsWith('_:')) return blankNode(s.slice(2));
  if (s === 'true' || s === 'false') return literal(s, namedNode(X + 'boolean'));
  const m = /^"((?:[^"\\]|\\.)*)"(?:@([A-Za-z0-9-]+)|\^\^(?:xsd:(\w+)|<([^>]+)>))?$/s.exec(s);
  if (m) {
    const lex = JSON.parse('"' + m[1] + '"') as string;
    if (m[2]) return literal(lex, m[2]);
    return literal(lex, namedNode(m[3] ? X + m[3] : m[4] ?? X + 'string'));
  }
  if (/^[+-]?\d+$/.test(s)) return literal(s, namedNode(X + 'integer'));
  if (/^[+-]?\d*\.\d+$/.test(s)) return literal(s, namedNode(X + 'decimal'));
  if (/^[+-]?[\d.]+[eE][+-]?\d+$/.test(s)) return literal(s, namedNode(X + 'double'));
  throw new Error('bad term syntax ' + s);
}
