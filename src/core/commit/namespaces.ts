/**
 * The namespace table that turns IRIs into SIDs `(ns code, local)` (replication.md §2).
 *
 * Codes 0–7 are reserved; codes from 100 up are allocated in commit order along a branch's
 * first-parent chain and announced in the `ns_delta` of the commit that first uses them. A table
 * is a value: once handed to another component treat it as immutable and `clone()` before
 * allocating (encodeCommit does this itself).
 */
import { LedgraphError } from '../errors.js';
import { F, OWL, RDF, RDFS, SHACL, XSD } from '../rdf/vocab.js';

/** A namespace-compressed IRI: code plus the remainder. Code 0 holds the whole IRI. */
export interface Sid { ns: number; local: string }

/** Result of splitting an IRI; `isNew` when this call allocated the code. */
export interface SplitResult extends Sid { isNew: boolean }

/** Reserved codes (decided): code, prefix IRI, compact prefix name for `@context`. */
export const RESERVED_NAMESPACES: readonly (readonly [number, string, string | null])[] = [
  [0, '', null],
  [1, XSD, 'xsd'],
  [2, RDF, 'rdf'],
  [3, RDFS, 'rdfs'],
  [4, OWL, 'owl'],
  [5, SHACL, 'sh'],
  [6, F, 'f'],
  [7, 'did:key:', null],
];

/** First code handed out to a ledger's own namespaces. */
export const FIRST_ALLOCATED_NS = 100;
/** Highest allocatable code; past it IRIs fall back to code 0. */
export const MAX_NS_CODE = 65_535;

/** Prefix names for well-known vocabularies, used before deriving a name from the IRI. */
const WELL_KNOWN: Record<string, string> = {
  'http://schema.org/': 'schema',
  'https://schema.org/': 'schema',
  'http://xmlns.com/foaf/0.1/': 'foaf',
  'http://purl.org/dc/terms/': 'dcterms',
  'http://purl.org/dc/elements/1.1/': 'dc',
  'http://www.w3.org/2004/02/skos/core#': 'skos',
  'http://www.w3.org/ns/prov#': 'prov',
  'http://www.w3.org/ns/dcat#': 'dcat',
  'http://www.w3.org/2006/time#': 'time',
  'http://www.w3.org/2006/vcard/ns#': 'vcard',
  'http://www.opengis.net/ont/geosparql#': 'geo',
  'http://example.org/': 'ex',
  'http://example.com/': 'ex',
  'https://example.org/': 'ex',
  'https://example.com/': 'ex',
};

/** Names never given to an allocated namespace: JSON-LD would read `http:…` etc. as a compact IRI. */
const UNUSABLE_NAMES = new Set(['xsd', 'rdf', 'rdfs', 'owl', 'sh', 'f', 'http', 'https', 'urn', 'did', 'file', 'mailto', 'tag', 'data', 'ftp', 'ws', 'wss']);

const isDelimiter = (c: number) => c === 47 /* / */ || c === 35 /* # */ || c === 58 /* : */;

function contradiction(why: string): LedgraphError {
  return new LedgraphError(422, 'err:db/ConstraintViolation', `namespace delta contradicts the table: ${why}`);
}

/** Namespace code ⇄ prefix table plus stable compact names for `@context`. */
export class NamespaceTable {
  private byCode = new Map<number, string>();
  /** Prefixes ending in `/`, `#` or `:` (all the split rule produces); found by delimiter scan. */
  private regular = new Map<string, number>();
  /** Other prefixes (only from foreign deltas); checked one by one. */
  private irregular: [string, number][] = [];
  private names = new Map<number, string>();
  private usedNames = new Set<string>();
  /**
   * Codes added but not named yet, in the order they were added. Names are only read for response
   * contexts, and deriving one costs a few regular expressions: a root of a ledger with thousands
   * of namespaces (BSBM: a namespace per offer page) is opened without naming them. They are named
   * in the order added, so a name never depends on when it was first asked for.
   */
  private unnamed: number[] = [];
  private next = FIRST_ALLOCATED_NS;

  constructor() {
    for (const [code, prefix, name] of RESERVED_NAMESPACES) {
      this.byCode.set(code, prefix);
      if (code !== 0) this.regular.set(prefix, code);
      if (name) {
        this.names.set(code, name);
        this.usedNames.add(name);
      }
    }
  }

  /** Number of codes in the table, reserved ones included. */
  get size(): number { return this.byCode.size; }

  /** The code the next allocation would take (may exceed MAX_NS_CODE when exhausted). */
  get nextCode(): number { return this.next; }

  /** The prefix of a code, or undefined. */
  prefixOf(code: number): string | undefined { return this.byCode.get(code); }

  /** The code of an exact prefix, or undefined. */
  codeOf(prefix: string): number | undefined {
    const c = this.regular.get(prefix);
    if (c !== undefined) return c;
    for (const [p, code] of this.irregular) if (p === prefix) return code;
    return undefined;
  }

  /** Longest known prefix of `iri`, as [prefix length, code], or undefined. */
  private longestKnown(iri: string): [number, number] | undefined {
    let best: [number, number] | undefined;
    for (let i = iri.length - 1; i >= 0; i--) {
      if (!isDelimiter(iri.charCodeAt(i))) continue;
      const code = this.regular.get(iri.slice(0, i + 1));
      if (code !== undefined) {
        best = [i + 1, code];
        break;
      }
    }
    for (const [p, code] of this.irregular) {
      if (p.length > (best ? best[0] : 0) && iri.startsWith(p)) best = [p.length, code];
    }
    return best;
  }

  /** SID of an IRI when no allocation is needed (known prefix, or code 0); null when it would allocate. */
  lookup(iri: string): Sid | null {
    const known = this.longestKnown(iri);
    if (known) return { ns: known[1], local: iri.slice(known[0]) };
    const cut = Math.max(iri.lastIndexOf('/'), iri.lastIndexOf('#'), iri.lastIndexOf(':'));
    if (cut < 0 || this.next > MAX_NS_CODE) return { ns: 0, local: iri };
    return null;
  }

  /** SID of an IRI, allocating a code when no known prefix matches (mutates this table). */
  split(iri: string): SplitResult {
    const known = this.longestKnown(iri);
    if (known) return { ns: known[1], local: iri.slice(known[0]), isNew: false };
    let cut = Math.max(iri.lastIndexOf('/'), iri.lastIndexOf('#'));
    if (cut === iri.length - 1 && cut > 0) cut = containerCut(iri, cut);
    if (cut < 0) cut = iri.lastIndexOf(':');
    if (cut < 0 || this.next > MAX_NS_CODE) return { ns: 0, local: iri, isNew: false };
    const code = this.next;
    this.add(code, iri.slice(0, cut + 1));
    return { ns: code, local: iri.slice(cut + 1), isNew: true };
  }

  /** The IRI of a SID; an unknown code is a 422 (a commit used a code nobody announced). */
  expand(ns: number, local: string): string {
    if (ns === 0) return local;
    const prefix = this.byCode.get(ns);
    if (prefix === undefined) throw new LedgraphError(422, 'err:db/ConstraintViolation', `unknown namespace code ${ns}`);
    return prefix + local;
  }

  /** An independent copy. */
  clone(): NamespaceTable {
    const t = new NamespaceTable();
    t.byCode = new Map(this.byCode);
    t.regular = new Map(this.regular);
    t.irregular = this.irregular.slice();
    t.names = new Map(this.names);
    t.usedNames = new Set(this.usedNames);
    t.unnamed = this.unnamed.slice();
    t.next = this.next;
    return t;
  }

  /**
   * Check a delta against this table without applying it: codes must be 100..65,535 and strictly
   * ascending; a code already known must carry the same prefix, and a known prefix the same code.
   * Returns the entries that are actually new.
   */
  checkDelta(delta: readonly (readonly [number, string])[]): [number, string][] {
    const fresh: [number, string][] = [];
    let prev = -1;
    const seenPrefixes = new Set<string>();
    for (const [code, prefix] of delta) {
      if (!Number.isInteger(code) || code < FIRST_ALLOCATED_NS || code > MAX_NS_CODE) throw contradiction(`code ${code} is outside ${FIRST_ALLOCATED_NS}..${MAX_NS_CODE}`);
      if (code <= prev) throw contradiction(`codes not strictly ascending at ${code}`);
      prev = code;
      if (typeof prefix !== 'string' || prefix === '') throw contradiction(`empty prefix for code ${code}`);
      if (seenPrefixes.has(prefix)) throw contradiction(`prefix ${JSON.stringify(prefix)} announced twice`);
      seenPrefixes.add(prefix);
      const had = this.byCode.get(code);
      const hadCode = this.codeOf(prefix);
      if (had !== undefined && had !== prefix) throw contradiction(`code ${code} is ${JSON.stringify(had)}, not ${JSON.stringify(prefix)}`);
      if (hadCode !== undefined && hadCode !== code) throw contradiction(`prefix ${JSON.stringify(prefix)} already has code ${hadCode}`);
      if (had === undefined) fresh.push([code, prefix]);
    }
    return fresh;
  }

  /** Add a commit's `ns_delta` (validated as in checkDelta; re-announced codes are no-ops). */
  applyDelta(delta: readonly (readonly [number, string])[]): void {
    for (const [code, prefix] of this.checkDelta(delta)) this.add(code, prefix);
  }

  /** Allocated codes (≥ 100) ascending, as an `ns_delta`-shaped list. */
  allocated(): [number, string][] {
    const out: [number, string][] = [];
    for (const [code, prefix] of this.byCode) if (code >= FIRST_ALLOCATED_NS) out.push([code, prefix]);
    return out.sort((a, b) => a[0] - b[0]);
  }

  /** The compact name of a code (`xsd`, `ex`, `ns104`, …), or undefined for codes 0 and 7. */
  nameOf(code: number): string | undefined { this.nameAll(); return this.names.get(code); }

  /** Prefix map for a response `@context`: every named code, or only the given codes. */
  prefixes(codes?: Iterable<number>): Record<string, string> {
    this.nameAll();
    const out: Record<string, string> = {};
    const list = codes ? [...new Set(codes)].sort((a, b) => a - b) : [...this.names.keys()].sort((a, b) => a - b);
    for (const code of list) {
      const name = this.names.get(code);
      if (name !== undefined) out[name] = this.byCode.get(code)!;
    }
    return out;
  }

  private add(code: number, prefix: string): void {
    this.byCode.set(code, prefix);
    if (isDelimiter(prefix.charCodeAt(prefix.length - 1))) this.regular.set(prefix, code);
    else this.irregular.push([prefix, code]);
    if (code >= this.next) this.next = code + 1;
    this.unnamed.push(code);
  }

  private nameAll(): void {
    if (this.unnamed.length === 0) return;
    for (const code of this.unnamed) {
      const prefix = this.byCode.get(code)!;
      let name = WELL_KNOWN[prefix] ?? deriveName(prefix);
      if (name === null || this.usedNames.has(name)) name = 'ns' + code;
      // `ns<code>` can only collide with a derived name; fall back to a suffix that cannot repeat.
      while (this.usedNames.has(name)) name += '_';
      this.names.set(code, name);
      this.usedNames.add(name);
    }
    this.unnamed = [];
  }
}

/**
 * Where to split an IRI whose last segment is empty (`http://www.vendor1.com/offer5/`): after the
 * delimiter before that segment, so the prefix is the container shared by its siblings
 * (`http://www.vendor1.com/`, local `offer5/`) rather than a namespace per IRI. Never inside the
 * scheme or authority (`http://c.org/` stays one prefix with an empty local). `end` is the
 * trailing delimiter's index.
 */
function containerCut(iri: string, end: number): number {
  const prev = Math.max(iri.lastIndexOf('/', end - 1), iri.lastIndexOf('#', end - 1));
  const auth = iri.indexOf('//');
  const pathStart = auth < 0 ? iri.indexOf(':') : iri.indexOf('/', auth + 2);
  return prev >= 0 && pathStart >= 0 && prev >= pathStart && prev < end - 1 ? prev : end;
}

/**
 * A readable prefix name from a namespace IRI: the last path segment that starts with a letter
 * (`http://example.org/vocab/` → `vocab`), or the host's main label (`http://acme.com/` → `acme`);
 * lowercased, letters and digits only, at most 20 characters. Null when nothing usable remains.
 */
export function deriveName(prefix: string): string | null {
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:(\/\/)?/.exec(prefix);
  const rest = scheme ? prefix.slice(scheme[0].length) : prefix;
  const hierarchical = !!scheme?.[1];
  const segments = rest.split(/[/#:?]/).filter((s) => s !== '');
  for (let i = segments.length - 1; i >= 0; i--) {
    let seg = segments[i]!;
    if (hierarchical && i === 0) {
      // The authority: drop a port and a leading www, keep the first remaining label.
      const labels = seg.replace(/:\d+$/, '').split('.').filter((l) => l !== '' && l !== 'www');
      seg = labels[0] ?? '';
    } else {
      seg = seg.split('.')[0]!;
    }
    const name = seg.toLowerCase().replace(/[^a-z0-9]/g, '').slice(0, 20);
    if (/^[a-z]/.test(name) && !UNUSABLE_NAMES.has(name)) return name;
  }
  return null;
}
