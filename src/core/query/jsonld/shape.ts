/**
 * Select result shaping (jsonld-query.md §3, §6, §13): solution rows -> the JSON result — arrays
 * of columns or flat values, `"*"` objects, typed-json row objects, crawl nodes, grouped value
 * arrays and the statistical aggregates (median, variance, stddev) computed per group.
 */
import type { Term } from '../../rdf/terms.js';
import { termKey } from '../../rdf/terms.js';
import { doubleLiteral, numericToNumber, numericValue } from '../../rdf/values.js';
import type { Binding, IdSolutions } from '../results/types.js';
import type { IdCells } from './id-cells.js';
import type { Crawler } from './crawl.js';
import type { Formatter } from './format.js';
import type { Column, CompiledSelect, StatName } from './query.js';

/** Per group (key tuple), the values of every collected variable, in solution order. */
export type Collected = Map<string, Map<string, Term[]>>;

/** The identity of a row's group: its key terms. */
export function groupKeyOf(row: Binding, keys: readonly string[]): string {
  return keys.map((k) => (row[k] ? termKey(row[k]!) : '')).join('\u0000');
}

/** Index the collect query's rows by group. */
export function collectValues(rows: Binding[], c: CompiledSelect): Collected {
  const out: Collected = new Map();
  const vars = c.collect!.variables.filter((v) => !c.groupKeys.includes(v));
  for (const row of rows) {
    const key = groupKeyOf(row, c.groupKeys);
    let g = out.get(key);
    if (!g) out.set(key, g = new Map(vars.map((v) => [v, []])));
    for (const v of vars) if (row[v]) g.get(v)!.push(row[v]!);
  }
  return out;
}

/**
 * Shape every row of a select as it streams from the engine, a batch of solutions at a time (one
 * await per batch of the plan's output, as the SPARQL JSON writer reads them, not one per row).
 * `collected` (grouped arrays and statistics) must be complete before shaping starts; crawl nodes
 * are read per row.
 */
export function shapeRows(c: CompiledSelect, batches: AsyncIterable<Binding[]>, fmt: Formatter, crawler: Crawler | undefined, collected: Collected | undefined): Promise<unknown[]> {
  // Each common shape has a loop of its own: a small function is optimised after far fewer
  // calls than one holding every shape, which matters for queries repeated a few hundred times.
  if (c.wildcard) return wildcardRows(batches, fmt, c.projected);
  // typed-json rows are objects keyed by variable name (§13); a lone crawl column stays a node.
  const keyed = fmt.format === 'typed-json' && !(c.flat && c.columns[0]!.kind === 'crawl');
  if (!keyed && c.varNames) return c.flat ? flatRows(batches, fmt, c.varNames[0]!) : tableRows(batches, fmt, c.varNames);
  return shapedRows(c, batches, fmt, crawler, collected, keyed);
}

/** Whether shapeIdRows may be used (tests turn it off to compare the id path with the row path). */
let idShaping = true;
/** Turn shaping from term ids on or off (for tests comparing the two paths; on by default). */
export function setIdShaping(on: boolean): void { idShaping = on; }

/**
 * Shape a select from the engine's term-id solutions, when its shape allows (`json` form; variables
 * only or `"*"`): each stored term's cell comes from the formatter's id cache, so repeated terms
 * are neither decoded nor shaped again. Undefined when the query needs the row path; the result
 * is then untouched and the caller reads its rows.
 */
export function shapeIdRows(c: CompiledSelect, ids: IdSolutions | undefined, fmt: Formatter): Promise<unknown[]> | undefined {
  if (!idShaping || ids === undefined || fmt.cellsFor === undefined) return undefined;
  const cache = fmt.cellsFor(ids.space);
  const slotOf = (name: string): number => { const i = c.projected.indexOf(name); return i < 0 ? -1 : ids.slots[i]!; };
  if (c.wildcard) return idWildcardRows(ids, fmt, cache, c.projected.map(slotOf), c.projected.map((v) => '?' + v));
  if (!c.varNames) return undefined;
  const slots = c.varNames.map(slotOf);
  return c.flat ? idFlatRows(ids, fmt, cache, slots[0]!) : idTableRows(ids, fmt, cache, slots);
}

/** The cell of a bound id: a stored term's from the cache (shaped and kept on a miss), a computed term's shaped anew. */
function idCell(id: number, ids: IdSolutions, fmt: Formatter, cache: IdCells): unknown {
  if (id >= ids.computed) return fmt.cell(ids.term(id));
  let cell = cache.get(id);
  if (cell === undefined) {
    cell = fmt.cell(ids.term(id));
    cache.put(id, cell);
  }
  return cell;
}

/** Variables only, from ids: an array of values per row. */
async function idTableRows(ids: IdSolutions, fmt: Formatter, cache: IdCells, slots: number[]): Promise<unknown[]> {
  const out: unknown[] = [];
  const { width, unbound } = ids;
  const n = slots.length;
  const cellAt = (rows: Int32Array, at: number, s: number): unknown => {
    const id = s < 0 ? unbound : rows[at + s]!;
    return id === unbound ? null : idCell(id, ids, fmt, cache);
  };
  // Rows are array literals (or filled by push): packed arrays, which JSON.stringify writes on its
  // fast path (a holey `new Array(n)` goes element by element through the slow one), and literals
  // of their exact size (an empty array's first push reserves 17 elements).
  const [s0, s1, s2, s3] = slots as [number, number, number, number];
  for await (const b of ids.batches) {
    const rows = b.rows;
    for (let r = 0, at = 0; r < b.n; r++, at += width) {
      switch (n) {
        case 2: out.push([cellAt(rows, at, s0), cellAt(rows, at, s1)]); break;
        case 3: out.push([cellAt(rows, at, s0), cellAt(rows, at, s1), cellAt(rows, at, s2)]); break;
        case 4: out.push([cellAt(rows, at, s0), cellAt(rows, at, s1), cellAt(rows, at, s2), cellAt(rows, at, s3)]); break;
        default: {
          const cells: unknown[] = [];
          for (let i = 0; i < n; i++) cells.push(cellAt(rows, at, slots[i]!));
          out.push(cells);
        }
      }
    }
  }
  return out;
}

/** One variable selected bare, from ids: a value per row. */
async function idFlatRows(ids: IdSolutions, fmt: Formatter, cache: IdCells, slot: number): Promise<unknown[]> {
  const out: unknown[] = [];
  const { width, unbound } = ids;
  for await (const b of ids.batches) {
    const rows = b.rows;
    for (let r = 0, at = 0; r < b.n; r++, at += width) {
      const id = slot < 0 ? unbound : rows[at + slot]!;
      out.push(id === unbound ? null : idCell(id, ids, fmt, cache));
    }
  }
  return out;
}

/** `"*"` from ids: an object per row keyed by `?var`, unbound variables left out. */
async function idWildcardRows(ids: IdSolutions, fmt: Formatter, cache: IdCells, slots: number[], keys: string[]): Promise<unknown[]> {
  const out: unknown[] = [];
  const { width, unbound } = ids;
  for await (const b of ids.batches) {
    const rows = b.rows;
    for (let r = 0, at = 0; r < b.n; r++, at += width) {
      const o: Record<string, unknown> = {};
      for (let i = 0; i < slots.length; i++) {
        const s = slots[i]!;
        const id = s < 0 ? unbound : rows[at + s]!;
        if (id !== unbound) o[keys[i]!] = idCell(id, ids, fmt, cache);
      }
      out.push(o);
    }
  }
  return out;
}

/** The solutions of a select result a batch at a time (single-row batches when it offers only rows). */
export function batchesOf(rows: AsyncIterable<Binding>, batches: AsyncIterable<Binding[]> | undefined): AsyncIterable<Binding[]> {
  return batches ?? (async function* () { for await (const row of rows) yield [row]; })();
}

/** `"*"`: an object per row keyed by `?var`, unbound variables left out. */
async function wildcardRows(batches: AsyncIterable<Binding[]>, fmt: Formatter, vars: string[]): Promise<unknown[]> {
  const out: unknown[] = [];
  const keys = vars.map((v) => '?' + v);
  for await (const rows of batches) {
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      const o: Record<string, unknown> = {};
      for (let i = 0; i < keys.length; i++) { const t = row[vars[i]!]; if (t !== undefined) o[keys[i]!] = fmt.cell(t); }
      out.push(o);
    }
  }
  return out;
}

/** One variable selected bare: a value per row. */
async function flatRows(batches: AsyncIterable<Binding[]>, fmt: Formatter, name: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const rows of batches) for (let r = 0; r < rows.length; r++) out.push(fmt.cell(rows[r]![name]));
  return out;
}

/** Variables only: an array of values per row (the hot loop of large selects). */
async function tableRows(batches: AsyncIterable<Binding[]>, fmt: Formatter, names: string[]): Promise<unknown[]> {
  const out: unknown[] = [];
  const width = names.length;
  for await (const rows of batches) {
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      const cells: unknown[] = []; // packed (see idTableRows)
      for (let i = 0; i < width; i++) cells.push(fmt.cell(row[names[i]!]));
      out.push(cells);
    }
  }
  return out;
}

/** Crawl columns, grouped value arrays, statistics and typed-json row objects. */
async function shapedRows(c: CompiledSelect, batches: AsyncIterable<Binding[]>, fmt: Formatter, crawler: Crawler | undefined, collected: Collected | undefined, keyed: boolean): Promise<unknown[]> {
  const out: unknown[] = [];
  const order = c.columns.map((col, i) => [columnName(col, fmt), i] as const).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  for await (const rows of batches) {
    for (const row of rows) {
      const group = collected?.get(groupKeyOf(row, c.groupKeys));
      const cells: unknown[] = [];
      for (const col of c.columns) cells.push(await cell(col, row, fmt, crawler, group));
      if (keyed) {
        const o: Record<string, unknown> = {};
        for (const [name, i] of order) o[name] = cells[i];
        out.push(o);
      } else out.push(c.flat ? cells[0] : cells);
    }
  }
  return out;
}

function columnName(col: Column, fmt: Formatter): string {
  if (col.kind === 'crawl') return typeof col.root === 'string' ? '?' + col.root : fmt.id(col.root);
  return '?' + col.name;
}

async function cell(col: Column, row: Binding, fmt: Formatter, crawler: Crawler | undefined, group: Map<string, Term[]> | undefined): Promise<unknown> {
  switch (col.kind) {
    case 'var': return fmt.cell(row[col.name]);
    case 'crawl': return crawler!.root(typeof col.root === 'string' ? row[col.root] : col.root, col.spec);
    case 'values': return (group?.get(col.name) ?? []).map((t) => fmt.cell(t));
    case 'stat': {
      const v = statistic(col.fn, group?.get(col.source) ?? []);
      return v === undefined ? fmt.cell(undefined) : fmt.cell(doubleLiteral(v));
    }
  }
}

/**
 * median / variance / stddev of numeric terms as a double (§6): population variance (mean squared
 * deviation); the median of an even count is the mean of the two middle values. Unbound (undefined)
 * for no values or any non-numeric value, as an aggregate's evaluation error is.
 */
export function statistic(fn: StatName, terms: readonly Term[]): number | undefined {
  if (terms.length === 0) return undefined;
  const xs: number[] = [];
  for (const t of terms) {
    const v = numericValue(t);
    if (!v) return undefined;
    xs.push(numericToNumber(v));
  }
  if (fn === 'median') {
    xs.sort((a, b) => a - b);
    const mid = xs.length >> 1;
    return xs.length % 2 === 1 ? xs[mid]! : (xs[mid - 1]! + xs[mid]!) / 2;
  }
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const variance = xs.reduce((a, x) => a + (x - mean) * (x - mean), 0) / xs.length;
  return fn === 'variance' ? variance : Math.sqrt(variance);
}
