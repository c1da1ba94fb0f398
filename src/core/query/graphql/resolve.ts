/**
 * The resolvers of one GraphQL request over one snapshot view (graphql.md §9, §11). Root list and
 * count fields run one JSON-LD query each (built and compiled by the JSON-LD query compiler once
 * per schema, field and arguments — plan.ts — and executed by the shared engine). Nested fields are read the way the JSON-LD
 * graph crawl renders nodes: each object's facts are read once (one index scan per subject,
 * synchronously when the index pages are at hand) and every selected field of that object is cut
 * from them, so a list of n objects costs n subject reads whatever the selection — the same work
 * as the equivalent JSON-LD crawl, and no promise per field when the data is at hand.
 */
import type { DbView } from '../../index/view.js';
import { compareForOrder } from '../../rdf/compare.js';
import { blankNode, namedNode, termKey, type Term } from '../../rdf/terms.js';
import { rdf } from '../../rdf/vocab.js';
import type { Op } from '../algebra/algebra.js';
import { executeQuery } from '../engine.js';
import { abortError } from '../exec/runtime.js';
import { timeoutError } from '../../errors.js';
import { collect, type Binding } from '../results/types.js';
import { nonNegative, rootOrder, WhereBuilder } from './filters.js';
import type { FieldModel } from './model.js';
import { compileRootQuery, type Plan } from './plan.js';
import { longOut } from './scalars.js';
import type { DerivedSchema, PublishedType, Resolvers } from './schema.js';

/** A node as graphql-js passes it between resolvers; `sid` is its dictionary id once looked up (-1: none). */
export interface Node { term: Term; sid?: number }

/** One subject's facts in the default graph: value ids per predicate id, in index order. */
type Facts = Map<number, number[]>;

/** Root query objects and their plans per derived schema (its context is fixed), by field and arguments; bounded. */
const plans = new WeakMap<DerivedSchema, Map<string, { body: Record<string, unknown>; plan: Plan }>>();
const PLANS_PER_SCHEMA = 256;

/** Property ids per dictionary and field model. */
const propertyIds = new WeakMap<object, WeakMap<FieldModel, number>>();

export interface ResolveOptions { view: DbView; derived: DerivedSchema; contextJson: unknown; signal?: AbortSignal; deadline?: number }

/** Per-request resolvers; `queries` records the JSON-LD query each root field ran (for explain). */
export class RequestResolvers implements Resolvers {
  readonly queries = new Map<string, unknown>();
  /** Mutation root results by response key (§12), set before execution. */
  mutationResults = new Map<string, { id: string; iri: string } | null>();
  /** Facts read so far, by subject id (a node reached twice is read once). */
  private readonly facts = new Map<number, Facts | Promise<Facts>>();
  /** Subjects pointing at an object through a property (reverse fields), by "p o". */
  private readonly incoming = new Map<string, number[] | Promise<number[]>>();
  /** rdf:type's id (null: not looked up yet; the dictionary may need to load a page for it). */
  private typeId: number | undefined | null = null;

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
    return { term: r.iri.startsWith('_:') ? blankNode(r.iri.slice(2)) : namedNode(r.iri), deleted: r.id } satisfies Node & { deleted: string };
  }

  id(src: unknown): string {
    const t = (src as Node).term;
    return t.termType === 'BlankNode' ? `_:${t.value}` : this.o.derived.ctx.compactIri(t.value, false);
  }

  /**
   * Run a root field's JSON-LD query on the snapshot; the rows of its projected variables. The
   * query object and its plan are kept per (schema, field kind, type, arguments): a repeated
   * request neither rebuilds nor recompiles them. `path` records the object for explain.
   */
  private async run(key: string, path: string, build: () => Record<string, unknown>): Promise<{ rows: Binding[]; vars: string[] }> {
    let cache = plans.get(this.o.derived);
    if (!cache) plans.set(this.o.derived, cache = new Map());
    let hit = cache.get(key);
    if (!hit) {
      const body = build();
      hit = { body, plan: compileRootQuery(this.o.contextJson, body) };
      if (cache.size >= PLANS_PER_SCHEMA) cache.delete(cache.keys().next().value!);
      cache.set(key, hit);
    }
    this.queries.set(path, hit.body);
    return { rows: await this.exec(hit.plan.op, hit.plan.projected), vars: hit.plan.projected };
  }

  private async exec(op: Op, variables: string[]): Promise<Binding[]> {
    const r = await executeQuery({ form: 'select', op, variables }, {
      view: this.o.view, defaultGraphs: [0], namedGraphs: [],
      ...(this.o.signal ? { signal: this.o.signal } : {}), ...(this.o.deadline ? { deadline: this.o.deadline } : {}),
    });
    if (r.type !== 'bindings') throw new Error('select did not produce bindings');
    return collect(r.rows);
  }

  /**
   * A singular root field (§9): the node when it is an instance of the type. Evaluated on the
   * subject's facts (read once, and reused by its fields); explain shows the equivalent query.
   */
  single(t: PublishedType, args: Record<string, unknown>, path: string): unknown {
    const term = this.term(String(args.id));
    // A blank node label is not a query constant: explain shows the lookup for IRIs only.
    if (term.termType === 'NamedNode') {
      const wb = new WhereBuilder(t, this.o.derived.ctx, (id) => this.expandId(id));
      this.queries.set(path, { selectDistinct: ['?s'], where: [wb.typePattern()], values: ['?s', [{ '@id': term.value }]] });
    }
    const node: Node = { term };
    if (this.typeId === null) {
      const type = this.o.view.dict.idOfKeySoon(rdf.type);
      if (type instanceof Promise) return type.then((id) => { this.typeId = id; return this.single(t, args, path); });
      this.typeId = type;
    }
    const cls = this.o.view.dict.idOfKeySoon(t.cls);
    const s = this.idOf(node);
    if (cls instanceof Promise || s instanceof Promise) return Promise.all([cls, s]).then(([c, sid]) => this.singleOf(node, c, sid));
    return this.singleOf(node, cls, s);
  }

  private singleOf(node: Node, cls: number | undefined, s: number | undefined): unknown {
    if (s === undefined || cls === undefined || this.typeId === undefined || this.typeId === null) return null;
    const type = this.typeId;
    const typed = (f: Facts) => (f.get(type)?.includes(cls) ? node : null);
    const facts = this.factsOf(s);
    return facts instanceof Promise ? facts.then(typed) : typed(facts);
  }

  async list(t: PublishedType, args: Record<string, unknown>, path: string): Promise<unknown> {
    const { rows } = await this.run('list\u0000' + t.name + '\u0000' + JSON.stringify(args), path, () => {
      const limit = nonNegative('limit', args.limit), offset = nonNegative('offset', args.offset);
      const wb = new WhereBuilder(t, this.o.derived.ctx, (id) => this.expandId(id));
      const order = rootOrder(t, this.o.derived.ctx, args.orderBy as { field: string; direction: string }[] | undefined);
      const body: Record<string, unknown> = {
        selectDistinct: ['?s'], where: [wb.typePattern(), ...wb.clauses(args.where as Record<string, unknown> | undefined), ...order.patterns],
        orderBy: order.keys,
      };
      if (limit !== undefined) body.limit = limit;
      if (offset !== undefined) body.offset = offset;
      return body;
    });
    return rows.map((r): Node => ({ term: r.s! }));
  }

  async count(t: PublishedType, args: Record<string, unknown>, path: string): Promise<unknown> {
    const { rows, vars } = await this.run('count\u0000' + t.name + '\u0000' + JSON.stringify(args), path, () => {
      const wb = new WhereBuilder(t, this.o.derived.ctx, (id) => this.expandId(id));
      return { select: ['(count-distinct ?s)'], where: [wb.typePattern(), ...wb.clauses(args.where as Record<string, unknown> | undefined)] };
    });
    const n = rows[0]?.[vars[0]!];
    return n ? longOut(n.value) : 0;
  }

  /** A nested field's values (§9 defaults: value order, `orderBy`, `lang`, `limit`); a promise only when facts must be fetched. */
  field(src: unknown, _t: PublishedType, f: FieldModel, args: Record<string, unknown>): unknown {
    const limit = nonNegative('limit', args.limit);
    const s = this.idOf(src as Node);
    const p = this.propertyId(f);
    if (s instanceof Promise || p instanceof Promise) return Promise.all([s, p]).then(([sid, pid]) => this.fieldOf(sid, pid, f, args, limit));
    return this.fieldOf(s, p, f, args, limit);
  }

  private fieldOf(s: number | undefined, p: number | undefined, f: FieldModel, args: Record<string, unknown>, limit: number | undefined): unknown {
    if (s === undefined || p === undefined) return [];
    if (f.reverse) {
      const subjects = this.subjectsOf(p, s);
      return subjects instanceof Promise ? subjects.then((ids) => this.values(f, ids, args, limit)) : this.values(f, subjects, args, limit);
    }
    const facts = this.factsOf(s);
    return facts instanceof Promise ? facts.then((x) => this.values(f, x.get(p) ?? [], args, limit)) : this.values(f, facts.get(p) ?? [], args, limit);
  }

  /** The dictionary id of a field's property (ids never change once assigned, so found ones are kept); a promise when a page must load. */
  private propertyId(f: FieldModel): number | undefined | Promise<number | undefined> {
    let m = propertyIds.get(this.o.view.dict);
    if (!m) propertyIds.set(this.o.view.dict, m = new WeakMap());
    const hit = m.get(f);
    if (hit !== undefined) return hit;
    const keep = (id: number | undefined) => { if (id !== undefined) m.set(f, id); return id; };
    const id = this.o.view.dict.idOfKeySoon(f.property);
    return id instanceof Promise ? id.then(keep) : keep(id);
  }

  /** A node's dictionary id, kept on the node; a promise when a page must load. */
  private idOf(n: Node): number | undefined | Promise<number | undefined> {
    if (n.sid === undefined) {
      const id = this.o.view.dict.idOfKeySoon(termKey(n.term));
      if (id instanceof Promise) return id.then((x) => { n.sid = x ?? -1; return x; });
      n.sid = id ?? -1;
    }
    return n.sid < 0 ? undefined : n.sid;
  }

  /** The facts of subject `s` in the default graph, read once per request. */
  private factsOf(s: number): Facts | Promise<Facts> {
    const hit = this.facts.get(s);
    if (hit) return hit;
    this.check();
    const b = this.o.view.scanSync?.({ g: 0, s });
    if (b) {
      const facts: Facts = new Map();
      for (let i = 0; i < b.n; i++) push(facts, b.p[i]!, b.o[i]!);
      this.facts.set(s, facts);
      return facts;
    }
    // Kept while pending too, so sibling fields of one object share the read.
    const pending = (async () => {
      const facts: Facts = new Map();
      for await (const b of this.o.view.scan({ g: 0, s }, this.o.signal ? { signal: this.o.signal } : {})) {
        for (let i = 0; i < b.n; i++) push(facts, b.p[i]!, b.o[i]!);
      }
      this.facts.set(s, facts);
      return facts;
    })();
    this.facts.set(s, pending);
    return pending;
  }

  /** Subjects with `<s> <p> <o>` in the default graph (a reverse field), read once per request. */
  private subjectsOf(p: number, o: number): number[] | Promise<number[]> {
    const key = `${p} ${o}`;
    const hit = this.incoming.get(key);
    if (hit) return hit;
    this.check();
    const b = this.o.view.scanSync?.({ g: 0, p, o });
    if (b) {
      const ids = Array.from(b.s.subarray(0, b.n));
      this.incoming.set(key, ids);
      return ids;
    }
    const pending = (async () => {
      const ids: number[] = [];
      for await (const b of this.o.view.scan({ g: 0, p, o }, this.o.signal ? { signal: this.o.signal } : {})) {
        for (let i = 0; i < b.n; i++) ids.push(b.s[i]!);
      }
      this.incoming.set(key, ids);
      return ids;
    })();
    this.incoming.set(key, pending);
    return pending;
  }

  /** The request's deadline and abort signal, checked before each read. */
  private check(): void {
    if (this.o.signal?.aborted) throw abortError(this.o.signal);
    if (this.o.deadline !== undefined && Date.now() > this.o.deadline) throw timeoutError('query timeout exceeded');
  }

  /** One field's output values from its value ids: ordered (ASC by default), language-preferred, limited. */
  private values(f: FieldModel, ids: readonly number[], args: Record<string, unknown>, limit: number | undefined): unknown[] {
    if (ids.length === 0) return [];
    const dict = this.o.view.dict;
    const order = f.kind === 'ref' ? (args.orderBy as { direction: string }[] | undefined)?.[0]?.direction : args.orderBy as string | undefined;
    let terms: { id: number; term: Term }[] = ids.map((id) => ({ id, term: dict.term(id) }));
    if (terms.length > 1) {
      terms.sort((a, b) => compareForOrder(a.term, b.term));
      if (order === 'DESC') terms.reverse();
    }
    const ranges = typeof args.lang === 'string' ? args.lang.split(',').map((x) => x.trim().toLowerCase()).filter((x) => x) : ['*'];
    if (f.lang && !ranges.includes('*')) {
      const all = terms;
      terms = [];
      for (const r of ranges) {
        terms = all.filter(({ term: x }) => x.termType === 'Literal' && x.language !== '' && (x.language === r || x.language.startsWith(r + '-')));
        if (terms.length) break;
      }
    }
    if (limit !== undefined) terms = terms.slice(0, limit);
    return terms.map((x) => (f.kind === 'ref' ? ({ term: x.term, sid: x.id } satisfies Node) : this.output(f, x.term)));
  }

  /** A value as JSON per its GraphQL type (§11). */
  private output(f: FieldModel, x: Term): unknown {
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

function push(facts: Facts, p: number, o: number): void {
  const l = facts.get(p);
  if (l) l.push(o); else facts.set(p, [o]);
}
