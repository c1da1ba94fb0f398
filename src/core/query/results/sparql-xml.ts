/**
 * SPARQL Query Results XML Format (application/sparql-results+xml): a streaming writer, and a
 * parser built on a small namespace-aware XML reader (no DOM: the core runs in browsers and Node).
 */
import { badRequest } from '../../errors.js';
import { blankNode, literal, namedNode, type Term } from '../../rdf/terms.js';
import { rdf, xsd } from '../../rdf/vocab.js';
import { xmlAttr, xmlText } from './rdf-writers.js';
import type { ResultTable } from './sparql-json.js';
import type { Binding, QueryResult } from './types.js';

/** The SPARQL results namespace. */
export const SPARQL_RESULTS_NS = 'http://www.w3.org/2005/sparql-results#';
const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';

function termToXml(t: Term): string {
  switch (t.termType) {
    case 'NamedNode': return `<uri>${xmlText(t.value)}</uri>`;
    case 'BlankNode': return `<bnode>${xmlText(t.value)}</bnode>`;
    case 'Literal': {
      const attr = t.language ? ` xml:lang="${xmlAttr(t.language)}"`
        : t.datatype.value === xsd.string ? '' : ` datatype="${xmlAttr(t.datatype.value)}"`;
      return `<literal${attr}>${xmlText(t.value)}</literal>`;
    }
  }
}

/** Stream a SELECT or ASK result as SPARQL XML. */
export async function* writeSparqlXml(result: QueryResult): AsyncIterable<string> {
  const open = `<?xml version="1.0" encoding="UTF-8"?>\n<sparql xmlns="${SPARQL_RESULTS_NS}">\n`;
  if (result.type === 'boolean') {
    yield `${open}  <head/>\n  <boolean>${result.value}</boolean>\n</sparql>\n`;
    return;
  }
  if (result.type !== 'bindings') throw badRequest('SPARQL XML serialises SELECT and ASK results only');
  const vars = result.variables;
  yield `${open}  <head>\n${vars.map((v) => `    <variable name="${xmlAttr(v)}"/>\n`).join('')}  </head>\n  <results>\n`;
  for await (const row of result.rows) {
    let s = '    <result>\n';
    for (const v of vars) {
      const t = row[v];
      if (t) s += `      <binding name="${xmlAttr(v)}">${termToXml(t)}</binding>\n`;
    }
    yield s + '    </result>\n';
  }
  yield '  </results>\n</sparql>\n';
}

/** A SELECT or ASK result as a SPARQL XML string. */
export async function toSparqlXml(result: QueryResult): Promise<string> {
  let s = '';
  for await (const c of writeSparqlXml(result)) s += c;
  return s;
}

// ---------------------------------------------------------------------------------------------
// A small XML reader: elements, attributes, namespaces, character and predefined entity
// references, CDATA, comments, processing instructions; the DOCTYPE is skipped (no DTD entities).

/** An element of a parsed XML document; names are resolved to namespace + local name. */
export interface XmlElement {
  ns: string;
  local: string;
  /** Attributes keyed by `{ns}local` (`local` alone when unqualified); xmlns declarations excluded. */
  attrs: Map<string, string>;
  children: (XmlElement | string)[];
}

const NAME = /[A-Za-z_:\u00C0-\uFFFF][\w:.\-\u00B7\u00C0-\uFFFF]*/y;
const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Parse an XML document into its root element (throws a 400 LedgraphError when malformed). */
export function parseXml(input: string): XmlElement {
  const src = input.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  let pos = 0;
  const fail = (msg: string): never => {
    const line = src.slice(0, pos).split('\n').length;
    throw badRequest(`XML: ${msg} (line ${line})`);
  };
  const decode = (s: string): string => s.replace(/&(#x[0-9A-Fa-f]+|#[0-9]+|[A-Za-z]+);|&/g, (m, ref: string | undefined) => {
    if (!ref) return fail('bare "&"');
    if (ref[0] === '#') {
      const cp = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      if (!(cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff))) {
        return fail(`invalid character reference ${m}`);
      }
      return String.fromCodePoint(cp);
    }
    const c = PREDEFINED[ref];
    return c ?? fail(`undefined entity ${m}`);
  });
  const name = (): string => {
    NAME.lastIndex = pos;
    const m = NAME.exec(src);
    if (!m) return fail('expected a name');
    pos += m[0].length;
    return m[0];
  };
  const skipWs = () => { while (pos < src.length && ' \t\n'.includes(src[pos]!)) pos++; };
  const skipMisc = (allowDoctype: boolean) => {
    for (;;) {
      skipWs();
      if (src.startsWith('<?', pos)) {
        const end = src.indexOf('?>', pos);
        if (end < 0) fail('unterminated processing instruction');
        pos = end + 2;
      } else if (src.startsWith('<!--', pos)) {
        const end = src.indexOf('-->', pos);
        if (end < 0) fail('unterminated comment');
        pos = end + 3;
      } else if (allowDoctype && src.startsWith('<!DOCTYPE', pos)) {
        let depth = 0;
        for (; pos < src.length; pos++) {
          const c = src[pos];
          if (c === '[') depth++;
          else if (c === ']') depth--;
          else if (c === '>' && depth === 0) break;
        }
        if (pos >= src.length) fail('unterminated DOCTYPE');
        pos++;
      } else return;
    }
  };

  type Scope = Map<string, string>;
  const element = (scope: Scope): XmlElement => {
    pos++; // '<'
    const qname = name();
    const raw: [string, string][] = [];
    for (;;) {
      const before = pos;
      skipWs();
      if (src.startsWith('/>', pos) || src[pos] === '>') break;
      if (pos === before) fail('expected whitespace before an attribute');
      const an = name();
      skipWs();
      if (src[pos] !== '=') fail(`expected "=" after attribute ${an}`);
      pos++;
      skipWs();
      const q = src[pos];
      if (q !== '"' && q !== "'") fail('expected a quoted attribute value');
      const end = src.indexOf(q!, pos + 1);
      if (end < 0) fail('unterminated attribute value');
      const rawVal = src.slice(pos + 1, end);
      if (rawVal.includes('<')) fail('"<" in an attribute value');
      raw.push([an, decode(rawVal.replace(/[\t\n]/g, ' '))]);
      pos = end + 1;
    }
    let inner: Scope = scope;
    for (const [an, v] of raw) {
      if (an === 'xmlns' || an.startsWith('xmlns:')) {
        if (inner === scope) inner = new Map(scope);
        inner.set(an === 'xmlns' ? '' : an.slice(6), v);
      }
    }
    const resolve = (q: string, isAttr: boolean): [string, string] => {
      const i = q.indexOf(':');
      if (i < 0) return [isAttr ? '' : inner.get('') ?? '', q];
      const prefix = q.slice(0, i);
      const ns = prefix === 'xml' ? XML_NS : inner.get(prefix);
      if (ns === undefined) return fail(`undeclared namespace prefix ${prefix}`);
      return [ns, q.slice(i + 1)];
    };
    const [ns, local] = resolve(qname, false);
    const attrs = new Map<string, string>();
    for (const [an, v] of raw) {
      if (an === 'xmlns' || an.startsWith('xmlns:')) continue;
      const [ans, al] = resolve(an, true);
      const key = ans ? `{${ans}}${al}` : al;
      if (attrs.has(key)) fail(`duplicate attribute ${an}`);
      attrs.set(key, v);
    }
    const el: XmlElement = { ns, local, attrs, children: [] };
    if (src.startsWith('/>', pos)) { pos += 2; return el; }
    pos++; // '>'
    for (;;) {
      if (pos >= src.length) fail(`unclosed element <${qname}>`);
      const lt = src.indexOf('<', pos);
      if (lt < 0) fail(`unclosed element <${qname}>`);
      if (lt > pos) {
        const text = src.slice(pos, lt);
        if (text.includes(']]>')) fail('"]]>" in text');
        el.children.push(decode(text));
        pos = lt;
      }
      if (src.startsWith('</', pos)) {
        pos += 2;
        const closing = name();
        if (closing !== qname) fail(`</${closing}> closes <${qname}>`);
        skipWs();
        if (src[pos] !== '>') fail('expected ">"');
        pos++;
        return el;
      }
      if (src.startsWith('<!--', pos)) {
        const end = src.indexOf('-->', pos);
        if (end < 0) fail('unterminated comment');
        pos = end + 3;
      } else if (src.startsWith('<![CDATA[', pos)) {
        const end = src.indexOf(']]>', pos);
        if (end < 0) fail('unterminated CDATA section');
        el.children.push(src.slice(pos + 9, end));
        pos = end + 3;
      } else if (src.startsWith('<?', pos)) {
        const end = src.indexOf('?>', pos);
        if (end < 0) fail('unterminated processing instruction');
        pos = end + 2;
      } else {
        el.children.push(element(inner));
      }
    }
  };

  skipMisc(true);
  if (src[pos] !== '<') fail('expected the root element');
  const root = element(new Map([['xml', XML_NS], ['xmlns', XMLNS_NS]]));
  skipMisc(false);
  if (pos < src.length) fail('content after the root element');
  return root;
}

/** The concatenated text content of an element. */
export function xmlTextContent(el: XmlElement): string {
  return el.children.map((c) => (typeof c === 'string' ? c : xmlTextContent(c))).join('');
}

function childElements(el: XmlElement, local?: string): XmlElement[] {
  return el.children.filter((c): c is XmlElement => typeof c !== 'string' && (local === undefined || (c.ns === SPARQL_RESULTS_NS && c.local === local)));
}

function xmlToTerm(el: XmlElement): Term {
  if (el.ns !== SPARQL_RESULTS_NS) throw badRequest(`SPARQL XML: unexpected element ${el.local}`);
  switch (el.local) {
    case 'uri': return namedNode(xmlTextContent(el).trim());
    case 'bnode': return blankNode(xmlTextContent(el).trim());
    case 'literal': {
      const text = xmlTextContent(el);
      const lang = el.attrs.get(`{${XML_NS}}lang`);
      if (lang) return literal(text, lang);
      const dt = el.attrs.get('datatype');
      if (dt === rdf.langString) throw badRequest('SPARQL XML: rdf:langString literal without xml:lang');
      return literal(text, namedNode(dt ?? xsd.string));
    }
    default: throw badRequest(`SPARQL XML: unexpected element ${el.local}`);
  }
}

/** Parse a SPARQL XML results document. */
export function parseSparqlXml(text: string): ResultTable {
  const root = parseXml(text);
  if (root.ns !== SPARQL_RESULTS_NS || root.local !== 'sparql') throw badRequest('SPARQL XML: root element must be sparql');
  const head = childElements(root, 'head')[0];
  if (!head) throw badRequest('SPARQL XML: missing head');
  const boolean = childElements(root, 'boolean')[0];
  if (boolean) {
    const v = xmlTextContent(boolean).trim();
    if (v !== 'true' && v !== 'false') throw badRequest('SPARQL XML: boolean must be true or false');
    return { type: 'boolean', value: v === 'true' };
  }
  const variables = childElements(head, 'variable').map((v) => {
    const n = v.attrs.get('name');
    if (n === undefined) throw badRequest('SPARQL XML: variable without name');
    return n;
  });
  const results = childElements(root, 'results')[0];
  if (!results) throw badRequest('SPARQL XML: missing results');
  const rows: Binding[] = childElements(results, 'result').map((r) => {
    const row: Binding = {};
    for (const b of childElements(r, 'binding')) {
      const n = b.attrs.get('name');
      if (n === undefined) throw badRequest('SPARQL XML: binding without name');
      const value = childElements(b);
      if (value.length !== 1) throw badRequest(`SPARQL XML: binding ${n} must hold exactly one term`);
      row[n] = xmlToTerm(value[0]!);
    }
    return row;
  });
  return { type: 'bindings', variables, rows };
}
