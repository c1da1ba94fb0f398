/**
 * Graph crawl rendering (jsonld-query.md §3.1–3.3): after the query has produced its solutions,
 * each crawl root becomes a JSON-LD node read from the dataset's default graph(s) through the
 * (policy-wrapped) view — selected properties, nested sub-selections, `depth` auto-expansion,
 * reverse properties, cycle cut-off, value order and container rules.
 */
import type { DbView } from '../../index/view.js';
import { TimeSlice } from '../../util/next-turn.js';
import { abortError, SLICE_MS } from '../exec/runtime.js';
import { compareForOrder } from '../../rdf/compare.js';
import type { Term } from '../../rdf/terms.js';
import { rdf } from '../../rdf/vocab.js';
import type { CrawlSpec, PropSelection } from './crawl-spec.js';
import type { Formatter } from './format.js';

export interface CrawlOptions {
  view: DbView;
  /** Graph ids whose facts nodes show (the query's default graph). */
  graphs: readonly number[];
  fmt: Formatter;
  /** `depth`: levels of references auto-expanded below the root with the parent's selection. */
  depth: number;
  /** Every crawl property rendered as an array. */
  normalizeArrays: boolean;
  /** Spend fuel for facts read (throws when the budget is exhausted). */
  charge(n: number): void;
  signal?: AbortSignal;
}

interface Fact { p: number; o: number; m: number }

/** Renders crawl nodes for one response; facts read are cached per subject. */
export class Crawler {
  private readonly out = new Map<number, Fact[]>();
  private readonly incoming = new Map<string, number[]>();
  /** rdf:type's id, looked up on the first root (null until then). */
  private typeId: number | undefined | null = null;
  /** Rendering many nodes is long work too: it gives the event loop a turn like the executor does. */
  private readonly slice = new TimeSlice(SLICE_MS);

  constructor(private readonly o: CrawlOptions) {}

  /** The JSON of one crawl root: a node for an IRI or blank node, the value itself for a literal. */
  async root(t: Term | undefined, spec: CrawlSpec): Promise<unknown> {
    if (t === undefined) return null;
    if (t.termType === 'Literal') return this.o.fmt.nodeValue(t);
    if (this.typeId === null) this.typeId = await this.o.view.dict.lookup({ termType: 'NamedNode', value: rdf.type });
    const id = await this.o.view.dict.lookup(t);
    return this.node(t, id, spec, this.o.depth, [], true);
  }

  private async node(t: Term, id: number | undefined, spec: CrawlSpec, depth: number, path: number[], isRoot: boolean): Promise<Record<string, unknown>> {
    const { fmt } = this.o;
    const node: Record<string, unknown> = {};
    if (!isRoot || spec.all || spec.id) node['@id'] = fmt.id(t);
    if (id === undefined) return node;
    const facts = await this.factsOf(id);
    const here = [...path, id];
    const entries: [string, unknown][] = [];
    const byPred = new Map<number, Fact[]>();
    for (const f of facts) {
      let list = byPred.get(f.p);
      if (!list) byPred.set(f.p, list = []);
      list.push(f);
    }
    const selected = new Map<number, PropSelection | undefined>();
    if (spec.all) for (const p of byPred.keys()) selected.set(p, undefined);
    for (const sel of spec.props) {
      if (sel.reverse) continue;
      const pid = await this.o.view.dict.lookup({ termType: 'NamedNode', value: sel.iri });
      if (pid !== undefined && byPred.has(pid)) selected.set(pid, sel);
    }
    let types: string[] | undefined;
    for (const [pid, sel] of selected) {
      const list = byPred.get(pid)!;
      if (pid === this.typeId) {
        types = this.ordered(list).map((f) => fmt.vocab(this.term(f.o).value));
        continue;
      }
      const key = fmt.vocab(this.term(pid).value);
      const values: unknown[] = [];
      for (const f of this.ordered(list)) values.push(await this.value(f.o, sel, spec, depth, here));
      entries.push([key, this.shape(key, values, list.some((f) => f.m >= 0))]);
    }
    for (const sel of spec.props) {
      if (!sel.reverse) continue;
      const subjects = await this.subjectsOf(sel.iri, id);
      if (subjects.length === 0) continue;
      const values: unknown[] = [];
      for (const s of subjects) values.push(await this.value(s, sel, spec, depth, here));
      entries.push([sel.key!, this.shape(sel.key!, values, false)]);
    }
    if (types) node['@type'] = types.length === 1 && !this.o.normalizeArrays ? types[0] : types;
    entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    for (const [k, v] of entries) node[k] = v;
    return node;
  }

  /** One property value: a literal, a reference, or an expanded node. */
  private async value(o: number, sel: PropSelection | undefined, parent: CrawlSpec, depth: number, path: number[]): Promise<unknown> {
    const t = this.term(o);
    const { fmt } = this.o;
    if (t.termType === 'Literal') return sel?.sub ? fmt.valueObject(t) : fmt.nodeValue(t);
    if (path.includes(o)) return { '@id': fmt.id(t) };
    if (sel?.sub) return this.node(t, o, sel.sub, Math.max(0, depth - 1), path, false);
    if (depth > 0) return this.node(t, o, parent, depth - 1, path, false);
    return { '@id': fmt.id(t) };
  }

  /** A scalar for one value, else an array; `@set`/`@list` terms and normalizeArrays always arrays. */
  private shape(key: string, values: unknown[], isList: boolean): unknown {
    if (values.length !== 1 || this.o.normalizeArrays || isList) return values;
    const container = this.o.fmt.ctx.termDefinition(key)?.container ?? [];
    return container.includes('@set') || container.includes('@list') ? values : values[0];
  }

  /** Values in ascending value order; list members in list order. */
  private ordered(list: Fact[]): Fact[] {
    return [...list].sort((a, b) => {
      if (a.m >= 0 || b.m >= 0) return a.m >= 0 && b.m >= 0 ? a.m - b.m : a.m >= 0 ? -1 : 1;
      return compareForOrder(this.term(a.o), this.term(b.o));
    });
  }

  private term(id: number): Term { return this.o.view.dict.term(id); }

  private async factsOf(s: number): Promise<Fact[]> {
    let facts = this.out.get(s);
    if (facts) return facts;
    if (this.slice.due()) {
      await this.slice.pause();
      if (this.o.signal?.aborted) throw abortError(this.o.signal);
    }
    facts = [];
    const seen = new Set<string>();
    for (const g of this.o.graphs) {
      for await (const b of this.o.view.scan({ g, s }, this.o.signal ? { signal: this.o.signal } : {})) {
        this.o.charge(b.n);
        for (let i = 0; i < b.n; i++) {
          const f = { p: b.p[i]!, o: b.o[i]!, m: b.m[i]! };
          if (this.o.graphs.length > 1) {
            const k = `${f.p} ${f.o} ${f.m}`;
            if (seen.has(k)) continue;
            seen.add(k);
          }
          facts.push(f);
        }
      }
    }
    this.out.set(s, facts);
    return facts;
  }

  /** Subjects with `<s> <p> <o>` for a reverse property, in ascending order. */
  private async subjectsOf(p: string, o: number): Promise<number[]> {
    const pid = await this.o.view.dict.lookup({ termType: 'NamedNode', value: p });
    if (pid === undefined) return [];
    const key = `${pid} ${o}`;
    let subjects = this.incoming.get(key);
    if (subjects) return subjects;
    const set = new Set<number>();
    for (const g of this.o.graphs) {
      for await (const b of this.o.view.scan({ g, p: pid, o }, this.o.signal ? { signal: this.o.signal } : {})) {
        this.o.charge(b.n);
        for (let i = 0; i < b.n; i++) set.add(b.s[i]!);
      }
    }
    subjects = [...set].sort((a, b) => compareForOrder(this.term(a), this.term(b)));
    this.incoming.set(key, subjects);
    return subjects;
  }
}
