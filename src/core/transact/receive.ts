/**
 * Receiving commits made elsewhere (`POST /push`, `/push-merges`; replication.md §7). The rules run
 * in the spec's order and all before anything is stored: decode every blob, check the chain against
 * the head, check parents and merged-commit reachability, verify the supplied blobs, then replay the
 * chain against an overlay of the ledger (retraction invariant, namespace and graph deltas, datatype
 * limit, the caller's `f:modify` policy, novelty limits). Only then are the objects stored, the head
 * compared-and-set, and each commit applied through Ledger.applyCommit like a local one.
 */
import type { CID } from 'multiformats/cid';
import { Codec, cidOf, parseCid, verifyCid } from '../commit/cid.js';
import { decodeCommit, inspectCommit, type CommitData, type CommitEnvelope } from '../commit/commit-codec.js';
import { commitConflict, constraintViolation, isLedgraphError } from '../errors.js';
import { FIRST_NAMED_GRAPH, type Flake } from '../flake/flake.js';
import { inParallel } from '../index/build.js';
import { checkDatatypeLimit } from '../ledger/datatypes-limit.js';
import type { Db } from '../ledger/db.js';
import type { Ledger } from '../ledger/ledger.js';
import type { WriteEnv } from '../ledger/stores.js';
import { checkWritePolicy, isRootPolicy } from '../policy/index.js';
import type { PolicyInputs } from '../policy/inputs.js';
import type { NsRecord } from '../store.js';
import { admitNovelty } from './novelty-limits.js';
import { mayHaveShapes } from './shacl-shapes.js';
import { checkShapes } from './shacl-validate.js';
import { Stager } from './stage.js';

/** A push request's objects, decoded from base64 by the front end. */
export interface ReceivedCommits {
  /** The chain, oldest first: commits[0] builds on the current head. */
  commits: Uint8Array[];
  /** Commits merges in `commits` brought in (push-merges), parents before children; stored, not replayed. */
  merged: Uint8Array[];
  /** Supplied transaction blobs by CID string. */
  blobs: Map<string, Uint8Array>;
  /** Blobs the sender declares it cannot supply. */
  missingBlobs: readonly string[];
}

/** The push response (http-api.md §2.6). */
export interface PushResponse {
  ledger: string;
  accepted: number;
  head: { t: number; commit_id: string };
  indexing: { enabled: boolean; needed: boolean; novelty_size: number; index_t: number; commit_t: number };
  /** Referenced transaction blobs neither supplied nor stored (accepted as a provenance gap). */
  missing_blobs?: string[];
}

/** Object writes in flight while a push is stored. */
const STORE_CONCURRENCY = 32;

interface Decoded { bytes: Uint8Array; cid: CID; id: string; env: CommitEnvelope }

/** Decode and identify one pushed commit (rule 1): structure errors are 422. */
async function decodeBlob(bytes: Uint8Array, what: string): Promise<Decoded> {
  let env: CommitEnvelope;
  try {
    env = inspectCommit(bytes);
  } catch (e) {
    if (isLedgraphError(e)) throw constraintViolation(`${what}: ${e.message}`);
    throw e;
  }
  const cid = await cidOf(Codec.commit, bytes);
  return { bytes, cid, id: cid.toString(), env };
}

/** The state of the ledger the push request is checked against. */
export function indexingStatus(env: WriteEnv, ledger: Ledger): PushResponse['indexing'] {
  return {
    enabled: env.opts.indexingEnabled,
    needed: ledger.novelty.bytes >= env.opts.reindexMinBytes,
    novelty_size: ledger.novelty.bytes,
    index_t: ledger.record.index_t,
    commit_t: ledger.t,
  };
}

/**
 * Validate and apply pushed commits to a ledger (rules 1–6 of replication.md §7); `policy` is the
 * caller's write policy. Throws 409 (chain), 422 (bytes, parents, blobs, replay) or 403/413/503.
 */
export async function receiveCommits(env: WriteEnv, ledger: Ledger, input: ReceivedCommits, policy: PolicyInputs | undefined): Promise<PushResponse> {
  if (input.commits.length === 0) throw constraintViolation('push: commits is empty');
  // 1. Decode every blob and compute its CID.
  const chain: Decoded[] = [];
  for (let i = 0; i < input.commits.length; i++) chain.push(await decodeBlob(input.commits[i]!, `commits[${i}]`));
  const merged: Decoded[] = [];
  for (let i = 0; i < input.merged.length; i++) merged.push(await decodeBlob(input.merged[i]!, `merged_commits[${i}]`));
  const blobs: { cid: CID; bytes: Uint8Array }[] = [];
  for (const [key, bytes] of input.blobs) {
    let cid: CID;
    try { cid = parseCid(key); } catch { throw constraintViolation(`blobs: "${key}" is not a CID`); }
    blobs.push({ cid, bytes });
  }

  return ledger.lock.run(async () => {
    await ledger.catchUp(env.ns);
    const content = env.contentFor(ledger.id);
    // 2. The chain continues the head: first parents and t, one after the other.
    let prevId = ledger.head.cid, prevT = ledger.t;
    for (const [i, c] of chain.entries()) {
      const first = c.env.parents[0]?.toString() ?? null;
      if (first !== prevId) {
        throw commitConflict(i === 0
          ? `push: the ledger head moved or diverged: commits[0]'s first parent is ${first ?? 'none'}, the head of ${ledger.id} is ${prevId} (t ${prevT}); pull first`
          : `push: commits[${i}]'s first parent is ${first ?? 'none'}, not commits[${i - 1}] (${prevId})`);
      }
      if (c.env.t !== prevT + 1) throw commitConflict(`push: commits[${i}] has t ${c.env.t}; the next t of ${ledger.id} is ${prevT + 1}`);
      prevId = c.id; prevT = c.env.t;
    }
    // 3. Every parent is in the push or stored; every merged commit hangs off a merge in the chain.
    const inPush = new Map<string, Decoded>();
    for (const c of [...chain, ...merged]) inPush.set(c.id, c);
    for (const c of [...chain, ...merged]) {
      for (const p of c.env.parents) {
        if (!inPush.has(p.toString()) && !(await content.has(p))) throw constraintViolation(`push: parent ${p.toString()} of commit ${c.id} is neither in the push nor stored`);
      }
    }
    if (merged.length > 0) {
      const mergedIds = new Set(merged.map((m) => m.id));
      const reached = new Set<string>();
      const stack = chain.flatMap((c) => c.env.parents.slice(1).map(String));
      while (stack.length > 0) {
        const id = stack.pop()!;
        if (!mergedIds.has(id) || reached.has(id)) continue;
        reached.add(id);
        for (const p of inPush.get(id)!.env.parents) stack.push(p.toString());
      }
      const stray = merged.find((m) => !reached.has(m.id));
      if (stray) throw constraintViolation(`push: merged commit ${stray.id} is not reachable from a merge in commits`);
    }
    // 4. Supplied blobs hash-verify; absent ones are a declared provenance gap.
    const supplied = new Set<string>();
    for (const b of blobs) {
      if (b.cid.code !== Codec.txn) throw constraintViolation(`blobs: ${b.cid.toString()} is not a transaction blob CID`);
      if (!(await verifyCid(b.cid, b.bytes))) throw constraintViolation(`blobs: the bytes of ${b.cid.toString()} do not match its CID`);
      supplied.add(b.cid.toString());
    }
    const missing = new Set<string>();
    for (const c of [...chain, ...merged]) {
      const txn = c.env.txn;
      if (txn && !supplied.has(txn.toString()) && !(await content.has(txn))) missing.add(txn.toString());
    }

    // 5. Replay the chain against an overlay of the ledger.
    const datas = await replayChecked(env, ledger, chain, policy);

    // 6. Store, compare-and-set the head, apply.
    try {
      // Every object is durable before the head moves: as one group where the store offers it (one
      // barrier), else written side by side and the head commit alone, last, as the barrier.
      const last = chain[chain.length - 1]!;
      const rest = [...blobs, ...merged, ...chain.slice(0, -1)];
      if (content.putAllWithCid) {
        await content.putAllWithCid([...rest, last]);
      } else {
        await inParallel(rest, STORE_CONCURRENCY, (o) => content.putWithCid(o.cid, o.bytes));
        await content.putWithCid(last.cid, last.bytes);
      }
      const expected = ledger.record;
      const next: NsRecord = { ...expected, commit_head_id: last.id, commit_t: last.env.t };
      if (!(await env.ns.compareAndSet(ledger.id, expected, next))) throw commitConflict(`push: the head of ${ledger.id} moved while the push was stored; pull and retry`);
      ledger.record = next;
    } catch (e) {
      ledger.dict.truncate(datas.dictSize);
      throw e;
    }
    for (const [i, c] of chain.entries()) ledger.applyCommit(datas.commits[i]!, c.id, c.bytes);
    env.maybeIndex(ledger);
    const res: PushResponse = {
      ledger: ledger.id, accepted: chain.length, head: { t: ledger.t, commit_id: ledger.head.cid }, indexing: indexingStatus(env, ledger),
    };
    if (missing.size > 0) res.missing_blobs = [...missing];
    return res;
  });
}

/**
 * Rule 5: decode each chain commit with the namespace table in effect before it, and check it as
 * the next state of the ledger: commit time, namespace and graph deltas, retractions, policy,
 * datatype limit, novelty. Terms interned for the overlay are released on failure.
 */
async function replayChecked(env: WriteEnv, ledger: Ledger, chain: Decoded[], policy: PolicyInputs | undefined): Promise<{ commits: CommitData[]; dictSize: number }> {
  const dictSize = ledger.dict.size;
  const ns = ledger.ns.clone();
  const graphs = ledger.graphs.clone();
  const datatypes = new Set(ledger.datatypes);
  let view: Db = await ledger.db();
  // Events of checked commits not yet in `view`: a new view is made only when a check reads it
  // (a retraction, or a policy), so a push of plain assertions builds none.
  let unseen: Flake[] = [];
  let unseenT = ledger.t;
  const viewNow = (): Db => {
    if (unseen.length > 0) { view = view.withEvents(unseen, graphs.clone(), unseenT); unseen = []; }
    return view;
  };
  const policed = !isRootPolicy(policy);
  let prevTime = ledger.head.time;
  let pending = 0;
  const out: CommitData[] = [];
  try {
    for (const [i, c] of chain.entries()) {
      const what = `commits[${i}] (t ${c.env.t})`;
      let data: CommitData;
      try {
        data = decodeCommit(c.bytes, ns);
      } catch (e) {
        if (isLedgraphError(e)) throw constraintViolation(`${what}: ${e.message}`);
        throw e;
      }
      const ms = Date.parse(data.time);
      if (prevTime && ms < Date.parse(prevTime)) throw constraintViolation(`${what}: time ${data.time} is before the previous commit's ${prevTime}`);
      if (ms > Date.now() + 1000) throw constraintViolation(`${what}: time ${data.time} is in the future`);
      for (const [g, iri] of data.graphDelta) {
        const known = graphs.iri(g), id = graphs.id(iri);
        if (g < FIRST_NAMED_GRAPH || (known !== undefined && known !== iri) || (id !== undefined && id !== g)) {
          throw constraintViolation(`${what}: graph_delta ${g} → ${iri} contradicts the ledger's graph table`);
        }
      }
      if (data.flakes.some((f) => !f.op)) {
        const stager = new Stager(viewNow(), graphs.nextId);
        for (const f of data.flakes) {
          if (f.op) continue;
          if (!(await stager.isCurrent(f.g, f.s, f.p, f.o, f.i ?? -1))) {
            throw constraintViolation(`${what}: retraction invariant: it retracts a fact that does not hold (${f.s.value} ${f.p.value})`);
          }
        }
      }
      if (policed) await checkWritePolicy(viewNow(), data.flakes, policy, data.meta.map((m) => ({ predicate: m.p.value, object: m.o })));
      for (const dt of checkDatatypeLimit(datatypes, data.flakes.map((f) => f.o))) datatypes.add(dt);
      admitNovelty(env, ledger, pending, c.bytes.length);
      pending += c.bytes.length;
      ns.applyDelta(data.nsDelta);
      for (const [g, iri] of data.graphDelta) graphs.set(g, iri);
      await ledger.resolveCommitTerms(data, c.id);
      const events: Flake[] = data.flakes.map((f) => ({ g: f.g, s: ledger.dict.intern(f.s), p: ledger.dict.intern(f.p), o: ledger.dict.intern(f.o), m: f.i ?? -1, t: data.t, op: f.op }));
      for (const f of events) unseen.push(f);
      unseenT = data.t;
      // Shapes (docs/shacl.md) hold in the state after each commit of the chain.
      if (await mayHaveShapes(ledger.dict)) {
        try {
          await checkShapes(viewNow(), events);
        } catch (e) {
          if (isLedgraphError(e) && e.status === 422) throw constraintViolation(`${what}: ${e.message}`);
          throw e;
        }
      }
      prevTime = data.time;
      out.push(data);
    }
  } catch (e) {
    ledger.dict.truncate(dictSize);
    throw e;
  }
  return { commits: out, dictSize };
}
