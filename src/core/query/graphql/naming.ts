/**
 * GraphQL names for classes, properties and root fields (graphql.md §4): candidate from the
 * context (term, else the part after the compacting prefix, else the IRI's last segment),
 * sanitised, collisions qualified with the prefix and then numbered in IRI order.
 */
import type { ActiveContext } from '../../rdf/jsonld-context.js';

/** Names every schema declares (§5, graphql-js built-ins, root types). */
export const RESERVED_TYPE_NAMES = new Set(['Query', 'Mutation', 'Subscription', 'Resource', 'Long', 'Decimal', 'Date', 'DateTime', 'Time', 'JSON',
  'OrderDirection', 'IDFilter', 'ExistsFilter', 'BooleanFilter', 'StringFilter', 'LangStringFilter', 'LongFilter', 'FloatFilter',
  'DecimalFilter', 'DateFilter', 'DateTimeFilter', 'TimeFilter', 'String', 'Int', 'Float', 'Boolean', 'ID']);

/** Sanitise a candidate name (§4 rule 2). */
export function sanitize(s: string): string {
  let out = s.replace(/[^_0-9A-Za-z]/g, '_');
  if (out === '') out = '_';
  if (/^[0-9]/.test(out)) out = '_' + out;
  if (out.startsWith('__')) out = 'x' + out;
  return out;
}

/** The local part of an IRI and the prefix that compacts it (null when none), per the context. */
export function localPart(iri: string, ctx: ActiveContext): { local: string; prefix: string | null } {
  const term = ctx.compactIri(iri, true);
  if (term !== iri) {
    const colon = term.indexOf(':');
    if (colon < 0) return { local: term, prefix: null };
    const p = ctx.compactIri(iri, false);
    if (p !== iri && p.indexOf(':') > 0) return { local: p.slice(p.indexOf(':') + 1), prefix: p.slice(0, p.indexOf(':')) };
    return { local: term.slice(colon + 1), prefix: term.slice(0, colon) };
  }
  const m = /[#/:]([^#/:]*)$/.exec(iri);
  return { local: m ? m[1]! : iri, prefix: null };
}

/**
 * Allocate names for IRIs in one scope: candidates clashing with each other or with `reserved`
 * are qualified `<prefix>_<name>`; names still equal get `_2`, `_3`, … in ascending IRI order.
 */
/** An invalid declaration (duplicate declared names, invalid curated instance): SCHEMA_ERROR on every request. */
export class DeclarationError extends Error {}

export function allocateNames(iris: readonly string[], ctx: ActiveContext, reserved: ReadonlySet<string>, declared?: ReadonlyMap<string, string>, named?: ReadonlyMap<string, string>): Map<string, string> {
  const cand = new Map<string, { name: string; prefix: string | null }>();
  for (const iri of iris) {
    // A key `^P` names the reverse field of P: `_` + local part unless a name is declared.
    const rev = iri.startsWith('^');
    const l = localPart(rev ? iri.slice(1) : iri, ctx);
    const d = declared?.get(iri) ?? named?.get(iri);
    cand.set(iri, { name: sanitize(d ?? (rev ? '_' + l.local : l.local)), prefix: l.prefix });
  }
  // Declared names are allocated first and never renamed (§4 rule 3).
  const out = new Map<string, string>();
  const taken = new Set(reserved);
  for (const [key, name] of declared ?? []) {
    if (!cand.has(key)) continue;
    const n = sanitize(name);
    if (taken.has(n)) throw new DeclarationError(`duplicate declared GraphQL name "${n}"`);
    taken.add(n);
    out.set(key, n);
  }
  const free = iris.filter((k) => !out.has(k));
  const count = new Map<string, number>();
  for (const k of free) { const n = cand.get(k)!.name; count.set(n, (count.get(n) ?? 0) + 1); }
  const first = new Map<string, string>();
  for (const k of free) {
    const c = cand.get(k)!;
    const clash = (count.get(c.name) ?? 0) > 1 || taken.has(c.name);
    first.set(k, clash && c.prefix !== null ? sanitize(`${c.prefix}_${c.name}`) : c.name);
  }
  for (const iri of [...free].sort()) {
    const base = first.get(iri)!;
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
    taken.add(name);
    out.set(iri, name);
  }
  return out;
}

/** English plural of a root field name (§4 rule 6). */
export function pluralOf(s: string): string {
  if (/(s|x|z|ch|sh)$/.test(s)) return s + 'es';
  if (/[^aeiou]y$/i.test(s)) return s.slice(0, -1) + 'ies';
  return s + 's';
}

/** Lower-case the first character (singular root field). */
export function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}

/**
 * Root field names per type name (§4 rule 6): singulars first, then plurals (`<singular>_list`
 * on a clash), counts = plural + `_count`; remaining clashes numbered in type-name order.
 */
export function rootNames(types: { name: string; plural?: string | undefined }[]): Map<string, { singular: string; plural: string; count: string }> {
  const sorted = [...types].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const taken = new Set<string>();
  const unique = (base: string): string => { let n = base; for (let i = 2; taken.has(n); i++) n = `${base}_${i}`; taken.add(n); return n; };
  const singular = new Map<string, string>();
  for (const t of sorted) singular.set(t.name, unique(lowerFirst(t.name)));
  const out = new Map<string, { singular: string; plural: string; count: string }>();
  for (const t of sorted) {
    const s = singular.get(t.name)!;
    let p = t.plural !== undefined ? sanitize(t.plural) : pluralOf(s);
    if (taken.has(p)) p = `${s}_list`;
    p = unique(p);
    out.set(t.name, { singular: s, plural: p, count: unique(`${p}_count`) });
  }
  return out;
}
