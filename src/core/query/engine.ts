/**
 * The query engine's front door: parse SPARQL into the algebra, plan it against a DbView, and run
 * it into a QueryResult. Binding rows stream lazily (the plan runs as the caller pulls); terms
 * are decoded only here, at the end. Every language front end that produces the algebra calls
 * executeQuery.
 */
import type { FederationOptions } from './federation/service.js';
import { timeoutError } from '../errors.js';
import { isDictMiss, withDictRetry } from '../index/dict.js';
import type { DbView } from '../index/view.js';
import { blankNode, defaultGraph, type NamedNode, type Quad, type Term } from '../rdf/terms.js';
import type { Query, TemplateTriple, TermOrVar } from './algebra/algebra.js';
import { checkAlgebraShape } from './algebra/shape-limits.js';
import { OVERFLOW_BASE } from './exec/ids.js';
import { Runtime } from './exec/runtime.js';
import { UNBOUND, type Batch, type PNode } from './exec/types.js';
import { Planner } from './plan/planner.js';
import type { Binding, IdSolutions, QueryResult } from './results/types.js';
import { parseSparql } from './sparql/parse.js';

export { parseSparql } from './sparql/parse.js';
export { fuelExhausted, isFuelExhausted } from './exec/runtime.js';

export interface QueryContext {
  view: DbView;
  /** Graph ids merged as the default graph; default [0]. A query's FROM overrides it. */
  defaultGraphs?: number[];
  /** Visible named graphs; default view.namedGraphs(). A query's FROM / FROM NAMED overrides it. */
  namedGraphs?: number[];
  /** Graph id of an IRI, for FROM / FROM NAMED and GRAPH <iri>; default view.graphId. */
  resolveGraph?(iri: string): number | undefined;
  /** NOW() (default: the time of the call). */
  now?: Date;
  baseIri?: string;
  /** Fuel budget (facts scanned plus path steps); the query's own PRAGMA max-fuel may lower it. */
  maxFuel?: number;
  /** Time budget from the call to the last row; exceeding it is a 408 err:db/Timeout. */
  timeoutMs?: number;
  /**
   * A deadline (ms since the epoch) the runtime checks as it goes, exceeding it being a 408
   * err:db/Timeout as with timeoutMs, but with no timer of the engine's own: for callers whose
   * `signal` already aborts at that time (with the timeout error as its reason).
   */
  deadline?: number;
  signal?: AbortSignal;
  /** Receives fuel spent and the plan when the execution ends (tracking for `meta`/`end` records). */
  onFinish?(stats: { fuel: number }): void;
  /** Where SERVICE may reach (absent or an empty allow-list: SERVICE is refused). */
  federation?: FederationOptions;
}

interface Prepared { rt: Runtime; root: PNode; planner: Planner; done: () => void }

/** Executions whose operators have started and not yet finished (for tests and diagnostics). */
let running = 0;

/**
 * How many query executions are in progress in this process: started pulling and not yet ended,
 * failed, cancelled or returned. A cancelled request must bring it back down (issue 20).
 */
export function runningQueries(): number {
  return running;
}

function prepare(q: Query, ctx: QueryContext): Prepared {
  checkAlgebraShape(q.op);
  const view = ctx.view;
  const resolve = ctx.resolveGraph ?? ((iri: string) => view.graphId(iri));
  let defaultGraphs = ctx.defaultGraphs ?? [0];
  let namedGraphs = ctx.namedGraphs ?? view.namedGraphs();
  if (q.dataset) {
    const ids = (xs: NamedNode[]) => [...new Set(xs.map((x) => resolve(x.value)).filter((g): g is number => g !== undefined))];
    defaultGraphs = ids(q.dataset.defaultGraphs);
    namedGraphs = ids(q.dataset.namedGraphs);
  }
  const base = q.base ?? ctx.baseIri;
  const fuels: number[] = [];
  if (ctx.maxFuel !== undefined) fuels.push(ctx.maxFuel);
  if (q.maxFuel !== undefined) fuels.push(q.maxFuel);
  // With a time budget, one controller merges the caller's signal and the deadline, so in-flight
  // scans stop too; without one the caller's signal is all there is to watch.
  let signal = ctx.signal;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  if (ctx.timeoutMs !== undefined) {
    const ac = new AbortController();
    const caller = ctx.signal;
    onAbort = () => ac.abort(caller?.reason);
    if (caller?.aborted) onAbort(); else caller?.addEventListener('abort', onAbort, { once: true });
    timer = setTimeout(() => ac.abort(timeoutError('query timeout exceeded')), ctx.timeoutMs);
    signal = ac.signal;
  }
  const rt = new Runtime({
    view,
    defaultGraphs,
    namedGraphs,
    resolveGraph: resolve,
    now: ctx.now ?? new Date(),
    baseIri: base,
    maxFuel: fuels.length === 0 ? undefined : fuels.length === 1 ? fuels[0] : Math.min(...fuels),
    deadline: ctx.timeoutMs !== undefined ? Math.min(Date.now() + ctx.timeoutMs, ctx.deadline ?? Infinity) : ctx.deadline,
    signal,
    ...(ctx.federation ? { federation: ctx.federation } : {}),
  });
  let finished = false;
  const release = () => {
    if (finished) return false;
    finished = true;
    rt.release();
    if (timer !== undefined) clearTimeout(timer);
    if (onAbort) ctx.signal?.removeEventListener('abort', onAbort);
    return true;
  };
  const done = () => { if (release()) ctx.onFinish?.({ fuel: rt.fuel }); };
  try {
    const planner = new Planner(rt);
    const root = planner.planRoot(q.op);
    return { rt, root, planner, done };
  } catch (e) {
    // A dictionary miss is retried (executeQuery): the query has not finished.
    if (isDictMiss(e)) release(); else done();
    throw e;
  }
}

/** Run a query; SELECT rows and CONSTRUCT/DESCRIBE quads stream as they are pulled. */
export async function executeQuery(q: Query, ctx: QueryContext): Promise<QueryResult> {
  // Planning looks constants up synchronously: a dictionary page it needs is loaded, then it plans again.
  const dict = ctx.view.dict;
  if (dict.baseSize > 0) {
    // Graph IRIs become terms mid-execution (GRAPH ?g): their pages are loaded up front.
    const iris = ctx.view.namedGraphs().map((g) => ctx.view.graphIri(g)).filter((i): i is string => i !== undefined);
    if (iris.length) await dict.resolveKeys(iris);
  }
  // Planned at once when every page it needs is in memory (the usual case: no await at all).
  let p: Prepared;
  try {
    p = prepare(q, ctx);
  } catch (e) {
    if (!isDictMiss(e)) throw e;
    await e.resolve();
    p = await withDictRetry(() => prepare(q, ctx));
  }
  switch (q.form) {
    case 'select': return { type: 'bindings', variables: q.variables, rows: bindings(p, q.variables), batches: bindingBatches(p, q.variables), ids: idSolutions(p, q.variables) };
    case 'ask': {
      running++;
      try {
        for await (const b of p.root.exec(p.rt, null, { kind: 'default' })) if (b.n > 0) return { type: 'boolean', value: true };
        return { type: 'boolean', value: false };
      } finally { running--; p.done(); }
    }
    case 'construct': return { type: 'quads', quads: construct(p, q.template) };
    case 'describe': return { type: 'quads', quads: describe(p, q.terms) };
  }
}

/** Parse and run SPARQL query text. */
export async function querySparql(text: string, ctx: QueryContext): Promise<QueryResult> {
  return executeQuery(parseSparql(text, ctx.baseIri !== undefined ? { baseIri: ctx.baseIri } : {}), ctx);
}

/** The physical plan of a query, one operator tree per line (for debugging and tests). */
export function explainQuery(q: Query, ctx: QueryContext): string {
  const p = prepare(q, ctx);
  p.done();
  return p.root.describe();
}

async function* bindings(p: Prepared, variables: string[]): AsyncIterable<Binding> {
  running++;
  try {
    const slots = variables.map((v) => p.planner.top.map.get(v) ?? -1);
    const w = p.rt.width;
    const signal = p.rt.signal;
    for await (const b of p.root.exec(p.rt, null, { kind: 'default' })) {
      if (p.rt.due()) await p.rt.pause();
      for (let r = 0; r < b.n; r++) {
        // A consumer may pull rows long after the batch was computed: honour an abort per row.
        if (signal?.aborted) p.rt.check();
        const row: Binding = {};
        for (let i = 0; i < slots.length; i++) {
          const s = slots[i]!;
          const id = s < 0 ? UNBOUND : b.rows[r * w + s]!;
          if (id !== UNBOUND) row[variables[i]!] = p.rt.ids.term(id);
        }
        yield row;
      }
    }
  } finally { running--; p.done(); }
}

/**
 * The same solutions as `bindings`, a batch of the plan's output at a time (for serialisers: one
 * await per batch rather than per row). A result's `rows` and `batches` share one plan: a
 * consumer reads one of them.
 */
async function* bindingBatches(p: Prepared, variables: string[]): AsyncIterable<Binding[]> {
  running++;
  try {
    const slots = variables.map((v) => p.planner.top.map.get(v) ?? -1);
    const w = p.rt.width;
    for await (const b of p.root.exec(p.rt, null, { kind: 'default' })) {
      if (p.rt.due()) await p.rt.pause();
      if (p.rt.signal?.aborted) p.rt.check();
      const out: Binding[] = new Array(b.n);
      for (let r = 0; r < b.n; r++) {
        const row: Binding = {};
        for (let i = 0; i < slots.length; i++) {
          const s = slots[i]!;
          const id = s < 0 ? UNBOUND : b.rows[r * w + s]!;
          if (id !== UNBOUND) row[variables[i]!] = p.rt.ids.term(id);
        }
        out[r] = row;
      }
      yield out;
    }
  } finally { running--; p.done(); }
}

/** The same solutions as `bindings`, as term ids (for serialisers that cache text per term). */
function idSolutions(p: Prepared, variables: string[]): IdSolutions {
  const ids = p.rt.ids;
  return {
    width: p.rt.width,
    slots: variables.map((v) => p.planner.top.map.get(v) ?? -1),
    unbound: UNBOUND,
    batches: idBatches(p),
    text: (id, derive) => ids.text(id, derive),
    term: (id) => ids.term(id),
    space: ids.dict.space,
    computed: OVERFLOW_BASE,
  };
}

async function* idBatches(p: Prepared): AsyncIterable<Batch> {
  running++;
  try {
    for await (const b of p.root.exec(p.rt, null, { kind: 'default' })) {
      if (p.rt.due()) await p.rt.pause();
      if (p.rt.signal?.aborted) p.rt.check();
      yield b;
    }
  } finally { running--; p.done(); }
}

function validTriple(s: Term, pr: Term, o: Term): boolean {
  return s.termType !== 'Literal' && pr.termType === 'NamedNode' && o !== undefined;
}

let constructRun = 0;

async function* construct(p: Prepared, template: TemplateTriple[]): AsyncIterable<Quad> {
  running++;
  try {
    const w = p.rt.width;
    const slotOf = (t: TermOrVar) => (t.termType === 'Variable' ? p.planner.top.map.get(t.value) ?? -1 : -1);
    const tslots = template.map((t) => [slotOf(t.s), slotOf(t.p), slotOf(t.o)] as const);
    const seen = new Set<string>();
    const prefix = `c${(constructRun++).toString(36)}x`;
    let solution = 0;
    for await (const b of p.root.exec(p.rt, null, { kind: 'default' })) {
      if (p.rt.due()) await p.rt.pause();
      for (let r = 0; r < b.n; r++) {
        if (p.rt.signal?.aborted) p.rt.check();
        solution++;
        const inst = (t: TermOrVar, slot: number): Term | undefined => {
          if (t.termType === 'Variable') {
            const id = slot < 0 ? UNBOUND : b.rows[r * w + slot]!;
            return id === UNBOUND ? undefined : p.rt.ids.term(id);
          }
          // Template blank nodes are fresh for every solution.
          if (t.termType === 'BlankNode') return blankNode(`${prefix}${solution}_${t.value}`);
          return t;
        };
        for (let i = 0; i < template.length; i++) {
          const t = template[i]!, sl = tslots[i]!;
          const s = inst(t.s, sl[0]), pr = inst(t.p, sl[1]), o = inst(t.o, sl[2]);
          if (!s || !pr || !o || !validTriple(s, pr, o)) continue;
          const key = termId(s) + ' ' + termId(pr) + ' ' + termId(o);
          if (seen.has(key)) continue;
          seen.add(key);
          yield { subject: s, predicate: pr as NamedNode, object: o, graph: defaultGraph };
        }
      }
    }
  } finally { running--; p.done(); }
}

function termId(t: Term): string {
  return t.termType === 'Literal' ? JSON.stringify([t.value, t.language, t.datatype.value]) : t.termType === 'BlankNode' ? '_:' + t.value : '<' + t.value + '>';
}

/** DESCRIBE: the concise bounded description of each resource (outgoing triples, blank-node objects followed). */
async function* describe(p: Prepared, terms: Extract<Query, { form: 'describe' }>['terms']): AsyncIterable<Quad> {
  running++;
  try {
    const rt = p.rt;
    const w = rt.width;
    const resources = new Set<number>();
    const varSlots: number[] = [];
    for (const t of terms) {
      if (t.termType === 'Variable') {
        const s = p.planner.top.map.get(t.value);
        if (s !== undefined) varSlots.push(s);
      } else {
        const id = rt.ids.stored(t);
        if (id !== undefined) resources.add(id);
      }
    }
    if (varSlots.length) {
      for await (const b of p.root.exec(rt, null, { kind: 'default' })) {
        for (let r = 0; r < b.n; r++) for (const s of varSlots) {
          const id = b.rows[r * w + s]!;
          if (id !== UNBOUND && id < OVERFLOW_BASE) resources.add(id);
        }
      }
    }
    const visited = new Set<number>();
    const queue = [...resources];
    while (queue.length) {
      const id = queue.shift()!;
      if (visited.has(id)) continue;
      visited.add(id);
      for await (const fb of rt.scan({ s: id }, rt.defaultGraphs)) {
        for (let i = 0; i < fb.n; i++) {
          const o = fb.o[i]!;
          yield { subject: rt.ids.term(fb.s[i]!), predicate: rt.ids.term(fb.p[i]!) as NamedNode, object: rt.ids.term(o), graph: defaultGraph };
          if (rt.ids.kind(o) === 1 && !visited.has(o)) queue.push(o);
        }
      }
    }
  } finally { running--; p.done(); }
}
