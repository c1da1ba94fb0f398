/**
 * The resolvers of one GraphQL request over one snapshot view (graphql.md §9, §11). Root fields
 * run one JSON-LD query each (compiled by the JSON-LD query compiler, executed by the shared
 * engine). Nested fields are batched: every resolver call of one field (same property and
 * arguments) made while graphql-js completes a level is answered by one algebra query over all
 * their subjects (VALUES ?s + the property pattern), so a list of n objects costs one query per
 * selected field, not n.
 */
import type { DbView } from '../../index/view.js';
import { blankNode, namedNode, termKey, variable, type Term } from '../../rdf/terms.js';
import type { Op } from '../algebra/algebra.js';
import { executeQuery } from '../engine.js';
import { parseQuery } from '../jsonld/parse.js';
import { compileSelect } from '../jsonld/query.js';
import { WhereCompiler } from '../jsonld/where.js';
import { collect, type Binding } from '../results/types.js';
import { nonNegative, rootOrder, WhereBuilder } from './filters.js';
import type { FieldModel } from './model.js';
import { longOut } from './scalars.js';
import type { DerivedSchema, PublishedType, Resolvers } from './schema.js';

/** Microtask hops before a batch is flushed (see field()). */
const FLUSH_HOPS = 16;

/** A node as graphql-js passes it between resolvers. */
export interface Node { term: Term }

interface Batch { f: FieldModel; args: Record<string, unknown>; subjects: Map<string, Term>; waiters: { key: string; ok(v: unknown): void; fail(e: unknown): void }[] }

export interface ResolveOptions { view: DbView; derived: DerivedSchema; contextJson: unknown; signal?: AbortSignal; deadline?: number }

/** Per-request resolvers; `queries` records the JSON-LD query each root field ran (for explain). */
export class RequestResolvers implements Resolvers {
  readonly queries = new Map<string, unknown>();
  /** Mutation root results by response key (§12), set before execution. */
  mutationResults = new Map<string, { id: string; iri: string } | null>();
  private batches = new Map<string, Batch>();
  private scheduled = false;

  constructor(private readonly o: ResolveOptions) {}

  /** Expand a compact or full IRI (`_:` labels are blank nodes). */
  expandId(id: string): string {
    return this.o.derived.ctx.expandIri(id, false);
  }

  private term(id: string): Term {
    const iri = this.expandId(id);
    return iri.startsWith('_:') ? blankNode(iri.slice(2)) : namedNode(iri);
  }

  mutationResult(key: string): unknown {
    const r = this.mutationResults.get(key);
    if (!r) return null;
    return { term: r.iri.startsWith('_:') ? blankNode(r.iri.slice(2)) : namedNode(r.iri), deleted: r.id };
  }

  id(src: unknown): string {
    const t = (src as Node).term;
    return t.termType === 'BlankNode' ? `_:${t.value}` : this.o.derived.ctx.compactIri(t.value, false);
  }

  /** Run a JSON-LD query object on the snapshot; the rows of its projected variables. */
  private async run(body: Record<string, unknown>): Promise<{ rows: Binding[]; vars: string[] }> {
    const q = parseQuery({ '@context': this.o.contextJson, ...body });
    const c = compileSelect(q.query, new WhereCompiler(), true);
    return { rows: await this.exec(c.op, c.projected), vars: c.projected };
  }

  private async exec(op: Op, variables: string[]): Promise<Binding[]> {
    const r = await executeQuery({ form: 'select', op, variables }, {
      view: this.o.view, defaultGraphs: [0], namedGraphs: [],
      ...(this.o.signal ? { signal: this.o.signal } : {}), ...(this.o.deadline ? { deadline: this.o.deadline } : {}),
    });
    if (r.type !== 'bindings') throw new Error('select did not produce bindings');
    return collect(r.rows);
  }

  async single(t: PublishedType, args: Record<string, unknown>, path: string): Promise<unknown> {
    const term = this.term(String(args.id));
    if (term.termType === 'BlankNode') {
      // A blank node label is not a pattern constant: check its type by scanning its facts.
      return (await this.typed([term], t.cls)).length ? { term } : null;
    }
    const wb = new WhereBuilder(t, this.o.derived.ctx, (id) => this.expandId(id));
    const body = { selectDistinct: ['?s'], where: [wb.typePattern()], values: ['?s', [{ '@id': term.value }]] };
    this.queries.set(path, body);
    const { rows } = await this.run(body);
    return rows.length ? { term } : null;
  }

  /** The subjects among `terms` that are instances of `cls`. */
  private async typed(terms: Term[], cls: string): Promise<Term[]> {
    const op: Op = { type: 'join', inputs: [{ type: 'values', variables: ['s'], rows: terms.map((x) => [x]) }, { type: 'bgp', patterns: [{ s: variable('s'), p: namedNode('http://www.w3.org/1999/02/22-rdf-syntax-ns#type'), o: namedNode(cls) }] }] };
    return (await this.exec(op, ['s'])).map((r) => r.s!);
  }

  async list(t: PublishedType, args: Record<string, unknown>, path: string): Promise<unknown> {
    const limit = nonNegative('limit', args.limit), offset = nonNegative('offset', args.offset);
    const wb = new WhereBuilder(t, this.o.derived.ctx, (id) => this.expandId(id));
    const order = rootOrder(t, this.o.derived.ctx, args.orderBy as { field: string; direction: string }[] | undefined);
    const body: Record<string, unknown> = {
      selectDistinct: ['?s'], where: [wb.typePattern(), ...wb.clauses(args.where as Record<string, unknown> | undefined), ...order.patterns],
      orderBy: order.keys,
    };
    if (limit !== undefined) body.limit = limit;
    if (offset !== undefined) body.offset = offset;
    this.queries.set(path, body);
    const { rows } = await this.run(body);
    return rows.map((r) => ({ term: r.s! }));
  }

  async count(t: PublishedType, args: Record<string, unknown>, path: string): Promise<unknown> {
    const wb = new WhereBuilder(t, this.o.derived.ctx, (id) => this.expandId(id));
    const body = { select: ['(count-distinct ?s)'], where: [wb.typePattern(), ...wb.clauses(args.where as Record<string, unknown> | undefined)] };
    this.queries.set(path, body);
    const { rows, vars } = await this.run(body);
    const n = rows[0]?.[vars[0]!];
    return n ? longOut(n.value) : 0;
  }

  field(src: unknown, _t: PublishedType, f: FieldModel, args: Record<string, unknown>): Promise<unknown> {
    const limit = nonNegative('limit', args.limit);
    const s = (src as Node).term;
    const key = f.property + '\u0000' + JSON.stringify(args);
    let b = this.batches.get(key);
    if (!b) this.batches.set(key, b = { f, args: { ...args, limit }, subjects: new Map(), waiters: [] });
    const sk = termKey(s);
    b.subjects.set(sk, s);
    const batch = b;
    const p = new Promise<unknown>((ok, fail) => batch.waiters.push({ key: sk, ok, fail }));
    if (!this.scheduled) {
      this.scheduled = true;
      // After the sibling resolvers of this level have queued: graphql-js calls them within a few
      // promise hops of the batch that produced their parents. A resolver that queues later only
      // starts another batch (more queries, same answers), so a short microtask delay suffices and
      // costs no timer tick per level.
      let p: Promise<void> = Promise.resolve();
      for (let i = 0; i < FLUSH_HOPS; i++) p = p.then(() => undefined);
      void p.then(() => { this.scheduled = false; return this.flush(); });
    }
    return p;
  }

  private async flush(): Promise<void> {
    const batches = [...this.batches.values()];
    this.batches.clear();
    await Promise.all(batches.map(async (b) => {
      try {
        const values = await this.load(b);
        for (const w of b.waiters) w.ok(values.get(w.key) ?? []);
      } catch (e) {
        for (const w of b.waiters) w.fail(e);
      }
    }));
  }

  /** One query for every subject of a batch: their values of the property, ordered (§9 defaults). */
  private async load(b: Batch): Promise<Map<string, unknown[]>> {
    const { f, args } = b;
    const order = f.kind === 'ref' ? (args.orderBy as { direction: string }[] | undefined)?.[0]?.direction : args.orderBy as string | undefined;
    const op: Op = {
      type: 'orderby',
      input: { type: 'join', inputs: [
        { type: 'values', variables: ['s'], rows: [...b.subjects.values()].map((x) => [x]) },
        { type: 'bgp', patterns: [f.reverse ? { s: variable('o'), p: namedNode(f.property), o: variable('s') } : { s: variable('s'), p: namedNode(f.property), o: variable('o') }] },
      ] },
      keys: [{ expr: { type: 'var', name: 's' }, desc: false }, { expr: { type: 'var', name: 'o' }, desc: order === 'DESC' }],
    };
    const rows = await this.exec(op, ['s', 'o']);
    const grouped = new Map<string, Term[]>();
    for (const r of rows) {
      const k = termKey(r.s!);
      let l = grouped.get(k);
      if (!l) grouped.set(k, l = []);
      l.push(r.o!);
    }
    const out = new Map<string, unknown[]>();
    const ranges = typeof args.lang === 'string' ? args.lang.split(',').map((x) => x.trim().toLowerCase()).filter((x) => x) : ['*'];
    for (const [k, terms] of grouped) {
      let vals = terms;
      if (f.lang && !ranges.includes('*')) {
        vals = [];
        for (const r of ranges) {
          vals = terms.filter((x) => x.termType === 'Literal' && x.language !== '' && (x.language === r || x.language.startsWith(r + '-')));
          if (vals.length) break;
        }
      }
      if (typeof args.limit === 'number') vals = vals.slice(0, args.limit);
      out.set(k, vals.map((x) => this.output(f, x)));
    }
    return out;
  }

  /** A value as JSON per its GraphQL type (§11). */
  private output(f: FieldModel, x: Term): unknown {
    if (f.kind === 'ref') return { term: x };
    if (x.termType !== 'Literal') return x.termType === 'BlankNode' ? `_:${x.value}` : this.o.derived.ctx.compactIri(x.value, false);
    if (f.mixed) return x.value;
    switch (f.scalar) {
      case 'Long': return longOut(x.value);
      case 'Float': return Number(x.value);
      case 'Boolean': return x.value === 'true' || x.value === '1';
      case 'JSON': return JSON.parse(x.value);
      default: return x.value;
    }
  }
}
