/**
 * Whether every node a triple pattern can bind has a literal value of a property, in one view
 * (compile.ts): then a property only RETURN reads, with at most one literal per node and no other
 * kind of object (profile.ts), is a required triple pattern rather than a left join — Cypher's null
 * for a missing property can never occur — which is the SPARQL form's own shape. Exact, not an
 * estimate: one scan of each predicate involved, cached per view (a snapshot never changes; a
 * policy view scans only what it shows). Predicates with more facts than a bound are not scanned
 * (the read stays a left join).
 */
import type { Op } from '../algebra/algebra.js';
import type { DbView } from '../../index/view.js';
import { namedNode, type Term } from '../../rdf/terms.js';

/** Facts scanned per predicate at most; larger ones are not proven (the left join stays). */
const MAX_FACTS = 2_000_000;

const subjectSets = new WeakMap<object, Map<string, Promise<Set<number> | undefined>>>();
const verdicts = new WeakMap<object, Map<string, Promise<boolean>>>();

/** Subject ids of `iri`'s literal facts (default graph); undefined when the predicate is too large. */
function literalSubjects(view: DbView, iri: string, signal?: AbortSignal): Promise<Set<number> | undefined> {
  let m = subjectSets.get(view);
  if (!m) subjectSets.set(view, m = new Map());
  let p = m.get(iri);
  if (!p) {
    p = (async () => {
      const dict = view.dict;
      const pid = await dict.lookup(namedNode(iri));
      const out = new Set<number>();
      if (pid === undefined) return out;
      let n = 0;
      for await (const b of view.scan({ g: 0, p: pid }, signal ? { signal } : undefined)) {
        if ((n += b.n) > MAX_FACTS) return undefined;
        for (let k = 0; k < b.n; k++) if (dict.kind(b.o[k]!) === 2) out.add(b.s[k]!);
      }
      return out;
    })();
    m.set(iri, p);
    p.catch(() => m!.delete(iri));
  }
  return p;
}

/** The required triple patterns of a translated MATCH (its BGP under joins, filters and binds), by the node variables they bind. */
export function binders(op: Op, out = new Map<string, Binder[]>()): Map<string, Binder[]> {
  const add = (v: string, b: Binder) => { const xs = out.get(v); if (xs) xs.push(b); else out.set(v, [b]); };
  switch (op.type) {
    case 'bgp':
      for (const tp of op.patterns) {
        if (tp.p.termType !== 'NamedNode') continue;
        if (tp.s.termType === 'Variable') add(tp.s.value, { p: tp.p.value, at: 's', ...(tp.o.termType !== 'Variable' ? { other: tp.o } : {}) });
        if (tp.o.termType === 'Variable') add(tp.o.value, { p: tp.p.value, at: 'o', ...(tp.s.termType !== 'Variable' ? { other: tp.s } : {}) });
      }
      break;
    case 'join': for (const i of op.inputs) binders(i, out); break;
    case 'filter': case 'extend': binders(op.input, out); break;
    default: break;
  }
  return out;
}

/** One required triple pattern that binds a node: its predicate, the node's position, and the other end when constant. */
export interface Binder { p: string; at: 's' | 'o'; other?: Term }

/** Whether every node `b` binds in the view has a literal value of `prop`. */
export function covers(view: DbView, b: Binder, prop: string, signal?: AbortSignal): Promise<boolean> {
  let m = verdicts.get(view);
  if (!m) verdicts.set(view, m = new Map());
  const key = JSON.stringify([b.p, b.at, b.other ? b.other.termType + ':' + b.other.value : null, prop]);
  let v = m.get(key);
  if (!v) {
    v = (async () => {
      const have = await literalSubjects(view, prop, signal);
      if (!have) return false;
      const dict = view.dict;
      const pid = await dict.lookup(namedNode(b.p));
      if (pid === undefined) return true;
      let oid: number | undefined;
      if (b.other) {
        oid = await dict.lookup(b.other);
        if (oid === undefined) return true;
      }
      const pattern = b.other === undefined ? { g: 0, p: pid } : b.at === 's' ? { g: 0, p: pid, o: oid! } : { g: 0, p: pid, s: oid! };
      let n = 0;
      for await (const x of view.scan(pattern, signal ? { signal } : undefined)) {
        if ((n += x.n) > MAX_FACTS) return false;
        const ends = b.at === 's' ? x.s : x.o;
        for (let k = 0; k < x.n; k++) if (!have.has(ends[k]!)) return false;
      }
      return true;
    })();
    m.set(key, v);
    v.catch(() => m!.delete(key));
  }
  return v;
}
