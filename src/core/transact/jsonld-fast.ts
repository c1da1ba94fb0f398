/**
 * The fast path of JSON-LD expansion, for plain documents only: a context of simple prefix / term
 * definitions (`"ex": "http://example.org/"`) and nodes made of `@id`, `@type`, compact or absolute
 * IRI keys and plain values, references, value objects and nested nodes. For such a document it
 * produces exactly what jsonld.js's `expand` produces (same keys, same order); for anything else it
 * answers undefined and jsonld.js does the work. `npm test` runs the whole W3C toRdf suite through
 * both and requires identical output whenever this path answers (test/w3c/jsonld-fast-path.test.ts).
 */
/** An expanded JSON-LD element: node, value or list object. */
export type Expanded = Record<string, unknown>;

type Mapping = { id: string; prefix: boolean };
const ABSOLUTE = /^([A-Za-z][A-Za-z0-9+\-.]*|_):[^\s]*$/;
const SIMPLE_IRI = /^[A-Za-z][A-Za-z0-9+\-.]*:\/\/[^\s]*$|^urn:[^\s]+$/i;
const GEN_DELIM = /[:/?#[\]@]$/;
const KEYWORD_LIKE = /^@[a-zA-Z]+$/;

/** Bail-out signal: the document is not plain. */
class NotPlain extends Error {}
const notPlain = (): never => { throw new NotPlain(); };

/** jsonld.js's expansion of `doc` when it is a plain document; undefined otherwise. */
export function fastExpand(doc: unknown): Expanded[] | undefined {
  try {
    if (!isObject(doc)) return undefined;
    const ctx = mappings(doc['@context']);
    if (ctx === undefined) return undefined;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(doc).sort()) {
      if (key === '@context') continue;
      const v = doc[key];
      if (key === '@graph') {
        if (!Array.isArray(v)) notPlain();
        const nodes: Expanded[] = [];
        for (const n of v as unknown[]) {
          const e = node(n, ctx);
          // A top-level node with only @id says nothing: jsonld.js drops it.
          if (!(Object.keys(e).length === 1 && '@id' in e)) nodes.push(e);
        }
        out['@graph'] = nodes;
      } else if (key === '@id' || key === '@type') {
        Object.assign(out, nodeKey(key, v, ctx));
      } else {
        property(out, key, v, ctx);
      }
    }
    if ('@graph' in out) {
      if ('@id' in out || '@type' in out) return undefined;
      return Object.keys(out).length === 1 ? out['@graph'] as Expanded[] : [out];
    }
    return Object.keys(out).length === 0 || (Object.keys(out).length === 1 && '@id' in out) ? [] : [out];
  } catch (e) {
    if (e instanceof NotPlain) return undefined;
    throw e;
  }
}

/** The term mappings of a plain context (object or array of objects), or undefined. */
function mappings(ctx: unknown): Map<string, Mapping> | undefined {
  const out = new Map<string, Mapping>();
  for (const c of ctx === undefined ? [] : Array.isArray(ctx) ? ctx : [ctx]) {
    if (!isObject(c)) return undefined;
    for (const [term, v] of Object.entries(c)) {
      if (term === '' || term.startsWith('@') || term.includes(':') || term.includes('/')) return undefined;
      if (typeof v !== 'string' || !SIMPLE_IRI.test(v)) return undefined;
      // A term named like a scheme would change how absolute IRIs expand.
      if (out.has(v.slice(0, v.indexOf(':'))) || v.slice(0, v.indexOf(':')) in c) return undefined;
      out.set(term, { id: v, prefix: GEN_DELIM.test(v) });
    }
  }
  return out;
}

/** jsonld.js `_expandIri` for a plain context, with no @vocab and no base: absolute results only. */
function iri(value: unknown, vocab: boolean, ctx: Map<string, Mapping>): string {
  if (typeof value !== 'string' || KEYWORD_LIKE.test(value) || value.startsWith('@')) return notPlain();
  if (vocab) {
    const m = ctx.get(value);
    if (m) return m.id;
  }
  const colon = value.indexOf(':');
  if (colon <= 0) return notPlain();
  const prefix = value.slice(0, colon);
  const suffix = value.slice(colon + 1);
  if (prefix === '_') return value.length > 2 ? value : notPlain();
  if (suffix.startsWith('//')) return ABSOLUTE.test(value) ? value : notPlain();
  const m = ctx.get(prefix);
  if (m?.prefix) {
    const out = m.id + suffix;
    return ABSOLUTE.test(out) ? out : notPlain();
  }
  if (m) return notPlain();
  return ABSOLUTE.test(value) ? value : notPlain();
}

function nodeKey(key: '@id' | '@type', v: unknown, ctx: Map<string, Mapping>): Record<string, unknown> {
  if (key === '@id') return { '@id': iri(v, false, ctx) };
  const types = Array.isArray(v) ? v : [v];
  if (types.length === 0) notPlain();
  return { '@type': types.map((t) => iri(t, true, ctx)) };
}

/** One node object (no @context, @graph, @reverse, ... of its own). */
function node(n: unknown, ctx: Map<string, Mapping>): Expanded {
  if (!isObject(n)) return notPlain();
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(n).sort()) {
    if (key === '@id' || key === '@type') Object.assign(out, nodeKey(key, n[key], ctx));
    else if (key.startsWith('@')) notPlain();
    else property(out, key, n[key], ctx);
  }
  return out;
}

function property(out: Record<string, unknown>, key: string, v: unknown, ctx: Map<string, Mapping>): void {
  if (key.startsWith('@')) notPlain();
  const p = iri(key, true, ctx);
  const values = Array.isArray(v) ? v : [v];
  if (values.length === 0) notPlain();
  const list = (out[p] ??= []) as unknown[];
  for (const x of values) list.push(value(x, ctx));
}

function value(v: unknown, ctx: Map<string, Mapping>): Expanded {
  if (typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) return { '@value': v };
  if (!isObject(v)) return notPlain();
  if ('@value' in v) {
    const keys = Object.keys(v);
    const val = v['@value'];
    if (!(typeof val === 'string' || typeof val === 'boolean' || (typeof val === 'number' && Number.isFinite(val)))) notPlain();
    if (keys.length === 1) return { '@value': val };
    if (keys.length !== 2) notPlain();
    if ('@type' in v) {
      const t = iri(v['@type'], true, ctx);
      if (t.startsWith('_:')) notPlain();
      return { '@type': t, '@value': val };
    }
    if ('@language' in v && typeof v['@language'] === 'string' && typeof val === 'string') return { '@language': v['@language'].toLowerCase(), '@value': val };
    return notPlain();
  }
  return node(v, ctx);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
