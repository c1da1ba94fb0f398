/**
 * The decision for one flake (policy.md §4), over integer ids. A decision depends only on the
 * flake's subject and predicate (plus the object, for schema `rdf:type` flakes): targets match on
 * subject, property and the subject's classes, and `f:query` binds `?$this` to the subject. So
 * decisions are cached per predicate (when no candidate depends on the subject) or per
 * (predicate, subject), and a scan pays a map lookup per fact once warm. When every candidate of a
 * predicate is static (`f:allow`) and none targets classes, the decision depends only on which
 * `f:onSubject` lists hold the subject: it is worked out once for the listed subjects and once for
 * every other subject (a subject table), so no per-subject cache grows.
 */
import type { DbView, ScanPattern } from '../index/view.js';
import type { Op } from '../query/algebra/algebra.js';
import { namedNode, type Term } from '../rdf/terms.js';
import { rdf } from '../rdf/vocab.js';
import { compileCondition, conditionHolds } from './condition.js';
import type { PolicySet } from './load.js';
import { hasTargets, rdfs, SCHEMA_CLASSES, SCHEMA_PREDICATES, type Action, type Policy } from './model.js';

/**
 * How the evaluator names terms. Reads use the snapshot's dictionary (an IRI it never saw matches
 * nothing); write checks add ids for terms the transaction introduces.
 */
export interface IdSpace {
  /** Id of a term key, or undefined when the space has none. */
  id(key: string): number | undefined;
  /** The term of an id. */
  term(id: number): Term;
}

/** Per-policy tracking: `f:query` runs and static decisions computed (cache misses). */
export interface PolicyTally { executed: number; allowed: number }

interface Compiled {
  policy: Policy;
  props: Set<number> | null;
  classes: Set<number> | null;
  subjects: Set<number> | null;
  targeted: boolean;
  /** true/false static; undefined = run `cond`. */
  allow: boolean | undefined;
  cond: Op | null;
  /** Condition results by subject id. */
  results: Map<number, boolean>;
  tally: PolicyTally;
}

interface Plan {
  /** Every flake of this predicate is a schema flake (always visible). */
  schema: boolean;
  candidates: Compiled[];
  /** 1 allow / 0 deny for every subject; -1 when the decision depends on the subject. */
  fixed: number;
  /** Decisions by subject membership alone, when every candidate is static and none targets classes. */
  table: SubjectTable | null;
  needsClasses: boolean;
  bySubject: Map<number, number>;
}

/**
 * Static decisions of one candidate list: `other` for every subject but the listed ones whose
 * decision is the opposite. Those are a bitmap over subject ids (a scan looks one up per fact), plus
 * a set for the negative ids a write gives terms the dictionary does not hold yet.
 */
export class SubjectTable {
  constructor(readonly other: number, private readonly flip: Uint8Array, private readonly flipNew: ReadonlySet<number>) {}

  /** True when every subject gets `other`. */
  isEmpty(): boolean { return this.flip.length === 0 && this.flipNew.size === 0; }

  /** 1 allow / 0 deny for a subject id. */
  decide(s: number): number {
    if (s >= 0) {
      const i = s >> 3;
      return i < this.flip.length && ((this.flip[i]! >> (s & 7)) & 1) === 1 ? 1 - this.other : this.other;
    }
    return this.flipNew.has(s) ? 1 - this.other : this.other;
  }
}

/**
 * Entries (per-subject decisions and class sets) an evaluator caches before it starts over: a
 * shared evaluator lives as long as its snapshot, and class-targeted decisions are per subject.
 */
const CACHE_ENTRIES = 1 << 20;

const UNKNOWN = -1;

export class PolicyEvaluator {
  private readonly compiled: Compiled[] = [];
  private readonly plans = new Map<number, Plan>();
  /** Subject tables by candidate list (policy indexes): predicates no policy targets share one. */
  private readonly tables = new Map<string, SubjectTable>();
  private cacheEntries = 0;
  private readonly classCache = new Map<number, Set<number>>();
  private readonly schemaPreds = new Set<number>();
  private readonly schemaClasses = new Set<number>();
  private readonly typeId: number | undefined;
  private readonly bindings = new Map<string, Term>();
  private readonly denyAll: boolean;
  private readonly defaultAllow: boolean;
  /** Policy a pending decision still needs a condition result from. */
  private missing: Compiled | null = null;

  private constructor(
    readonly set: PolicySet,
    readonly action: Action,
    /** Unrestricted snapshot: `f:query` conditions and class membership are evaluated here. */
    private readonly snapshot: DbView,
    private readonly ids: IdSpace,
  ) {
    this.denyAll = set.kind === 'denyAll';
    this.defaultAllow = set.defaultAllow;
    this.typeId = ids.id(rdf.type);
    for (const p of SCHEMA_PREDICATES) { const id = ids.id(p); if (id !== undefined) this.schemaPreds.add(id); }
    for (const c of SCHEMA_CLASSES) { const id = ids.id(c); if (id !== undefined) this.schemaClasses.add(id); }
    for (const [k, v] of set.values) this.bindings.set(k, namedNode(v));
    this.bindings.set('$identity', namedNode(set.identity));
  }

  /** An evaluator for one action, with target closures (sub-properties, sub-classes) resolved. */
  static async create(set: PolicySet, action: Action, snapshot: DbView, ids: IdSpace): Promise<PolicyEvaluator> {
    const ev = new PolicyEvaluator(set, action, snapshot, ids);
    await ev.compile();
    return ev;
  }

  private async compile(): Promise<void> {
    const subProp = this.ids.id(rdfs.subPropertyOf);
    const subClass = this.ids.id(rdfs.subClassOf);
    for (const policy of this.set.policies) {
      if (!policy.actions.has(this.action)) continue;
      const resolve = (iris: string[]) => iris.map((i) => this.ids.id(i)).filter((x): x is number => x !== undefined);
      const c: Compiled = {
        policy,
        props: policy.onProperty.length ? await this.closure(resolve(policy.onProperty), subProp) : null,
        classes: policy.onClass.length ? await this.closure(resolve(policy.onClass), subClass) : null,
        subjects: policy.onSubject.length ? new Set(resolve(policy.onSubject)) : null,
        targeted: hasTargets(policy),
        allow: policy.allow,
        cond: null,
        results: new Map(),
        tally: { executed: 0, allowed: 0 },
      };
      if (c.allow === undefined) {
        c.cond = policy.query !== undefined ? compileCondition(policy.query) : null;
        // Neither f:allow nor a usable f:query: the policy denies (rule 1).
        if (!c.cond) c.allow = false;
      }
      this.compiled.push(c);
    }
  }

  /** Targets plus everything below them via `rel` (rdfs:subPropertyOf* / rdfs:subClassOf*), in the snapshot. */
  private async closure(roots: number[], rel: number | undefined): Promise<Set<number>> {
    const out = new Set(roots);
    if (rel === undefined) return out;
    // Ids below zero are terms the snapshot never saw: nothing can be below them.
    const queue = roots.filter((r) => r >= 0);
    while (queue.length) {
      const o = queue.pop()!;
      for await (const b of this.snapshot.scan({ p: rel, o })) {
        for (let i = 0; i < b.n; i++) {
          const s = b.s[i]!;
          if (!out.has(s)) { out.add(s); queue.push(s); }
        }
      }
    }
    return out;
  }

  /** Per-policy tallies, by policy `@id`. */
  tallies(): Record<string, PolicyTally> {
    const out: Record<string, PolicyTally> = {};
    for (const c of this.compiled) out[c.policy.id] = { ...c.tally };
    return out;
  }

  private plan(p: number): Plan {
    // Scans mostly yield runs of one predicate: remember the last plan.
    if (p === this.lastP) return this.lastPlan!;
    let plan = this.plans.get(p);
    if (!plan) {
      plan = this.makePlan(this.compiled.filter((c) => !c.props || c.props.has(p)), this.schemaPreds.has(p));
      this.plans.set(p, plan);
    }
    this.lastP = p;
    this.lastPlan = plan;
    return plan;
  }

  private lastP = -1;
  private lastPlan: Plan | null = null;

  private makePlan(candidates: Compiled[], schema: boolean): Plan {
    const subjectDependent = candidates.some((c) => c.subjects || c.classes || c.allow === undefined);
    const plan: Plan = { schema, candidates, fixed: UNKNOWN, table: null, needsClasses: candidates.some((c) => c.classes !== null), bySubject: new Map() };
    if (!subjectDependent) plan.fixed = this.rules(candidates, -1);
    else if (candidates.every((c) => c.allow !== undefined && !c.classes)) plan.table = this.subjectTable(candidates);
    return plan;
  }

  /**
   * The plan every non-schema predicate has when no policy targets properties (then they all have
   * the same candidates); null when some policy does. Undefined until first asked.
   */
  private uniformPlan: Plan | null | undefined;

  private uniform(): Plan | null {
    if (this.uniformPlan === undefined) this.uniformPlan = this.compiled.some((c) => c.props) ? null : this.makePlan(this.compiled, false);
    return this.uniformPlan;
  }

  /** §4 over static, class-free candidates: one decision per listed subject, one for all others. */
  private subjectTable(candidates: Compiled[]): SubjectTable {
    const key = candidates.map((c) => this.compiled.indexOf(c)).join(',');
    let table = this.tables.get(key);
    if (table) return table;
    const other = this.rules(candidates.filter((c) => !c.subjects), -1);
    // Static rules decide 1 or 0: a listed subject either keeps `other` or flips it.
    const flipped: number[] = [];
    const seen = new Set<number>();
    for (const c of candidates) {
      if (!c.subjects) continue;
      for (const s of c.subjects) {
        if (seen.has(s)) continue;
        seen.add(s);
        if (this.rules(candidates.filter((x) => !x.subjects || x.subjects.has(s)), s) !== other) flipped.push(s);
      }
    }
    let max = -1;
    for (const s of flipped) if (s > max) max = s;
    const bits = new Uint8Array(max >= 0 ? (max >> 3) + 1 : 0);
    const flipNew = new Set<number>();
    for (const s of flipped) {
      if (s >= 0) bits[s >> 3]! |= 1 << (s & 7);
      else flipNew.add(s);
    }
    table = new SubjectTable(other, bits, flipNew);
    this.tables.set(key, table);
    return table;
  }

  /** True when no decision needs an `f:query` run: such an evaluator can serve every request on its snapshot. */
  get isStatic(): boolean {
    return this.compiled.every((c) => c.allow !== undefined);
  }

  /** Count a cached per-subject entry; past the budget every per-subject cache starts over. */
  private noteCached(): void {
    if (++this.cacheEntries <= CACHE_ENTRIES) return;
    this.cacheEntries = 0;
    this.classCache.clear();
    for (const plan of this.plans.values()) plan.bySubject.clear();
  }

  /** Is a schema flake (always visible, rule 2)? */
  private isSchema(p: number, o: number): boolean {
    return this.schemaPreds.has(p) || (p === this.typeId && this.schemaClasses.has(o));
  }

  /**
   * What every fact a scan of `pattern` yields is decided by, when that can be known up front:
   * 1 or 0 (the same for all of them), a subject table (look the fact's subject up), or null
   * (ask `decideSync` per fact). Same decisions as `decideSync`, fewer steps per fact.
   */
  scanDecision(pattern: ScanPattern): number | SubjectTable | null {
    if (this.denyAll) return 0;
    const p = pattern.p;
    if (p === undefined) {
      // Any predicate: when no policy targets properties, a fact is visible if it is schema or if
      // the shared plan allows its subject; a scan the plan allows whole needs no check per fact.
      const u = this.uniform();
      if (u === null) return null;
      if (u.fixed === 1) return 1;
      if (u.table !== null && (u.table.other === 1 && u.table.isEmpty() || (pattern.s !== undefined && u.table.decide(pattern.s) === 1))) return 1;
      return null;
    }
    const plan = this.plan(p);
    if (plan.schema) return 1;
    if (p === this.typeId) {
      // rdf:type flakes of schema classes are schema flakes: the object decides first.
      if (pattern.o === undefined) return null;
      if (this.schemaClasses.has(pattern.o)) return 1;
    }
    if (plan.fixed !== UNKNOWN) return plan.fixed;
    const table = plan.table;
    if (table === null) return null;
    return pattern.s === undefined ? table : table.decide(pattern.s);
  }

  /**
   * 1 allow, 0 deny, or -1 when a class lookup or an `f:query` result is still needed (then call
   * `decide`). Cheap enough for every fact of a scan.
   */
  decideSync(s: number, p: number, o: number): number {
    if (this.denyAll) return 0;
    const plan = this.plan(p);
    if (plan.schema || (p === this.typeId && this.schemaClasses.has(o))) return 1;
    if (plan.fixed !== UNKNOWN) return plan.fixed;
    const table = plan.table;
    if (table !== null) return table.decide(s);
    const hit = plan.bySubject.get(s);
    if (hit !== undefined) return hit;
    let classes: Set<number> | undefined;
    if (plan.needsClasses) {
      classes = this.classCache.get(s);
      if (classes === undefined) return UNKNOWN;
    }
    const applicable: Compiled[] = [];
    for (const c of plan.candidates) {
      if (c.subjects && !c.subjects.has(s)) continue;
      if (c.classes && !intersects(c.classes, classes!)) continue;
      applicable.push(c);
    }
    const r = this.rules(applicable, s);
    if (r !== UNKNOWN) { plan.bySubject.set(s, r); this.noteCached(); }
    return r;
  }

  /** The decision for a flake, running class lookups and conditions as needed. */
  async decide(s: number, p: number, o: number): Promise<boolean> {
    for (;;) {
      const r = this.decideSync(s, p, o);
      if (r !== UNKNOWN) return r === 1;
      const plan = this.plan(p);
      if (plan.needsClasses && !this.classCache.has(s)) {
        const classes = await this.classesOf(s);
        this.noteCached();
        this.classCache.set(s, classes);
        continue;
      }
      const c = this.missing!;
      this.missing = null;
      const ok = await conditionHolds(c.cond!, this.bindingsFor(s), this.snapshot);
      c.results.set(s, ok);
      c.tally.executed++;
      if (ok) c.tally.allowed++;
    }
  }

  /** The first policy (by `@id`) that denies a flake, for write error messages; undefined when the default decided. */
  async denyingPolicy(s: number, p: number, o: number): Promise<Policy | undefined> {
    if (this.denyAll || this.isSchema(p, o)) return undefined;
    const plan = this.plan(p);
    const classes = plan.needsClasses ? (this.classCache.get(s) ?? await this.classesOf(s)) : new Set<number>();
    const applicable = plan.candidates.filter((c) => (!c.subjects || c.subjects.has(s)) && (!c.classes || intersects(c.classes, classes)));
    const allows = async (c: Compiled) => c.allow ?? (c.results.get(s) ?? await conditionHolds(c.cond!, this.bindingsFor(s), this.snapshot));
    const required = applicable.filter((c) => c.policy.required);
    const pool = required.length ? required
      : applicable.some((c) => c.allow === false) ? applicable.filter((c) => c.allow === false)
        : applicable.some((c) => c.targeted) ? applicable.filter((c) => c.targeted) : applicable;
    let first: Policy | undefined;
    for (const c of pool) {
      if (await allows(c)) continue;
      first ??= c.policy;
      if (c.policy.exMessage !== undefined) return c.policy;
    }
    return first;
  }

  private bindingsFor(s: number): Map<string, Term> {
    const b = new Map(this.bindings);
    b.set('$this', this.ids.term(s));
    return b;
  }

  private async classesOf(s: number): Promise<Set<number>> {
    const out = new Set<number>();
    // Ids the snapshot never saw (a subject new in this transaction) have no classes yet.
    if (this.typeId === undefined || s < 0) return out;
    for await (const b of this.snapshot.scan({ s, p: this.typeId })) for (let i = 0; i < b.n; i++) out.add(b.o[i]!);
    return out;
  }

  /** §4 rules 4–8 over the applicable policies; -1 (with `missing` set) when a condition result is needed. */
  private rules(applicable: Compiled[], s: number): number {
    if (applicable.length === 0) return this.defaultAllow ? 1 : 0;
    let required = false;
    for (const c of applicable) if (c.policy.required) { required = true; break; }
    if (required) {
      // Rule 4: every applicable required policy must allow; the others are not consulted.
      for (const c of applicable) {
        if (!c.policy.required) continue;
        const a = this.allows(c, s);
        if (a !== 1) return a;
      }
      return 1;
    }
    // Rule 6: deny overrides.
    for (const c of applicable) if (c.allow === false) return 0;
    // Rule 7: targeted policies decide when present; rule 8: else the default policies.
    let targeted = false;
    for (const c of applicable) if (c.targeted) { targeted = true; break; }
    let pending = false;
    for (const c of applicable) {
      if (c.targeted !== targeted) continue;
      const a = this.allows(c, s);
      if (a === 1) return 1;
      if (a === UNKNOWN) pending = true;
    }
    if (pending) {
      // Re-point `missing` at the first unresolved condition; the caller evaluates it and retries.
      for (const c of applicable) if (c.targeted === targeted && this.allows(c, s) === UNKNOWN) break;
      return UNKNOWN;
    }
    return 0;
  }

  private allows(c: Compiled, s: number): number {
    if (c.allow !== undefined) {
      return c.allow ? 1 : 0;
    }
    const r = c.results.get(s);
    if (r === undefined) {
      this.missing = c;
      return UNKNOWN;
    }
    return r ? 1 : 0;
  }
}

function intersects(a: Set<number>, b: Set<number>): boolean {
  const [small, big] = a.size <= b.size ? [a, b] : [b, a];
  for (const x of small) if (big.has(x)) return true;
  return false;
}
