/**
 * Policy entry points: `policyView` restricts what a read sees (policy.md §5), `checkWritePolicy`
 * guards a staged transaction (§6). Policy sets come from the branch head; `f:query` conditions and
 * class membership are evaluated on the snapshot being read (for writes: the state before the
 * transaction).
 */
import type { CommitFlake } from '../commit/commit-codec.js';
import { badRequest, forbidden } from '../errors.js';
import { withDictRetry, type TermDict } from '../index/dict.js';
import type { DbView } from '../index/view.js';
import type { Ledger } from '../ledger/ledger.js';
import type { LedgerLookup } from '../ledger/stores.js';
import { Db } from '../ledger/db.js';
import { keyToTerm, termKey, type Term } from '../rdf/terms.js';
import type { MetaEntry, TxnOpts } from '../transact/txn-request.js';
import { PolicyEvaluator, type IdSpace, type PolicyTally } from './evaluator.js';
import { isRootPolicy, type PolicyInputs } from './inputs.js';
import { cachedPolicySet, type PolicySet } from './load.js';
import { PolicyView } from './policy-view.js';

export type { PolicyInputs } from './inputs.js';
export { isRootPolicy, mergePolicyInputs, policyInputsFromPragmas, parsePolicyValues, hasPolicyInputs, parseBoolFlag } from './inputs.js';

/** Aggregate policy tracking of one request, plus the per-policy breakdown (`opts.meta`). */
export interface PolicyStats { executed: number; allowed: number; policies?: Record<string, PolicyTally> }

/** A view restricted by policy, and its tracking. */
export interface PolicyViewResult { view: DbView; stats: () => PolicyStats }

const NO_STATS = (): PolicyStats => ({ executed: 0, allowed: 0 });

/**
 * Ids of a dictionary, plus negative ids for terms it does not hold: a write's new subjects, or
 * terms of a view whose dictionary differs from the ledger's. `id` never allocates (an unknown
 * target IRI matches nothing); `intern` does.
 */
class OverlayIds implements IdSpace {
  private readonly extra = new Map<string, number>();
  private readonly keys: string[] = [];

  constructor(private readonly dict: TermDict, private readonly targetsMayBeNew: boolean) {}

  id(key: string): number | undefined {
    const known = this.dict.idOfKey(key);
    if (known !== undefined) return known;
    return this.targetsMayBeNew ? this.intern(key) : this.extra.get(key);
  }

  intern(key: string): number {
    const known = this.dict.idOfKey(key);
    if (known !== undefined) return known;
    let id = this.extra.get(key);
    if (id === undefined) {
      this.keys.push(key);
      id = -this.keys.length;
      this.extra.set(key, id);
    }
    return id;
  }

  term(id: number): Term { return id >= 0 ? this.dict.term(id) : keyToTerm(this.keys[-id - 1]!); }
}

/** Identifies a head snapshot of a ledger for the policy-set cache. */
function headKey(db: Db): string {
  return `${db.ledgerId}@${db.t}:${db.commitId ?? ''}`;
}

/** `headKey` of a ledger's current head, without making a snapshot (equal to `headKey(await ledger.db())`). */
function ledgerHeadKey(ledger: Ledger): string {
  return `${ledger.id}@${ledger.head.t}:${ledger.head.cid}`;
}

/**
 * `f:view` evaluators shared by the requests reading one snapshot under one policy set. Only
 * static sets (no `f:query`) are shared: their decisions depend on nothing but the snapshot, and
 * their tallies stay zero; an evaluator with conditions counts the runs of one request. Keyed by
 * the snapshot object, so a new head (a new snapshot) starts afresh and old ones are collected.
 */
const sharedEvaluators = new WeakMap<Db, Map<PolicySet, Shared>>();
const SHARED_PER_SNAPSHOT = 16;

/** A shared evaluator and the named graphs it leaves visible in its snapshot (once worked out). */
interface Shared { ev: PolicyEvaluator; graphs?: number[] }

async function viewEvaluator(set: PolicySet, db: Db): Promise<Shared> {
  let m = sharedEvaluators.get(db);
  const hit = m?.get(set);
  if (hit) return hit;
  const ev = await PolicyEvaluator.create(set, 'view', db, new OverlayIds(db.dict, false));
  if (!ev.isStatic) return { ev };
  if (!m) sharedEvaluators.set(db, (m = new Map()));
  if (m.size >= SHARED_PER_SNAPSHOT) m.delete(m.keys().next().value!);
  const shared: Shared = { ev };
  m.set(set, shared);
  return shared;
}

function sumTallies(ev: PolicyEvaluator): PolicyStats {
  const policies = ev.tallies();
  let executed = 0, allowed = 0;
  for (const t of Object.values(policies)) { executed += t.executed; allowed += t.allowed; }
  return { executed, allowed, policies };
}

/**
 * Restrict `view` to the facts the request may see. Unrestricted inputs return the same view
 * (zero overhead). A view that is not a Db of the ledger (e.g. a union over several times of it)
 * needs `opts.ledgerId`; its terms are matched to the ledger's by key, and conditions run on the head.
 */
export async function policyView(conn: LedgerLookup, view: DbView, inputs: PolicyInputs | undefined, opts: { ledgerId?: string } = {}): Promise<PolicyViewResult> {
  // Policy IRIs are looked up synchronously while evaluators are built: a dictionary page they
  // need is loaded and the view built again.
  return withDictRetry(() => policyViewOnce(conn, view, inputs, opts));
}

async function policyViewOnce(conn: LedgerLookup, view: DbView, inputs: PolicyInputs | undefined, opts: { ledgerId?: string }): Promise<PolicyViewResult> {
  if (isRootPolicy(inputs)) return { view, stats: NO_STATS };
  const ledgerId = view instanceof Db ? view.ledgerId : opts.ledgerId;
  if (ledgerId === undefined) throw badRequest('a policy-restricted view needs the ledger its policies come from');
  const ledger = await conn.ledger(ledgerId);
  const set = await cachedPolicySet(ledgerHeadKey(ledger), ledger.dict, () => ledger.db(), inputs);
  let ev: PolicyEvaluator;
  let pv: PolicyView;
  if (view instanceof Db && view.dict === ledger.dict) {
    const shared = await viewEvaluator(set, view);
    ev = shared.ev;
    pv = new PolicyView(view, ev, null);
    shared.graphs = await pv.prepare(shared.graphs);
  } else {
    const head = await ledger.db();
    const ids = new OverlayIds(head.dict, false);
    ev = await PolicyEvaluator.create(set, 'view', head, ids);
    const cache = new Map<number, number>();
    const vd = view.dict;
    pv = new PolicyView(view, ev, (id) => {
      let m = cache.get(id);
      if (m === undefined) { m = ids.intern(vd.key(id)); cache.set(id, m); }
      return m;
    });
    await pv.prepare();
  }
  pv.policyStats = () => sumTallies(ev);
  return { view: pv, stats: pv.policyStats };
}

/** Default refusal message of a write (policy.md §6). */
export const WRITE_DENIED = 'Policy enforcement prevents modification.';

/**
 * Refuse a staged transaction when any asserted or retracted flake (or user commit metadata) is
 * not allowed by the `f:modify` policies: 403 err:db/Forbidden with the first denying policy's
 * `f:exMessage`. `db` is the state before the transaction: conditions and class targets see it,
 * so subjects created by this transaction are not covered by class targets.
 */
export async function checkWritePolicy(db: Db, flakes: readonly CommitFlake[], inputs: PolicyInputs | undefined, meta: readonly MetaEntry[] = []): Promise<void> {
  return withDictRetry(() => checkWritePolicyOnce(db, flakes, inputs, meta));
}

async function checkWritePolicyOnce(db: Db, flakes: readonly CommitFlake[], inputs: PolicyInputs | undefined, meta: readonly MetaEntry[]): Promise<void> {
  if (isRootPolicy(inputs) || (flakes.length === 0 && meta.length === 0)) return;
  const set = await cachedPolicySet(headKey(db), db.dict, db, inputs);
  const ids = new OverlayIds(db.dict, true);
  const ev = await PolicyEvaluator.create(set, 'modify', db, ids);
  const check = async (s: Term, p: Term, o: Term) => {
    const si = ids.intern(termKey(s)), pi = ids.intern(termKey(p)), oi = ids.intern(termKey(o));
    if (await ev.decide(si, pi, oi)) return;
    const denier = await ev.denyingPolicy(si, pi, oi);
    throw forbidden(denier?.exMessage ?? WRITE_DENIED);
  };
  for (const f of flakes) await check(f.s, f.p, f.o);
  // User metadata lands on the commit's own subject, which no policy can name before it exists.
  const commit: Term = { termType: 'NamedNode', value: 'urn:ledgraph:commit:pending' };
  for (const m of meta) await check(commit, { termType: 'NamedNode', value: m.predicate }, m.object);
}

/** The policy inputs of a write: its opts, with the pipeline context's identity when opts name none. */
export function writePolicyInputs(opts: TxnOpts, ctxIdentity?: string | null): PolicyInputs {
  const out: PolicyInputs = {};
  const identity = opts.identity ?? ctxIdentity ?? undefined;
  if (identity !== undefined) out.identity = identity;
  if (opts.policyClass !== undefined) out.policyClass = opts.policyClass;
  if (opts.policy !== undefined) out.policy = opts.policy;
  if (opts.policyValues !== undefined) out.policyValues = opts.policyValues;
  if (opts.defaultAllow !== undefined) out.defaultAllow = opts.defaultAllow;
  return out;
}

/** What `restrictDataset` needs of a resolved dataset (query/dataset.ts ResolvedDataset). */
export interface RestrictableDataset { view: DbView; namedGraphs: number[]; ledgers: Record<string, number> }

/**
 * Apply policy to a resolved query dataset: its view is restricted and named graphs whose every
 * fact is hidden leave the dataset (so `GRAPH ?g` cannot reveal them). A dataset spanning several
 * ledgers is refused under a policy: each ledger has its own policies, and the union view does not
 * expose its members to wrap them one by one.
 */
export async function restrictDataset<T extends RestrictableDataset>(conn: LedgerLookup, ds: T, inputs: PolicyInputs | undefined): Promise<{ ds: T; stats: () => PolicyStats }> {
  if (isRootPolicy(inputs)) return { ds, stats: NO_STATS };
  const ledgers = Object.keys(ds.ledgers);
  if (ledgers.length !== 1) throw badRequest('a query under a policy (identity, policy-class, policy or default-allow) must read exactly one ledger');
  const r = await policyView(conn, ds.view, inputs, { ledgerId: ledgers[0]! });
  const visible = new Set(r.view.namedGraphs());
  return { ds: { ...ds, view: r.view, namedGraphs: ds.namedGraphs.filter((g) => visible.has(g)) }, stats: r.stats };
}

/** Decides visibility of facts given as terms (decoded commits of `/show`). */
export interface TermFilter { visible(s: Term, p: Term, o: Term): Promise<boolean>; stats: () => PolicyStats }

/**
 * A term-level `f:view` filter over snapshot `db` (the state a decoded commit produced); null when
 * the inputs are root, so callers skip filtering entirely.
 */
export async function termFilter(conn: LedgerLookup, db: Db, inputs: PolicyInputs | undefined): Promise<TermFilter | null> {
  if (isRootPolicy(inputs)) return null;
  const head = await (await conn.ledger(db.ledgerId)).db();
  const set = await cachedPolicySet(headKey(head), head.dict, head, inputs);
  const ids = new OverlayIds(db.dict, false);
  const ev = await withDictRetry(() => PolicyEvaluator.create(set, 'view', db, ids));
  return {
    visible: (s, p, o) => withDictRetry(() => ev.decide(ids.intern(termKey(s)), ids.intern(termKey(p)), ids.intern(termKey(o)))),
    stats: () => sumTallies(ev),
  };
}

/**
 * The view an update's WHERE reads (policy.md §6: the same identity's `f:view` policies): `db` is
 * the state before the transaction, which is also where the policy set comes from. Root inputs
 * return `db` itself. Staging itself must keep reading `db` unrestricted.
 */
export async function whereView(db: Db, inputs: PolicyInputs | undefined): Promise<DbView> {
  if (isRootPolicy(inputs)) return db;
  const set = await cachedPolicySet(headKey(db), db.dict, db, inputs);
  const ev = await withDictRetry(() => PolicyEvaluator.create(set, 'view', db, new OverlayIds(db.dict, false)));
  const pv = new PolicyView(db, ev, null);
  await pv.prepare();
  return pv;
}
