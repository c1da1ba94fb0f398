/**
 * Query results: turning the server's answers (SPARQL Results JSON, JSON-LD query results, Turtle
 * graphs) into a column/row set, and showing it as a sortable, paginated, virtualised table (only the
 * rows in view exist in the DOM, so 100,000 rows scroll smoothly) or as the raw answer, with CSV,
 * JSON and Turtle downloads.
 */
import { download, h, mount } from './dom.js';
import type { Triple } from './graph-view.js';

/** A result in displayable form. */
export interface ResultSet {
  columns: string[];
  rows: string[][];
  /** The server's answer as text, and its syntax. */
  raw: string;
  rawKind: 'json' | 'turtle' | 'text';
  /** ASK answers. */
  boolean?: boolean;
  /** Graph results (CONSTRUCT / DESCRIBE): the triples, for the node-link view. */
  triples?: Triple[];
}

interface SparqlTerm { type: string; value: string; datatype?: string; 'xml:lang'?: string }

/** Display form of a SPARQL Results JSON term. */
export function termText(t: SparqlTerm | undefined): string {
  if (!t) return '';
  if (t.type === 'uri') return t.value;
  if (t.type === 'bnode') return `_:${t.value}`;
  if (t['xml:lang']) return `${t.value}@${t['xml:lang']}`;
  return t.value;
}

/** A SPARQL Results JSON answer as a result set. */
export function fromSparqlJson(text: string): ResultSet {
  const doc = JSON.parse(text) as { head: { vars?: string[] }; boolean?: boolean; results?: { bindings: Record<string, SparqlTerm>[] } };
  if (typeof doc.boolean === 'boolean') return { columns: ['ASK'], rows: [[String(doc.boolean)]], raw: text, rawKind: 'json', boolean: doc.boolean };
  const columns = doc.head.vars ?? [];
  const rows = (doc.results?.bindings ?? []).map((b) => columns.map((c) => termText(b[c])));
  return { columns, rows, raw: text, rawKind: 'json' };
}

/** Display text of one JSON value of a query answer. */
export function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (typeof o['@id'] === 'string' && Object.keys(o).length === 1) return o['@id'];
    if ('@value' in o) return String(o['@value']);
    return JSON.stringify(v);
  }
  return String(v);
}

/** A JSON-LD query answer (arrays of values, rows of arrays, or objects) as a result set. */
export function fromJsonLd(text: string): ResultSet {
  const doc = JSON.parse(text) as unknown;
  const list = Array.isArray(doc) ? doc : [doc];
  if (list.every((r) => r !== null && typeof r === 'object' && !Array.isArray(r))) {
    const columns: string[] = [];
    const seen = new Set<string>();
    for (const r of list as Record<string, unknown>[]) for (const k of Object.keys(r)) if (!seen.has(k)) { seen.add(k); columns.push(k); }
    const triples = crawlTriples(list as Record<string, unknown>[]);
    return { columns, rows: (list as Record<string, unknown>[]).map((r) => columns.map((c) => cell(r[c]))), raw: JSON.stringify(doc, null, 2), rawKind: 'json', ...(triples.length ? { triples } : {}) };
  }
  const width = Math.max(1, ...list.map((r) => (Array.isArray(r) ? r.length : 1)));
  const columns = Array.from({ length: width }, (_, i) => (width === 1 ? 'value' : `#${i + 1}`));
  const rows = list.map((r) => (Array.isArray(r) ? columns.map((_, i) => cell(r[i])) : [cell(r)]));
  return { columns, rows, raw: JSON.stringify(doc, null, 2), rawKind: 'json' };
}

/**
 * The edges of a JSON-LD graph crawl (objects with `@id`, nested objects for followed references):
 * one triple per property value, `@type` as rdf:type; empty when the answer holds no node objects.
 */
export function crawlTriples(nodes: Record<string, unknown>[]): Triple[] {
  const out: Triple[] = [];
  const seen = new Set<Record<string, unknown>>();
  const walk = (n: Record<string, unknown>): string | null => {
    const id = n['@id'];
    if (typeof id !== 'string') return null;
    if (seen.has(n)) return id;
    seen.add(n);
    for (const [k, v] of Object.entries(n)) {
      if (k === '@id' || (k.startsWith('@') && k !== '@type')) continue;
      const p = k === '@type' ? 'rdf:type' : k;
      for (const x of Array.isArray(v) ? v : [v]) {
        if (x === null || x === undefined) continue;
        if (k === '@type') { out.push({ s: id, p, o: String(x), literal: false }); continue; }
        if (typeof x === 'object' && !Array.isArray(x)) {
          const o = x as Record<string, unknown>;
          const target = walk(o);
          if (target !== null) { out.push({ s: id, p, o: target, literal: false }); continue; }
          if ('@value' in o) { out.push({ s: id, p, o: String(o['@value']), literal: true }); continue; }
        }
        out.push({ s: id, p, o: typeof x === 'object' ? JSON.stringify(x) : String(x), literal: true });
      }
    }
    return id;
  };
  for (const n of nodes) walk(n);
  return out;
}

/** A Turtle graph (CONSTRUCT/DESCRIBE) as subject/predicate/object rows; n3 is loaded on demand. */
export async function fromTurtle(text: string): Promise<ResultSet> {
  const { Parser } = await import('n3');
  const rows: string[][] = [];
  const triples: Triple[] = [];
  for (const q of new Parser().parse(text)) {
    const o = q.object;
    const obj = o.termType === 'Literal' ? (o.language ? `${o.value}@${o.language}` : o.value) : o.termType === 'BlankNode' ? `_:${o.value}` : o.value;
    const subj = q.subject.termType === 'BlankNode' ? `_:${q.subject.value}` : q.subject.value;
    rows.push([subj, q.predicate.value, obj]);
    triples.push({ s: subj, p: q.predicate.value, o: obj, literal: o.termType === 'Literal' });
  }
  return { columns: ['subject', 'predicate', 'object'], rows, raw: text, rawKind: 'turtle', triples };
}

function csvField(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The result set as RFC 4180 CSV. */
export function toCsv(r: ResultSet): string {
  return [r.columns, ...r.rows].map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';
}

const ROW_H = 28;
const HEAD_H = 32;
const PAGE_SIZES = [100, 1000, 10000, 100000];

/** Show a result set in `host`: a table view and a raw view, with downloads. */
export function showResults(host: HTMLElement, r: ResultSet, meta: string): void {
  let sortCol = -1, sortDir = 1, page = 0, pageSize = 1000;
  let order: number[] = r.rows.map((_, i) => i);
  let view: 'table' | 'raw' | 'graph' = 'table';
  let disposeGraph: (() => void) | null = null;
  /** Draws the visible rows once the table is in the document (its height is known then). */
  let afterMount: (() => void) | null = null;

  const status = h('p', { className: 'result-meta', role: 'status' });
  const body = h('div', { className: 'result-body' });
  const tabs = h('div', { className: 'tabs', role: 'group', 'aria-label': 'Result view' });
  const tabBtn = (name: 'table' | 'raw' | 'graph', label: string) => h('button', {
    type: 'button', 'aria-pressed': String(view === name), onclick: () => { view = name; render(); },
  }, label);
  const base = `result-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  const downloads = h('div', { className: 'downloads', role: 'group', 'aria-label': 'Download' },
    h('button', { type: 'button', onclick: () => download(`${base}.csv`, toCsv(r), 'text/csv') }, 'CSV'),
    r.rawKind === 'json' ? h('button', { type: 'button', onclick: () => download(`${base}.json`, r.raw, 'application/json') }, 'JSON') : null,
    r.rawKind === 'turtle' ? h('button', { type: 'button', onclick: () => download(`${base}.ttl`, r.raw, 'text/turtle') }, 'Turtle') : null,
  );
  const bar = h('div', { className: 'result-bar' }, tabs, h('span', { className: 'muted' }, 'Download'), downloads);

  function sortBy(c: number): void {
    sortDir = sortCol === c ? -sortDir : 1;
    sortCol = c;
    const coll = new Intl.Collator(undefined, { numeric: true });
    order = r.rows.map((_, i) => i).sort((a, b) => sortDir * coll.compare(r.rows[a]![c]!, r.rows[b]![c]!));
    page = 0;
    render();
  }

  function table(): HTMLElement {
    const pages = Math.max(1, Math.ceil(order.length / pageSize));
    page = Math.min(page, pages - 1);
    const start = page * pageSize;
    const slice = order.slice(start, start + pageSize);
    const cols = `repeat(${r.columns.length}, minmax(9rem, 1fr))`;
    // Header and rows share one horizontal scroll (the header is sticky inside the scroller).
    const width = `min-width:max(100%, ${r.columns.length * 9}rem)`;
    const head = h('div', { className: 'grid-row grid-head', role: 'row', style: `grid-template-columns:${cols};${width}` },
      r.columns.map((c, i) => h('div', { role: 'columnheader', 'aria-sort': sortCol === i ? (sortDir > 0 ? 'ascending' : 'descending') : 'none' },
        h('button', { type: 'button', onclick: () => sortBy(i), title: `Sort by ${c}` }, c, sortCol === i ? (sortDir > 0 ? ' ▲' : ' ▼') : ''))));
    const sizer = h('div', { className: 'grid-sizer', role: 'rowgroup', style: `height:${slice.length * ROW_H}px;${width}` });
    // As tall as the rows (capped by CSS max-height), so a short answer leaves no empty box.
    const scroller = h('div', { className: 'grid-scroll', tabindex: '0', 'aria-label': 'Result rows', style: `height:${slice.length * ROW_H + HEAD_H + 2}px` }, head, sizer);
    let drawn = '';
    const draw = () => {
      const top = Math.max(0, scroller.scrollTop - HEAD_H);
      const first = Math.max(0, Math.floor(top / ROW_H) - 10);
      const last = Math.min(slice.length, Math.ceil((top + scroller.clientHeight) / ROW_H) + 10);
      const key = `${first}:${last}`;
      if (key === drawn) return;
      drawn = key;
      const out: HTMLElement[] = [];
      for (let i = first; i < last; i++) {
        const row = r.rows[slice[i]!]!;
        out.push(h('div', { className: 'grid-row', role: 'row', 'aria-rowindex': String(start + i + 2), style: `grid-template-columns:${cols};transform:translateY(${i * ROW_H}px)` },
          row.map((v) => h('div', { role: 'cell', title: v }, v))));
      }
      sizer.replaceChildren(...out);
    };
    scroller.addEventListener('scroll', () => requestAnimationFrame(draw), { passive: true });
    new ResizeObserver(() => { drawn = ''; draw(); }).observe(scroller);
    afterMount = draw;

    const pager = h('div', { className: 'pager' },
      h('button', { type: 'button', disabled: page === 0, onclick: () => { page--; render(); }, 'aria-label': 'Previous page' }, '‹ Prev'),
      h('span', { className: 'page-info' }, slice.length ? `Rows ${start + 1}–${start + slice.length} of ${order.length}` : 'No rows', ` · page ${page + 1} of ${pages}`),
      h('button', { type: 'button', disabled: page >= pages - 1, onclick: () => { page++; render(); }, 'aria-label': 'Next page' }, 'Next ›'),
      h('label', {}, 'Rows per page ', h('select', { onchange: (e: Event) => { pageSize = Number((e.target as HTMLSelectElement).value); page = 0; render(); } },
        PAGE_SIZES.map((n) => h('option', { value: String(n), selected: n === pageSize }, String(n))))),
    );
    return h('div', { className: 'grid', role: 'table', 'aria-rowcount': String(order.length + 1), 'aria-colcount': String(r.columns.length) }, scroller, pager);
  }

  function graph(): HTMLElement {
    const canvas = h('div', { className: 'graph-canvas', role: 'img', 'aria-label': `Node-link graph of ${Math.min(r.triples!.length, 500)} triples` });
    const note = h('p', { className: 'muted' }, 'Loading the graph view…');
    afterMount = () => {
      // cytoscape is a separate chunk, fetched the first time a graph is opened.
      void import('./graph-view.js').then(({ drawGraph, GRAPH_LIMIT }) => {
        if (!canvas.isConnected) return;
        note.textContent = r.triples!.length > GRAPH_LIMIT ? `Showing the first ${GRAPH_LIMIT} of ${r.triples!.length} triples.` : `${r.triples!.length} triples. Drag to pan, scroll to zoom.`;
        disposeGraph = drawGraph(canvas, r.triples!);
      });
    };
    return h('div', {}, note, canvas);
  }

  function render(): void {
    disposeGraph?.();
    disposeGraph = null;
    mount(tabs, tabBtn('table', 'Table'), r.triples ? tabBtn('graph', 'Graph') : null, tabBtn('raw', r.rawKind === 'turtle' ? 'Turtle' : r.rawKind === 'text' ? 'NDJSON' : 'JSON'));
    status.textContent = meta;
    if (r.boolean !== undefined) mount(body, h('p', { className: 'ask' }, `ASK: ${r.boolean}`));
    else if (view === 'table') mount(body, table());
    else if (view === 'graph' && r.triples) mount(body, graph());
    else mount(body, h('pre', { className: 'raw', tabindex: '0', 'aria-label': 'Raw result' }, r.raw.length > 2_000_000 ? r.raw.slice(0, 2_000_000) + '\n… (truncated; download for all)' : r.raw));
    afterMount?.();
    afterMount = null;
  }
  mount(host, status, bar, body);
  render();
}
