/**
 * SPARQL functions on RDF terms (§17.4.2): STR, LANG, DATATYPE, IRI/URI (resolved against the
 * query base per RFC 3986), BNODE, the isX tests, STRDT, STRLANG, sameTerm, UUID and STRUUID.
 */
import { ExprError } from '../../rdf/expr-error.js';
import { type Term, literal, namedNode, termEquals } from '../../rdf/terms.js';
import { booleanLiteral, numericValue, stringLiteral, typedLiteral } from '../../rdf/values.js';
import { rdf } from '../../rdf/vocab.js';
import { type FunctionDef, def, show, simpleArg } from './functions-common.js';

const SCHEME_RE = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const IRI_PARTS = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/;
// Characters RFC 3987 never allows in an IRI (they would break every serialisation).
const BAD_IRI_CHARS = /[\u0000-\u0020<>"{}|\\^`]/;

/** RFC 3986 §5.2.4 remove_dot_segments. */
function removeDotSegments(path: string): string {
  const out: string[] = [];
  let input = path;
  while (input.length) {
    if (input.startsWith('../')) input = input.slice(3);
    else if (input.startsWith('./')) input = input.slice(2);
    else if (input.startsWith('/./')) input = input.slice(2);
    else if (input === '/.') input = '/';
    else if (input.startsWith('/../')) { input = input.slice(3); out.pop(); }
    else if (input === '/..') { input = '/'; out.pop(); }
    else if (input === '.' || input === '..') input = '';
    else {
      const next = input.indexOf('/', input.startsWith('/') ? 1 : 0);
      const seg = next < 0 ? input : input.slice(0, next);
      out.push(seg);
      input = next < 0 ? '' : input.slice(next);
    }
  }
  return out.join('');
}

/** Resolve `ref` against `base` (RFC 3986 §5.2.2); absolute references are returned unchanged. */
export function resolveIri(ref: string, base: string | undefined): string {
  if (SCHEME_RE.test(ref)) return ref;
  if (!base || !SCHEME_RE.test(base)) throw new ExprError(`IRI: cannot resolve relative IRI ${JSON.stringify(ref)} without an absolute base IRI`);
  const r = IRI_PARTS.exec(ref)!, b = IRI_PARTS.exec(base)!;
  const [, , rAuth, rPath = '', rQuery, rFrag] = r;
  const [, bScheme, bAuth, bPath = '', bQuery] = b;
  let auth = bAuth, path: string, query = rQuery;
  if (rAuth !== undefined) { auth = rAuth; path = removeDotSegments(rPath); }
  else if (rPath === '') { path = bPath; query = rQuery ?? bQuery; }
  else if (rPath.startsWith('/')) path = removeDotSegments(rPath);
  else {
    const merged = bAuth !== undefined && bPath === '' ? '/' + rPath : bPath.slice(0, bPath.lastIndexOf('/') + 1) + rPath;
    path = removeDotSegments(merged);
  }
  return bScheme + ':' + (auth !== undefined ? '//' + auth : '') + path + (query !== undefined ? '?' + query : '') + (rFrag !== undefined ? '#' + rFrag : '');
}

function randomBytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  const c = (globalThis as { crypto?: { getRandomValues?: (a: Uint8Array) => Uint8Array } }).crypto;
  if (c?.getRandomValues) c.getRandomValues(out);
  else for (let i = 0; i < n; i++) out[i] = Math.floor(Math.random() * 256);
  return out;
}

/** A random (version 4) UUID in lower-case 8-4-4-4-12 form. */
export function uuidV4(): string {
  const b = randomBytes(16);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const LANG_TAG = /^[a-zA-Z]{1,8}(?:-[a-zA-Z0-9]{1,8})*$/;

const iri = def(1, 1, ([a], ctx) => {
  const t = a!;
  if (t.termType === 'NamedNode') return t;
  const s = simpleArg(t, 'IRI').value;
  if (BAD_IRI_CHARS.test(s)) throw new ExprError(`IRI: ${JSON.stringify(s)} is not a valid IRI`);
  return namedNode(resolveIri(s, ctx.baseIri));
});

const is = (test: (t: Term) => boolean) => def(1, 1, ([a]) => booleanLiteral(test(a!)));

/** The term-function entries of the registry. */
export const TERM_FUNCTIONS: Record<string, FunctionDef> = {
  str: def(1, 1, ([a]) => {
    if (a!.termType === 'BlankNode') throw new ExprError(`STR: not defined on blank node ${show(a!)}`);
    return stringLiteral(a!.value);
  }),
  lang: def(1, 1, ([a]) => {
    if (a!.termType !== 'Literal') throw new ExprError(`LANG: expected a literal, got ${show(a!)}`);
    return stringLiteral(a!.language);
  }),
  datatype: def(1, 1, ([a]) => {
    if (a!.termType !== 'Literal') throw new ExprError(`DATATYPE: expected a literal, got ${show(a!)}`);
    return a!.datatype;
  }),
  iri,
  uri: iri,
  bnode: def(0, 1, ([a], ctx) => (a === undefined ? ctx.bnode() : ctx.bnode(simpleArg(a, 'BNODE').value))),
  isiri: is((t) => t.termType === 'NamedNode'),
  isuri: is((t) => t.termType === 'NamedNode'),
  isblank: is((t) => t.termType === 'BlankNode'),
  isliteral: is((t) => t.termType === 'Literal'),
  isnumeric: is((t) => numericValue(t) !== undefined),
  strdt: def(2, 2, ([a, dt]) => {
    const lex = simpleArg(a!, 'STRDT').value;
    if (dt!.termType !== 'NamedNode') throw new ExprError(`STRDT: datatype must be an IRI, got ${show(dt!)}`);
    if (dt!.value === rdf.langString) throw new ExprError('STRDT: rdf:langString needs a language tag (use STRLANG)');
    return typedLiteral(lex, dt!.value);
  }),
  strlang: def(2, 2, ([a, tag]) => {
    const lex = simpleArg(a!, 'STRLANG').value;
    const t = simpleArg(tag!, 'STRLANG').value;
    if (!LANG_TAG.test(t)) throw new ExprError(`STRLANG: ${JSON.stringify(t)} is not a language tag`);
    return literal(lex, t);
  }),
  sameterm: def(2, 2, ([a, b]) => booleanLiteral(termEquals(a!, b!))),
  uuid: def(0, 0, () => namedNode('urn:uuid:' + uuidV4())),
  struuid: def(0, 0, () => stringLiteral(uuidV4())),
};
