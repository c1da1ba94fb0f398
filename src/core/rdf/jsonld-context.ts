/**
 * JSON-LD context processing for Ledgraph (jsonld-query.md §2.2–2.3): term definitions, prefixes,
 * keyword aliases, `@vocab`, `@base`, `@language`, type coercion, containers, `@reverse` and the
 * Ledgraph `@path` extension. Synchronous and local: remote contexts are refused, never fetched.
 * Variables (`?x`) are not IRIs; callers recognise them before asking for expansion.
 */
import { badRequest } from '../errors.js';
import { F, OWL, RDF, RDFS, SHACL, XSD, rdf } from './vocab.js';
import { quote } from '../excerpt.js';

/** One term of an active context. */
export interface TermDefinition {
  /**
   * Expanded IRI, or the keyword the term aliases ("id" -> "@id"). Null when the term is mapped to
   * null (its properties are dropped) or is a `@path` alias.
   */
  readonly id: string | null;
  /** `@reverse` term: `id` is the property whose subject and object are swapped. */
  readonly reverse: boolean;
  /** Type coercion: "@id", "@vocab", "@json", "@none" or an expanded datatype IRI. */
  readonly type?: string;
  /** Containers: a subset of "@list", "@set", "@language". */
  readonly container: readonly string[];
  /** Language of plain strings: undefined = the context default applies; null = none. */
  readonly language?: string | null;
  /** Raw `@path` expression (Ledgraph extension, queries only). */
  readonly path?: unknown;
  /** Raw scoped context applied to this term's values. */
  readonly context?: unknown;
  /** May appear before ':' in a compact IRI when expanding. */
  readonly prefixUsable: boolean;
  /** Used to produce compact IRIs when compacting (JSON-LD 1.1 prefix flag). */
  readonly prefix: boolean;
}

/** Every JSON-LD keyword plus the Ledgraph extensions a context may alias. */
const KEYWORDS = new Set([
  '@base', '@container', '@context', '@direction', '@graph', '@id', '@import', '@included', '@index',
  '@json', '@language', '@list', '@nest', '@none', '@prefix', '@propagate', '@protected', '@reverse',
  '@set', '@type', '@value', '@version', '@vocab', '@path', '@variable',
]);

/** Prefixes that expand without being declared (never used for compaction). */
const BUILTIN_PREFIXES: Readonly<Record<string, string>> = {
  rdf: RDF, rdfs: RDFS, xsd: XSD, owl: OWL, sh: SHACL, f: F,
};

const GEN_DELIMS = /[:/?#[\]@]$/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const DEF_KEYS = new Set(['@id', '@reverse', '@type', '@container', '@language', '@context', '@prefix', '@protected', '@path']);
/** Most IRIs one context memoises the compaction of. */
export const COMPACT_CACHE_LIMIT = 4096;
/** Estimated bytes of one memoised compaction (key, result, map entry). */
export const COMPACT_ENTRY_BYTES = 192;

/** Is `s` a JSON-LD keyword (or a Ledgraph one)? */
export function isKeyword(s: string): boolean { return KEYWORDS.has(s); }

/** An immutable active context; create a derived one for nested or scoped contexts. */
export class ActiveContext {
  readonly vocab: string | null;
  readonly base: string | null;
  /** Default language of plain strings (lower case), or null. */
  readonly language: string | null;
  private readonly terms: ReadonlyMap<string, TermDefinition>;
  private compactCache?: Map<string, string>;

  private constructor(terms: ReadonlyMap<string, TermDefinition>, vocab: string | null, base: string | null, language: string | null) {
    this.terms = terms;
    this.vocab = vocab;
    this.base = base;
    this.language = language;
  }

  /** The empty context (only the built-in prefixes expand). */
  static empty(): ActiveContext { return EMPTY; }

  /** Process a local context (object, array, null) on top of `base` (or the empty context). */
  static create(ctx: unknown, base?: ActiveContext): ActiveContext {
    const b = new ContextBuilder(base ?? EMPTY);
    b.process(ctx);
    return b.build();
  }

  /** The definition of `term`, if the context defines it. */
  termDefinition(term: string): TermDefinition | undefined { return this.terms.get(term); }

  /** The keyword `key` stands for (itself when it is a keyword, or via an alias), else undefined. */
  keyword(key: string): string | undefined {
    if (key.startsWith('@')) return KEYWORDS.has(key) ? key : undefined;
    const id = this.terms.get(key)?.id;
    return id && KEYWORDS.has(id) ? id : undefined;
  }

  /** Every defined term, for diagnostics and result shaping. */
  termNames(): IterableIterator<string> { return this.terms.keys(); }

  /**
   * Expand a term, compact IRI or relative IRI (§2.2). `vocab` = property/@type position (bare
   * words take `@vocab`); otherwise `@id` position (bare words take `@base`). Strings that match no
   * rule are returned unchanged; keyword aliases return the keyword.
   */
  expandIri(s: string, vocab: boolean): string {
    if (s.startsWith('@') && KEYWORDS.has(s)) return s;
    const def = this.terms.get(s);
    if (def && def.id !== null) return def.id;
    const colon = s.indexOf(':');
    if (colon > 0) {
      const prefix = s.slice(0, colon);
      const suffix = s.slice(colon + 1);
      if (prefix === '_' || suffix.startsWith('//')) return s;
      const p = this.terms.get(prefix);
      if (p && p.id !== null && p.prefixUsable && !KEYWORDS.has(p.id)) return p.id + suffix;
      const builtin = BUILTIN_PREFIXES[prefix];
      return builtin !== undefined && p === undefined ? builtin + suffix : s;
    }
    if (colon === 0 || def) return s;
    if (vocab) return this.vocab !== null ? this.vocab + s : s;
    if (this.base === null) return s;
    // RFC 3986 resolution, as JSON-LD does: "g" against http://a/bb/ccc/d;p?q is http://a/bb/ccc/g.
    return resolveIri(s, this.base);
  }

  /**
   * Compact an IRI for output (§2.3). `vocab` (property keys, @type values, datatypes): an exact
   * term, then the longest matching declared prefix, then `@vocab`; otherwise prefixes only.
   */
  compactIri(iri: string, vocab: boolean): string {
    const key = (vocab ? 'v' : 'i') + iri;
    const cache = (this.compactCache ??= new Map());
    let out = cache.get(key);
    if (out === undefined) {
      out = this.computeCompact(iri, vocab);
      if (cache.size < COMPACT_CACHE_LIMIT) cache.set(key, out);
    }
    return out;
  }

  private computeCompact(iri: string, vocab: boolean): string {
    if (vocab) {
      let best: string | undefined;
      for (const [term, def] of this.terms) {
        if (def.id !== iri || def.reverse) continue;
        if (best === undefined || term.length < best.length || (term.length === best.length && term < best)) best = term;
      }
      if (best !== undefined) return best;
    }
    let best: string | undefined;
    let bestLen = -1;
    for (const [term, def] of this.terms) {
      const id = def.id;
      if (!def.prefix || id === null || def.reverse || id.length >= iri.length || !iri.startsWith(id)) continue;
      const suffix = iri.slice(id.length);
      const candidate = term + ':' + suffix;
      if (suffix.startsWith('//')) continue;
      const clash = this.terms.get(candidate);
      if (clash && clash.id !== iri) continue;
      if (id.length > bestLen || (id.length === bestLen && best !== undefined && candidate < best)) {
        best = candidate;
        bestLen = id.length;
      }
    }
    if (best !== undefined) return best;
    if (vocab && this.vocab && iri.length > this.vocab.length && iri.startsWith(this.vocab)) {
      const suffix = iri.slice(this.vocab.length);
      if (!suffix.includes(':') && !this.terms.has(suffix)) return suffix;
    }
    return iri;
  }

  /** @internal Builder access. */
  static fromParts(terms: Map<string, TermDefinition>, vocab: string | null, base: string | null, language: string | null): ActiveContext {
    return new ActiveContext(terms, vocab, base, language);
  }

  /** @internal Builder access to the term table. */
  termTable(): ReadonlyMap<string, TermDefinition> { return this.terms; }
}

const EMPTY = ActiveContext.fromParts(new Map(), null, null, null);

/** Accumulates one context-processing run (JSON-LD 1.1 §4.1, the subset Ledgraph supports). */
class ContextBuilder {
  private terms: Map<string, TermDefinition>;
  private vocab: string | null;
  private base: string | null;
  private language: string | null;

  constructor(from: ActiveContext) {
    this.terms = new Map(from.termTable());
    this.vocab = from.vocab;
    this.base = from.base;
    this.language = from.language;
  }

  build(): ActiveContext { return ActiveContext.fromParts(this.terms, this.vocab, this.base, this.language); }

  /** A snapshot used to expand IRIs while definitions are still being created. */
  private current(): ActiveContext { return ActiveContext.fromParts(this.terms, this.vocab, this.base, this.language); }

  process(ctx: unknown): void {
    if (ctx === undefined) return;
    if (ctx === null) {
      this.terms = new Map();
      this.vocab = this.base = this.language = null;
      return;
    }
    if (typeof ctx === 'string') {
      throw badRequest(`remote contexts are not supported (got "${ctx}"); send the context as a JSON object`);
    }
    if (Array.isArray(ctx)) {
      for (const c of ctx) {
        if (Array.isArray(c)) throw badRequest('invalid @context: nested arrays are not allowed');
        this.process(c);
      }
      return;
    }
    if (typeof ctx !== 'object') throw badRequest(`invalid @context: expected an object, an array or null, got ${quote(ctx)}`);
    this.processObject(ctx as Record<string, unknown>);
  }

  private processObject(local: Record<string, unknown>): void {
    if ('@import' in local) throw badRequest('@import is not supported: remote contexts are never fetched');
    if ('@direction' in local) throw badRequest('@direction is not supported');
    const version = local['@version'];
    if (version !== undefined && version !== 1.1) throw badRequest(`invalid @version ${quote(version)}; only 1.1 is accepted`);
    for (const k of ['@propagate', '@protected'] as const) {
      // Protection and propagation only restrict later redefinitions; accepting them keeps
      // contexts written for other processors usable.
      if (k in local && typeof local[k] !== 'boolean') throw badRequest(`${k} must be a boolean`);
    }
    if ('@base' in local) {
      const b = local['@base'];
      if (b !== null && typeof b !== 'string') throw badRequest('@base must be a string or null');
      this.base = b === null ? null : this.base !== null && !SCHEME.test(b) ? resolveIri(b, this.base) : b;
    }
    if ('@vocab' in local) {
      const v = local['@vocab'];
      if (v !== null && typeof v !== 'string') throw badRequest('@vocab must be a string or null');
      this.vocab = v === null ? null : v === '' ? this.base ?? '' : this.current().expandIri(v, true);
    }
    if ('@language' in local) {
      const l = local['@language'];
      if (l !== null && typeof l !== 'string') throw badRequest('@language must be a string or null');
      this.language = l === null ? null : l.toLowerCase();
    }
    const defined = new Map<string, boolean>();
    for (const term of Object.keys(local)) this.define(local, term, defined);
  }

  /** Create the definition of `term` from `local`, defining the terms it depends on first. */
  private define(local: Record<string, unknown>, term: string, defined: Map<string, boolean>): void {
    const state = defined.get(term);
    if (state === true) return;
    if (state === false) throw badRequest(`invalid @context: cyclic definition of term "${term}"`);
    if (term.startsWith('@')) {
      // Context-level keywords are handled by the caller; other @-words are ignored as JSON-LD 1.1 requires.
      defined.set(term, true);
      return;
    }
    if (term === '') throw badRequest('invalid @context: the empty string is not a valid term');
    defined.set(term, false);
    const value = local[term];
    const simple = typeof value === 'string';
    let def: Record<string, unknown>;
    if (value === null) def = { '@id': null };
    else if (simple) def = { '@id': value };
    else if (typeof value === 'object' && !Array.isArray(value)) def = value as Record<string, unknown>;
    else throw badRequest(`invalid term definition for "${term}": expected a string, an object or null`);

    for (const k of Object.keys(def)) {
      if (!DEF_KEYS.has(k)) throw badRequest(`invalid term definition for "${term}": unsupported key "${k}"`);
    }
    const expand = (s: string, vocab: boolean): string => {
      this.defineDependency(local, s, defined, term);
      return this.current().expandIri(s, vocab);
    };

    let id: string | null;
    let reverse = false;
    const path = def['@path'];
    if ('@reverse' in def) {
      if ('@id' in def) throw badRequest(`invalid term definition for "${term}": @reverse and @id cannot be combined`);
      if (path !== undefined) throw badRequest(`invalid term definition for "${term}": @reverse and @path cannot be combined`);
      const r = def['@reverse'];
      if (typeof r !== 'string') throw badRequest(`invalid term definition for "${term}": @reverse must be a string`);
      const e = expand(r, true);
      id = e === '@type' ? rdf.type : e;
      if (KEYWORDS.has(id)) throw badRequest(`invalid term definition for "${term}": @reverse cannot be a keyword`);
      reverse = true;
    } else if (path !== undefined) {
      if (typeof path !== 'string' && !Array.isArray(path)) throw badRequest(`invalid term definition for "${term}": @path must be a string or an array`);
      id = null;
    } else if ('@id' in def) {
      const raw = def['@id'];
      if (raw === null) id = null;
      else if (typeof raw !== 'string') throw badRequest(`invalid term definition for "${term}": @id must be a string or null`);
      else if (raw.startsWith('@') && !KEYWORDS.has(raw)) id = null;
      else if (raw === '@context') throw badRequest(`invalid term definition for "${term}": @context cannot be aliased`);
      else id = expand(raw, true);
    } else if (term.includes(':') || term.includes('/')) {
      id = expand(term, true);
    } else if (this.vocab !== null) {
      id = this.vocab + term;
    } else {
      throw badRequest(`invalid term definition for "${term}": no @id and no @vocab to derive its IRI from`);
    }

    let type: string | undefined;
    if ('@type' in def) {
      const t = def['@type'];
      if (typeof t !== 'string') throw badRequest(`invalid term definition for "${term}": @type must be a string`);
      if (t === '@id' || t === '@vocab' || t === '@json' || t === '@none') type = t;
      else if (t.startsWith('@')) throw badRequest(`invalid term definition for "${term}": invalid @type ${t}`);
      else type = expand(t, true);
    }
    let container: string[] = [];
    if ('@container' in def) {
      const c = def['@container'];
      const list = Array.isArray(c) ? c : [c];
      for (const x of list) {
        if (x !== '@list' && x !== '@set' && x !== '@language') {
          throw badRequest(`invalid term definition for "${term}": unsupported @container ${quote(x)}`);
        }
      }
      container = list as string[];
      if (container.includes('@list') && container.length > 1) throw badRequest(`invalid term definition for "${term}": @list cannot be combined with another container`);
    }
    let language: string | null | undefined;
    if ('@language' in def) {
      const l = def['@language'];
      if (l !== null && typeof l !== 'string') throw badRequest(`invalid term definition for "${term}": @language must be a string or null`);
      language = l === null ? null : l.toLowerCase();
    }
    const prefixFlag = def['@prefix'];
    if (prefixFlag !== undefined && typeof prefixFlag !== 'boolean') throw badRequest(`invalid term definition for "${term}": @prefix must be a boolean`);
    const isIri = id !== null && !KEYWORDS.has(id) && !reverse;
    const plain = !term.includes(':') && !term.includes('/');
    const result: TermDefinition = {
      id,
      reverse,
      container,
      prefixUsable: isIri && plain && prefixFlag !== false,
      prefix: isIri && plain && (prefixFlag === true || (prefixFlag === undefined && simple && GEN_DELIMS.test(id!))),
      ...(type !== undefined ? { type } : {}),
      ...(language !== undefined ? { language } : {}),
      ...(path !== undefined ? { path } : {}),
      ...(def['@context'] !== undefined ? { context: def['@context'] } : {}),
    };
    this.terms.set(term, result);
    defined.set(term, true);
  }

  /** Define, first, the local term that `s` names or uses as its prefix. */
  private defineDependency(local: Record<string, unknown>, s: string, defined: Map<string, boolean>, self: string): void {
    const colon = s.indexOf(':');
    const dep = colon > 0 ? s.slice(0, colon) : s;
    if (dep !== self && Object.prototype.hasOwnProperty.call(local, dep)) this.define(local, dep, defined);
  }
}


/** Resolve a relative IRI reference against an absolute base (RFC 3986 §5.2.2, no normalisation). */
export function resolveIri(ref: string, base: string): string {
  const r = splitIri(ref);
  const b = splitIri(base);
  if (r.scheme !== undefined) return joinIri(r.scheme, r.authority, removeDots(r.path), r.query, r.fragment);
  if (b.scheme === undefined) return base + ref;
  if (r.authority !== undefined) return joinIri(b.scheme, r.authority, removeDots(r.path), r.query, r.fragment);
  if (r.path === '') return joinIri(b.scheme, b.authority, b.path, r.query ?? b.query, r.fragment);
  if (r.path.startsWith('/')) return joinIri(b.scheme, b.authority, removeDots(r.path), r.query, r.fragment);
  const merged = b.authority !== undefined && b.path === '' ? '/' + r.path : b.path.slice(0, b.path.lastIndexOf('/') + 1) + r.path;
  return joinIri(b.scheme, b.authority, removeDots(merged), r.query, r.fragment);
}

interface IriParts { scheme?: string; authority?: string; path: string; query?: string; fragment?: string }

function splitIri(s: string): IriParts {
  const m = /^(?:([A-Za-z][A-Za-z0-9+.-]*):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s.exec(s)!;
  const parts: IriParts = { path: m[3] ?? '' };
  if (m[1] !== undefined) parts.scheme = m[1];
  if (m[2] !== undefined) parts.authority = m[2];
  if (m[4] !== undefined) parts.query = m[4];
  if (m[5] !== undefined) parts.fragment = m[5];
  return parts;
}

function joinIri(scheme: string, authority: string | undefined, path: string, query: string | undefined, fragment: string | undefined): string {
  return scheme + ':' + (authority !== undefined ? '//' + authority : '') + path
    + (query !== undefined ? '?' + query : '') + (fragment !== undefined ? '#' + fragment : '');
}

/** RFC 3986 §5.2.4 remove_dot_segments. */
function removeDots(path: string): string {
  let input = path;
  let output = '';
  const dropLast = () => { output = output.slice(0, Math.max(0, output.lastIndexOf('/'))); };
  while (input.length > 0) {
    if (input.startsWith('../')) input = input.slice(3);
    else if (input.startsWith('./')) input = input.slice(2);
    else if (input.startsWith('/./')) input = input.slice(2);
    else if (input === '/.') input = '/';
    else if (input.startsWith('/../')) { input = input.slice(3); dropLast(); }
    else if (input === '/..') { input = '/'; dropLast(); }
    else if (input === '.' || input === '..') input = '';
    else {
      const i = input.indexOf('/', 1);
      const seg = i < 0 ? input : input.slice(0, i);
      output += seg;
      input = i < 0 ? '' : input.slice(i);
    }
  }
  return output;
}
