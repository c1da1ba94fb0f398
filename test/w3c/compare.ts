/**
 * Result comparison for the W3C suites (README "How results are compared"): solutions as
 * multisets under one global blank-node bijection, ordered comparison with ties, REDUCED's lax
 * cardinality, booleans, and graph / dataset isomorphism.
 *
 * Blank-node matching: rows are first compared with blank nodes masked (a cheap necessary
 * condition), then blank nodes are coloured by iterated refinement over the rows they occur in
 * (the same colouring on both sides), and finally a backtracking search assigns rows to rows,
 * only trying rows of equal colour signature and keeping the bijection consistent.
 */
import { blankNode, literal, type Quad, type Term } from '../../src/core/rdf/terms.js';
import type { Binding } from '../../src/core/query/results/types.js';
import type { ResultTable } from '../../src/core/query/results/sparql-json.js';
import { termToTsv, type CsvTable } from '../../src/core/query/results/sparql-csv-tsv.js';

/** CSV cells as terms for comparison: empty = unbound, `_:x` = blank node, anything else a string. */
export function csvToTable(csv: CsvTable): ResultTable {
  const cell = (s: string): Term | undefined => (s === '' ? undefined : s.startsWith('_:') ? blankNode(s.slice(2)) : literal(s));
  return {
    type: 'bindings',
    variables: csv.header,
    rows: csv.rows.map((r) => {
      const row: Record<string, Term> = {};
      r.forEach((c, i) => { const t = cell(c); if (t) row[csv.header[i]!] = t; });
      return row;
    }),
  };
}

/** A row of terms over fixed columns; undefined = unbound / default graph. */
export type Row = (Term | undefined)[];

/** Ground key of a term: IRIs as strings, literals by lexical form, datatype and lower-cased language. */
function groundKey(t: Term): string {
  switch (t.termType) {
    case 'NamedNode': return '<' + t.value;
    case 'BlankNode': return '_:' + t.value;
    case 'Literal': return '"' + t.datatype.value + '|' + t.language.toLowerCase() + '|' + t.value;
  }
}

/** RDF term equality as the suites define it (language tags case-insensitive). */
export function sameTerm(a: Term | undefined, b: Term | undefined): boolean {
  if (!a || !b) return a === b;
  return groundKey(a) === groundKey(b);
}

function cellKey(t: Term | undefined, bnode: (label: string) => string): string {
  if (!t) return '\u2205';
  return t.termType === 'BlankNode' ? bnode(t.value) : groundKey(t);
}

const MASK = () => '_';
const rowSig = (r: Row, bnode: (label: string) => string) => r.map((t) => cellKey(t, bnode)).join('\u0001');

function countBy<T>(xs: T[], f: (x: T) => string): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of xs) { const k = f(x); m.set(k, (m.get(k) ?? 0) + 1); }
  return m;
}

function bnodesOf(rows: Row[]): Set<string> {
  const s = new Set<string>();
  for (const r of rows) for (const t of r) if (t?.termType === 'BlankNode') s.add(t.value);
  return s;
}

/** Colour blank nodes of both sides by iterated refinement; returns label -> colour per side. */
function refineColours(exp: Row[], act: Row[]): [Map<string, number>, Map<string, number>] {
  const intern = new Map<string, number>();
  const id = (s: string) => { let n = intern.get(s); if (n === undefined) intern.set(s, (n = intern.size)); return n; };
  const init = (rows: Row[]) => new Map([...bnodesOf(rows)].map((b) => [b, 0]));
  let ce = init(exp);
  let ca = init(act);
  let distinct = 1;
  for (let round = 0; round < 16; round++) {
    const step = (rows: Row[], col: Map<string, number>) => {
      const occ = new Map<string, string[]>();
      for (const r of rows) {
        for (let i = 0; i < r.length; i++) {
          const t = r[i];
          if (t?.termType !== 'BlankNode') continue;
          const self = t.value;
          const desc = i + ':' + rowSig(r, (l) => (l === self ? '*' : '#' + col.get(l)));
          let l = occ.get(self);
          if (!l) occ.set(self, (l = []));
          l.push(desc);
        }
      }
      const next = new Map<string, number>();
      for (const [b, l] of occ) next.set(b, id(col.get(b) + '/' + l.sort().join('\u0002')));
      return next;
    };
    ce = step(exp, ce);
    ca = step(act, ca);
    const n = new Set([...ce.values(), ...ca.values()]).size;
    if (n === distinct) break;
    distinct = n;
  }
  return [ce, ca];
}

/** Describe rows for a failure message. */
export function showRows(rows: Row[], columns: string[], limit = 25): string {
  const lines = rows.slice(0, limit).map((r) => r.map((t, i) => `${columns[i] ?? i}=${t ? termToTsv(t) : '-'}`).join(' '));
  if (rows.length > limit) lines.push(`... ${rows.length - limit} more`);
  return lines.map((l) => '    ' + l).join('\n');
}

/**
 * Match two multisets of rows under one blank-node bijection. Returns undefined when they are
 * equal, else a message naming what differs.
 */
export function matchRows(exp: Row[], act: Row[], columns: string[], budget = 2_000_000): string | undefined {
  if (exp.length !== act.length) return `expected ${exp.length} rows, got ${act.length}\n${diffMasked(exp, act, columns)}`;
  const me = countBy(exp, (r) => rowSig(r, MASK));
  const ma = countBy(act, (r) => rowSig(r, MASK));
  for (const [k, n] of me) if (ma.get(k) !== n) return `rows differ\n${diffMasked(exp, act, columns)}`;
  const expB = exp.filter((r) => r.some((t) => t?.termType === 'BlankNode'));
  if (expB.length === 0) return undefined;
  const actB = act.filter((r) => r.some((t) => t?.termType === 'BlankNode'));
  const [ce, ca] = refineColours(expB, actB);
  const colourCount = (m: Map<string, number>) => countBy([...m.values()], String);
  const cce = colourCount(ce);
  const cca = colourCount(ca);
  if (cce.size !== cca.size || [...cce].some(([k, n]) => cca.get(k) !== n)) {
    return `no blank node bijection exists (blank nodes are used differently)\n  expected:\n${showRows(expB, columns)}\n  actual:\n${showRows(actB, columns)}`;
  }
  // Candidate actual rows per coloured signature.
  const sigE = expB.map((r) => rowSig(r, (l) => '#' + ce.get(l)));
  const byColour = new Map<string, number[]>();
  actB.forEach((r, i) => {
    const k = rowSig(r, (l) => '#' + ca.get(l));
    const l = byColour.get(k);
    if (l) l.push(i); else byColour.set(k, [i]);
  });
  for (const [k, n] of countBy(sigE, (s) => s)) {
    if ((byColour.get(k)?.length ?? 0) !== n) {
      return `no blank node bijection exists\n  expected:\n${showRows(expB, columns)}\n  actual:\n${showRows(actB, columns)}`;
    }
  }
  // Most constrained rows first: fewest candidates.
  const order = expB.map((_r, i) => i).sort((a, b) => byColour.get(sigE[a]!)!.length - byColour.get(sigE[b]!)!.length);
  const used = new Uint8Array(actB.length);
  const fwd = new Map<string, string>();
  const inv = new Map<string, string>();
  let steps = 0;
  const assign = (e: Row, a: Row, added: string[]): boolean => {
    for (let i = 0; i < e.length; i++) {
      const te = e[i];
      if (te?.termType !== 'BlankNode') continue;
      const ta = a[i]!;
      const m = fwd.get(te.value);
      if (m !== undefined) { if (m !== ta.value) return false; continue; }
      if (inv.has(ta.value)) return false;
      fwd.set(te.value, ta.value);
      inv.set(ta.value, te.value);
      added.push(te.value);
    }
    return true;
  };
  const undo = (added: string[]) => { for (const l of added) { inv.delete(fwd.get(l)!); fwd.delete(l); } };
  const search = (k: number): boolean => {
    if (k === order.length) return true;
    if (++steps > budget) throw new Error('blank node matching exceeded its search budget');
    const ei = order[k]!;
    for (const ai of byColour.get(sigE[ei]!)!) {
      if (used[ai]) continue;
      const added: string[] = [];
      if (assign(expB[ei]!, actB[ai]!, added)) {
        used[ai] = 1;
        if (search(k + 1)) return true;
        used[ai] = 0;
      }
      undo(added);
    }
    return false;
  };
  if (search(0)) return undefined;
  return `no blank node bijection makes the results equal\n  expected:\n${showRows(expB, columns)}\n  actual:\n${showRows(actB, columns)}`;
}

/** Rows missing / unexpected when blank nodes are masked. */
function diffMasked(exp: Row[], act: Row[], columns: string[]): string {
  const remaining = new Map<string, Row[]>();
  for (const r of act) {
    const k = rowSig(r, MASK);
    const l = remaining.get(k);
    if (l) l.push(r); else remaining.set(k, [r]);
  }
  const missing: Row[] = [];
  for (const r of exp) {
    const l = remaining.get(rowSig(r, MASK));
    if (l && l.length) l.pop(); else missing.push(r);
  }
  const extra = [...remaining.values()].flat();
  let s = '';
  if (missing.length) s += `  missing (${missing.length}):\n${showRows(missing, columns)}\n`;
  if (extra.length) s += `  unexpected (${extra.length}):\n${showRows(extra, columns)}\n`;
  return s;
}

/** How solution order is checked. */
export type OrderSpec =
  /** Unordered (multiset) comparison. */
  | undefined
  /** Top-level ORDER BY: rows must follow the expected order; rows equal on `tieVars` form one tie group. */
  | { tieVars: string[] }
  /** Every position fixed (an RDF result set with rs:index and no ORDER BY to define ties). */
  | 'strict';

/** Options of a solution-sequence comparison. */
export interface CompareOptions {
  order?: OrderSpec;
  /** REDUCED (mf:LaxCardinality). */
  lax?: boolean;
}

function dedupe(rows: Row[]): Row[] {
  const seen = new Set<string>();
  return rows.filter((r) => { const k = rowSig(r, (l) => '_:' + l); if (seen.has(k)) return false; seen.add(k); return true; });
}

const toRow = (b: Binding, vars: string[]): Row => vars.map((v) => b[v]);

/** Compare SELECT/ASK results. Returns undefined when equal, else a message. */
export function compareTables(expected: ResultTable, actual: ResultTable, opts: CompareOptions = {}): string | undefined {
  if (expected.type === 'boolean' || actual.type === 'boolean') {
    if (expected.type !== actual.type) return `expected a ${expected.type} result, got ${actual.type}`;
    return (expected as { value: boolean }).value === (actual as { value: boolean }).value
      ? undefined : `expected ${(expected as { value: boolean }).value}, got ${(actual as { value: boolean }).value}`;
  }
  const ev = [...new Set(expected.variables)].sort();
  const av = [...new Set(actual.variables)].sort();
  if (ev.join(' ') !== av.join(' ')) return `expected variables ?${ev.join(' ?')}, got ?${av.join(' ?')}`;
  const cols = ev;
  let er = expected.rows.map((b) => toRow(b, cols));
  let ar = actual.rows.map((b) => toRow(b, cols));
  // Bindings of variables outside the projection are an error of the result, not a difference to ignore.
  for (const b of actual.rows) for (const k of Object.keys(b)) if (!cols.includes(k)) return `a solution binds ?${k}, which is not a result variable`;
  if (opts.lax) {
    const de = dedupe(er);
    if (ar.length < de.length || ar.length > er.length) {
      return `REDUCED: expected between ${de.length} and ${er.length} rows, got ${ar.length}`;
    }
    return matchRows(de, dedupe(ar), cols);
  }
  const order = opts.order;
  if (order !== undefined && er.length === ar.length) {
    // Tag each row with its tie group: actual row i must fall in the group of expected row i.
    const segments: number[] = [];
    let seg = -1;
    let prev: string | undefined;
    const tieCols = order === 'strict' ? [] : order.tieVars.map((v) => cols.indexOf(v)).filter((i) => i >= 0);
    er.forEach((r, i) => {
      // Blank nodes have no defined order among themselves, so they tie with each other.
      const k = order === 'strict' ? String(i) : rowSig(tieCols.map((c) => r[c]), MASK);
      if (k !== prev) { seg++; prev = k; }
      segments.push(seg);
    });
    const tag = (r: Row, i: number): Row => [...r, { termType: 'Literal', value: String(segments[i]), language: '', datatype: { termType: 'NamedNode', value: 'urn:x-order:position' } }];
    er = er.map(tag);
    ar = ar.map(tag);
    const msg = matchRows(er, ar, [...cols, '#order']);
    if (msg && matchRows(er.map((r) => r.slice(0, -1)), ar.map((r) => r.slice(0, -1)), cols) === undefined) {
      return `the right solutions in the wrong order\n${msg}`;
    }
    return msg;
  }
  return matchRows(er, ar, cols);
}

/** A dataset (or graph) as rows [s, p, o, g], duplicates removed. */
function quadRows(quads: Quad[]): Row[] {
  return dedupe(quads.map((q) => [q.subject, q.predicate, q.object, q.graph.termType === 'DefaultGraph' ? undefined : q.graph as Term]));
}

/** Graph or dataset isomorphism (sets of quads, one blank node bijection). Undefined when isomorphic. */
export function compareDatasets(expected: Quad[], actual: Quad[]): string | undefined {
  return matchRows(quadRows(expected), quadRows(actual), ['s', 'p', 'o', 'g']);
}
