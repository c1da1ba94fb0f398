/**
 * Flakes as the commit views show them: the object column in a Turtle-like form, IRIs expanded
 * with a commit's `@context`, and a removed/added diff table whose subjects open their timeline.
 */
import type { ShownCommit } from './api.js';
import { h } from './dom.js';
import { href } from './main.js';

/** One flake of `GET /show`. */
export type Flake = ShownCommit['flakes'][number];

/** The object of a flake in readable form (IRIs bare, strings quoted, other datatypes as `^^dt`). */
export function flakeObject(v: unknown, dt: string, meta?: { lang?: string }): string {
  if (dt === '@id' || dt === 'id') return String(v);
  const s = typeof v === 'string' ? JSON.stringify(v) : String(v);
  if (meta?.lang) return `${s}@${meta.lang}`;
  return /xsd:string$|#string$/.test(dt) || dt === '' ? s : `${s}^^${dt}`;
}

/** A compacted IRI expanded with a `@context` of prefixes (unchanged when no prefix applies). */
export function expandIri(iri: string, ctx: Record<string, string>): string {
  const i = iri.indexOf(':');
  if (i > 0 && !iri.startsWith('_:')) {
    const ns = ctx[iri.slice(0, i)];
    if (ns && !iri.slice(i + 1).startsWith('//')) return ns + iri.slice(i + 1);
  }
  return iri;
}

/** The removed and added flakes as a table; subjects link to their timeline. */
export function diffTable(ledger: string, removed: Flake[], added: Flake[], ctx: Record<string, string>, caption?: string): HTMLElement {
  const rows = (list: Flake[], cls: string, sign: string) => list.map((f) => h('tr', { className: cls },
    h('td', { className: 'sign', 'aria-label': cls }, sign),
    h('td', {}, f[0].startsWith('_:') ? f[0] : h('a', { href: href(ledger, 'subject', expandIri(f[0], ctx)), title: 'History of this subject' }, f[0])),
    h('td', {}, f[1]), h('td', {}, flakeObject(f[2], f[3], f[5]))));
  return h('table', { className: 'data diff' },
    h('caption', {}, caption ?? `${added.length} added, ${removed.length} removed`),
    h('thead', {}, h('tr', {}, ['', 'Subject', 'Predicate', 'Object'].map((x) => h('th', { scope: 'col' }, x)))),
    h('tbody', {}, rows(removed, 'removed', '−'), rows(added, 'added', '+')));
}
