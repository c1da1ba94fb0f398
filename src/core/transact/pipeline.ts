/**
 * The one write pipeline (DESIGN.md "Write"): stage against the head, validate, write the
 * transaction and commit blobs, compare-and-set the head, apply to novelty. Concurrent writes are
 * grouped (each still its own commit), and groups are pipelined two deep: the next group stages on
 * top of the one whose blobs are being written, and publishes only after it. A failure anywhere
 * leaves the ledger as it was: blobs written before a failed publish are unreferenced, in-memory
 * state changes only after the head moved, and writes staged on a group that did not publish are
 * staged again.
 */
import { CID } from 'multiformats/cid';
import { Codec, cidOf } from '../commit/cid.js';
import { cidOfLarge, sha256Bytes } from '../commit/digest-async.js';
import { encodeCommit, encodeCommitSliced, type CommitData } from '../commit/commit-codec.js';
import { encodeCommitRowsSliced } from '../commit/commit-rows.js';
import type { NamespaceTable } from '../commit/namespaces.js';
import type { Flake } from '../flake/flake.js';
import { encodeTxnBlob, encodeTxnBlobSliced, Utf8Text } from '../commit/txn-blob.js';
import { badRequest, busy, commitConflict, constraintViolation } from '../errors.js';
import type { Db } from '../ledger/db.js';
import type { ApplyInput, Ledger } from '../ledger/ledger.js';
import { checkDatatypeLimit, checkDatatypeNames } from '../ledger/datatypes-limit.js';
import { admitNovelty } from './novelty-limits.js';
import type { NsRecord, StagedRecord } from '../store.js';
import type { WriteEnv } from '../ledger/stores.js';
import { TimeSlice } from '../util/next-turn.js';
import { runSteps, runStepsSliced } from '../util/steps.js';
import type { Novelty } from '../index/novelty.js';
import { checkWritePolicy, writePolicyInputs } from '../policy/index.js';
import { checkShapes } from './shacl-validate.js';
import { stageRequest } from './stage-request.js';
import { RunStager } from './stage-runs.js';
import type { TxnRequest } from './txn-request.js';
import type { PendingWrite, Receipt, TxnContext } from './write-queue.js';

export type { Receipt, TxnContext, PendingWrite } from './write-queue.js';

const MAX_ATTEMPTS = 16;
const enc = new TextEncoder();

function hex(b: Uint8Array): string {
  let s = '';
  for (const x of b) s += x.toString(16).padStart(2, '0');
  return s;
}

/** Current wall-clock time as RFC 3339 UTC with milliseconds. */
export function nowIso(): string {
  return new Date().toISOString();
}

/** Write the genesis commit of a new ledger (t = 0) and return its CID and the record to publish. */
export async function writeGenesis(env: WriteEnv, ledger: Ledger): Promise<{ cid: string; record: NsRecord }> {
  const data: CommitData = { t: 0, parents: [], time: nowIso(), txn: null, author: '', nsDelta: [], graphDelta: [], meta: [], flakes: [] };
  const { bytes } = encodeCommit(data, ledger.ns);
  const cid = await env.contentFor(ledger.id).put(Codec.commit, bytes);
  ledger.applyCommit(data, cid.toString(), bytes);
  return { cid: cid.toString(), record: { ...ledger.record, commit_head_id: cid.toString(), commit_t: 0 } };
}

/**
 * A commit with more flakes than this gives the event loop a turn between its synchronous steps
 * (listing, encoding, interning): each is linear in the flakes, and a delta near reindex_max_bytes
 * takes a few hundred ms per step on a quiet machine.
 */
const BIG_COMMIT_FLAKES = 4096;

/** Longest stretch (ms) a big commit's novelty, encoding or application runs without a turn. */
const STEP_MS = 4;

/** Bodies from this size on are hashed for their tx-id and transaction blob while they stage. */
const EARLY_HASH_BYTES = 1 << 20;

/** Most requests committed together in one publish. */
const MAX_BATCH = 64;

/**
 * Run a write request. Writes to one ledger queue up and are committed in groups: each request is
 * still its own commit with its own t, but the group's blobs are written together and one
 * compare-and-set publishes them, so concurrent writers share the cost of durable storage.
 */
export async function transact(env: WriteEnv, ledger: Ledger, req: TxnRequest, ctx: TxnContext): Promise<Receipt> {
  const raw = ctx.rawBody ?? enc.encode(JSON.stringify(ctx.body ?? req));
  // A large body's tx-id is hashed (off the event loop) while the write stages; a small one at once, as before.
  const hashing = sha256Bytes(raw).then((d) => 'ledgraph:tx:sha256:' + hex(d));
  const txId = raw.length >= EARLY_HASH_BYTES ? '' : await hashing;
  return new Promise<Receipt>((resolve, reject) => {
    const w: PendingWrite = { req, ctx, txId, started: Date.now(), resolve, reject };
    if (txId === '') {
      w.txIdPending = hashing;
      hashing.then((id) => { w.txId = id; }, () => {});
    }
    if (ctx.queueWaitMs !== undefined && ctx.queueWaitMs > 0) w.expiry = expireAfter(ledger, w, ctx.queueWaitMs);
    ledger.writeQueue.push(w);
    if (!ledger.writing) void drain(env, ledger);
  });
}

/**
 * Refuse a write that has not started staging `ms` after it was queued (503 with Retry-After):
 * writes to a ledger stage one after another, and one slow write ahead (an update's WHERE may run
 * up to the query timeout) must not hold every write behind it for that long.
 */
function expireAfter(ledger: Ledger, w: PendingWrite, ms: number): ReturnType<typeof setTimeout> {
  const timer = setTimeout(() => {
    w.expired = true;
    const i = ledger.writeQueue.indexOf(w);
    if (i >= 0) ledger.writeQueue.splice(i, 1);
    w.reject(busy(`ledger ${ledger.id}: the write waited ${ms} ms behind other writes to this ledger without starting; nothing was committed, retry later`));
  }, ms);
  (timer as { unref?: () => void }).unref?.();
  return timer;
}

/**
 * Commit the queue, pipelined two groups deep: while one group's blobs are written and its head
 * published, the next group is staged on top of it and starts writing its own blobs. Publishes
 * stay in order; a group whose predecessor did not publish is staged again from the real head.
 */
async function drain(env: WriteEnv, ledger: Ledger): Promise<void> {
  ledger.writing = true;
  ledger.writes.begin();
  try {
    let inFlight: Group | null = null;
    while (ledger.writeQueue.length > 0 || inFlight) {
      let next: Group | null = null;
      if (ledger.writeQueue.length > 0) {
        const batch = ledger.writeQueue.splice(0, MAX_BATCH);
        const prev: Group | null = inFlight;
        next = await ledger.lock.run((): Promise<Group> => stageGroup(env, ledger, batch, prev)).catch((e: unknown): null => {
          for (const w of batch) w.reject(e);
          return null;
        });
      }
      if (inFlight && !(await inFlight.published)) {
        // Whatever was staged on it cannot publish either; both go back, in their original order.
        const again = [...inFlight.retry];
        if (next) {
          await next.published;
          again.push(...next.retry);
          next = null;
        }
        ledger.writeQueue.unshift(...again);
      }
      inFlight = next;
    }
  } finally {
    ledger.writing = false;
    ledger.writes.end();
  }
}

/** A staged, encoded commit not yet published. */
interface Prepared {
  w: PendingWrite;
  t: number;
  time: string;
  prevCid: string;
  cid: string;
  data: CommitData;
  bytes: Uint8Array;
  nsDelta: [number, string][];
  txnBytes: Uint8Array | null;
  asserts: number;
  retracts: number;
  /** Its facts as events and the graphs it creates, to stage later groups on top of it. */
  events: Flake[];
  newGraphs: ReadonlyMap<string, number>;
  /** The novelty staging built with its events (reused when it publishes on that same novelty). */
  novelty: { base: Novelty; after: Novelty };
  /** Its literal objects' datatypes when `data.flakes` is empty (staged as id runs). */
  datatypes?: string[];
}

/** A request that changes nothing: its receipt names the head it was staged on. */
interface Unchanged { w: PendingWrite; t: number; cid: string; time: string }

/** Where staging starts: the published head, or the state a group still in flight will publish. */
interface StageBase {
  view: Db;
  ns: NamespaceTable;
  t: number;
  cid: string;
  time: string;
  /** Commit bytes staged but not yet in the ledger's novelty. */
  pendingBytes: number;
  datatypes: Set<string>;
}

/** A staged group on its way to publication. */
interface Group {
  prepared: Prepared[];
  unchanged: Unchanged[];
  /** The head it builds on (its first commit's parent). */
  baseCid: string;
  /** Dictionary size before it staged: what to truncate to when it never publishes. */
  dictSize: number;
  after: StageBase;
  /** Resolves true once published (receipts sent), false when it cannot be (writes in `retry`). */
  published: Promise<boolean>;
  retry: PendingWrite[];
  /** The head record it expects to publish (staged with the nameservice when it can stage). */
  next?: NsRecord;
  staged?: StagedRecord;
}

/**
 * Stage a batch (under the ledger's lock) on the published head or on the group in flight, start
 * writing its blobs, and chain its publish after that group's.
 */
async function stageGroup(env: WriteEnv, ledger: Ledger, batch: PendingWrite[], prev: Group | null): Promise<Group> {
  let base: StageBase;
  if (prev) {
    // Rebase on the current snapshot (the groups before prev are published, and indexing may have
    // trimmed novelty since prev staged) plus prev's own commits.
    let view = await ledger.db();
    for (const x of prev.prepared) view = view.withEvents(x.events, view.graphTableWith(x.newGraphs), x.t);
    base = { ...prev.after, view };
  } else {
    await ledger.catchUp(env.ns);
    base = {
      view: await ledger.db(), ns: ledger.ns, t: ledger.t, cid: ledger.head.cid, time: ledger.head.time,
      pendingBytes: 0, datatypes: new Set(ledger.datatypes),
    };
  }
  const dictSize = ledger.dict.size;
  const { prepared, unchanged, failed, after } = await prepareAll(env, ledger, batch, base);
  for (const [w, e] of failed) w.reject(e);
  const group: Group = { prepared, unchanged, baseCid: base.cid, dictSize, after, published: Promise.resolve(true), retry: [] };
  // Blobs first (their fsyncs overlap each other and the previous group's publish). As one group
  // where the store can: one barrier makes every directory entry of the group durable, the txn
  // blobs' included, before the head can point at them.
  const content = env.contentFor(ledger.id);
  const objects = prepared.flatMap((x) => [
    ...(x.txnBytes && x.data.txn ? [{ cid: x.data.txn, bytes: x.txnBytes }] : []),
    { cid: CID.parse(x.cid), bytes: x.bytes },
  ]);
  // Their CIDs were hashed from these bytes just above (cidOfLarge): the store need not hash them again.
  const blobs = content.putAllWithCid ? content.putAllWithCid(objects, { hashed: true }) : Promise.all(prepared.flatMap((x) => [
    ...(x.txnBytes ? [content.put(Codec.txn, x.txnBytes)] : []),
    content.put(Codec.commit, x.bytes),
  ]));
  blobs.catch(() => {}); // observed in publish; never an unhandled rejection meanwhile
  // The head record this group will most likely publish, made durable beside its blobs where the
  // nameservice can; publish uses it only when the record it sets turns out to be exactly this one.
  const last = prepared[prepared.length - 1];
  if (last && env.ns.stage) {
    const base = prev?.next ?? ledger.record;
    group.next = { ...base, commit_head_id: last.cid, commit_t: last.t };
    group.staged = env.ns.stage(ledger.id, group.next);
  }
  group.published = publish(env, ledger, group, prev, blobs);
  return group;
}

/** Publish a group once its blobs are durable and its predecessor published; settle its writes. */
async function publish(env: WriteEnv, ledger: Ledger, g: Group, prev: Group | null, blobs: Promise<unknown>): Promise<boolean> {
  try {
    return await publishGroup(env, ledger, g, prev, blobs);
  } finally {
    // A staged record no compare-and-set took (a path that did not publish, or another record) goes.
    g.staged?.discard();
  }
}

/** The head's compare-and-set, handing over the staged record when it is exactly `next`. */
function setHead(env: WriteEnv, ledger: Ledger, g: Group, expected: NsRecord, next: NsRecord): Promise<boolean> {
  const staged = g.staged && JSON.stringify(g.next) === JSON.stringify(next) ? g.staged : undefined;
  return env.ns.compareAndSet(ledger.id, expected, next, staged);
}

async function publishGroup(env: WriteEnv, ledger: Ledger, g: Group, prev: Group | null, blobs: Promise<unknown>): Promise<boolean> {
  const all = [...g.prepared.map((x) => x.w), ...g.unchanged.map((u) => u.w)];
  let blobError: unknown = null;
  try { await blobs; } catch (e) { blobError = e; }
  if (prev && !(await prev.published)) {
    g.retry = all; // staged on a state that never came to be
    return false;
  }
  return ledger.lock.run(async () => {
    let headMoved = false;
    try {
      if (blobError !== null) {
        ledger.dict.truncate(g.dictSize);
        for (const w of all) w.reject(blobError);
        return false;
      }
      // A commit applied since staging (another process's, caught up by a reader) means a new base.
      if (ledger.head.cid !== g.baseCid) {
        ledger.dict.truncate(g.dictSize);
        g.retry = all;
        return false;
      }
      if (g.prepared.length > 0) {
        // Pages of the commits' metadata terms are loaded before publishing (their flakes' terms were
        // interned when they staged), and the new in-memory state is built off to the side, pausing
        // for other requests; it is swapped in, in one synchronous step, once the head moved.
        const inputs: ApplyInput[] = [];
        for (const x of g.prepared) {
          await ledger.resolveCommitTerms({ ...x.data, nsDelta: x.nsDelta, flakes: [] }, x.cid);
          inputs.push({ data: { ...x.data, nsDelta: x.nsDelta }, cid: x.cid, blob: x.bytes, staged: { events: x.events, novelty: x.novelty, ...(x.datatypes ? { datatypes: x.datatypes } : {}) } });
        }
        let applied = await runStepsSliced(ledger.applySteps(inputs), new TimeSlice(STEP_MS));
        const last = g.prepared[g.prepared.length - 1]!;
        const expected = ledger.record;
        const next: NsRecord = { ...expected, commit_head_id: last.cid, commit_t: last.t };
        if (!(await setHead(env, ledger, g, expected, next))) {
          ledger.dict.truncate(g.dictSize); // nothing staged here will be published
          g.retry = [];
          for (const w of all) {
            w.attempts = (w.attempts ?? 0) + 1;
            if (w.attempts >= MAX_ATTEMPTS) w.reject(commitConflict(`ledger ${ledger.id}: the head kept moving; gave up after ${MAX_ATTEMPTS} attempts`));
            else g.retry.push(w);
          }
          return false;
        }
        headMoved = true;
        ledger.record = next;
        // Nothing else changes novelty without the lock this holds; should it have, build again.
        if (ledger.novelty !== applied.base) applied = runSteps(ledger.applySteps(inputs));
        ledger.publishApplied(applied);
      }
      for (const x of [...g.prepared, ...g.unchanged]) if (x.w.txIdPending) x.w.txId = await x.w.txIdPending;
      for (const x of g.prepared) {
        x.w.resolve(finish(x.w, {
          ledger_id: ledger.id, t: x.t, timestamp: x.time, commit_id: x.cid, previous_commit_id: x.prevCid,
          flakes_added: x.asserts, flakes_retracted: x.retracts, 'tx-id': x.w.txId, commit: { hash: x.cid },
        }));
      }
      for (const u of g.unchanged) {
        u.w.resolve(finish(u.w, {
          ledger_id: ledger.id, t: u.t, timestamp: u.time, commit_id: u.cid, previous_commit_id: u.cid,
          flakes_added: 0, flakes_retracted: 0, 'tx-id': u.w.txId, commit: { hash: u.cid },
        }));
      }
      return true;
    } catch (e) {
      // A storage or programming error must settle every write of the group, never leave them
      // (and the queue behind them) waiting. Before the head moved nothing was published; after
      // it, the in-memory state may be half applied, so the next use reloads the ledger.
      if (headMoved) ledger.superseded = true;
      else ledger.dict.truncate(g.dictSize);
      g.retry = [];
      for (const w of all) w.reject(e);
      return false;
    }
  });
}

function finish(w: PendingWrite, r: Receipt): Receipt {
  if (w.req.opts.meta) r.time = `${Date.now() - w.started}ms`;
  if (w.req.warnings !== undefined && w.req.warnings.length > 0) r.warnings = w.req.warnings;
  return r;
}

/**
 * Stage each write in order as the next commit, against an overlay of the base plus the commits
 * staged before it. Nothing touches the ledger's state but its dictionary; a request that fails
 * validation is reported alone and the rest go on.
 */
async function prepareAll(env: WriteEnv, ledger: Ledger, writes: PendingWrite[], base: StageBase): Promise<{
  prepared: Prepared[]; unchanged: Unchanged[]; failed: [PendingWrite, unknown][]; after: StageBase;
}> {
  const prepared: Prepared[] = [];
  const unchanged: Unchanged[] = [];
  const failed: [PendingWrite, unknown][] = [];
  let { view, ns, t, cid, time } = base;
  let ownBytes = 0;
  const datatypes = new Set(base.datatypes);
  const slice = new TimeSlice(STEP_MS);
  for (const w of writes) {
    if (w.expired) continue; // already refused for its wait
    clearTimeout(w.expiry);
    const { req, ctx } = w;
    // Terms a failed request interned are released; later requests have not staged yet.
    const dictSize = ledger.dict.size;
    try {
      const commitTime = checkEventTime(req.opts.eventTime, time);
      const fuels = [ctx.maxFuel, req.opts.maxFuel].filter((n): n is number => n !== undefined);
      const limits = {
        signal: ctx.signal,
        deadline: ctx.whereTimeoutMs ? Date.now() + ctx.whereTimeoutMs : undefined,
        maxFuel: fuels.length ? Math.min(...fuels) : undefined,
        maxDeltaBytes: env.opts.reindexMaxBytes,
      };
      const blob = { type: ctx.contentType ?? 'application/json', body: ctx.body ?? null, identity: ctx.identity ?? null, jws: ctx.jws ?? null };
      // A blob already escaped (a body read on the body thread) is encoded, and its CID hashed off
      // the event loop, while the request stages: the same bytes and CID, sooner.
      const earlyTxn = env.opts.storeTxn && blob.body instanceof Utf8Text && blob.body.escaped ? encodeTxnBlob(blob) : null;
      const earlyCid = earlyTxn ? cidOfLarge(Codec.txn, earlyTxn) : null;
      earlyCid?.catch(() => {});
      // And the store may ready its file meanwhile (a file store deflates it): the blob's put then only writes.
      if (earlyTxn) env.contentFor(ledger.id).prepare?.(Codec.txn, earlyTxn);
      const stager = await stageRequest(view, ledger, req, t + 1, limits, ctx.identity);
      // A large plain insert staged as id runs makes no term object per fact: its count, datatypes
      // and graphs are read off its columns, and its commit is encoded from them (below).
      const runs = stager instanceof RunStager ? stager : null;
      const flakes = runs ? [] : stager.flakes();
      const count = runs ? runs.count() : flakes.length;
      const big = count > BIG_COMMIT_FLAKES;
      if (big) await slice.pause();
      if (count === 0) {
        // Nothing changed: no commit, the receipt names the head (jsonld-transactions.md §2).
        unchanged.push({ w, t, cid, time });
        continue;
      }
      // Policy (policy.md §6): one flake the identity may not modify refuses the whole transaction,
      // before any blob is written, so nothing commits.
      // (stageRequest stages as runs only without policy inputs, where nothing is checked.)
      if (!runs) await checkWritePolicy(view, flakes, writePolicyInputs(req.opts, ctx.identity), req.meta);
      // Shapes (docs/shacl.md) are checked on the state after this request.
      const events = big ? await runStepsSliced(stager.idFlakeSteps(t + 1), slice) : stager.idFlakes(t + 1);
      // A large commit gives the event loop a turn between the steps below and within its novelty
      // and its encoding, every STEP_MS of work (docs/isolation.md).
      if (big && slice.due()) await slice.pause();
      const novelty = big ? await runStepsSliced(view.noveltySteps(events), slice) : runSteps(view.noveltySteps(events));
      const after = view.withEvents(events, view.graphTableWith(stager.newGraphs), t + 1, novelty);
      if (big) await slice.pause();
      await checkShapes(after, events, ctx.signal, view);
      const objectDatatypes = runs?.objectDatatypes();
      const fresh = objectDatatypes ? checkDatatypeNames(datatypes, objectDatatypes) : checkDatatypeLimit(datatypes, flakes.map((f) => f.o));
      if (big && slice.due()) await slice.pause();
      const txnBytes = earlyTxn ?? (env.opts.storeTxn ? (big ? await encodeTxnBlobSliced(blob, slice) : encodeTxnBlob(blob)) : null);
      const data: CommitData = {
        t: t + 1, parents: [CID.parse(cid)], time: commitTime, txn: earlyCid ? await earlyCid : txnBytes ? await cidOfLarge(Codec.txn, txnBytes) : null, author: '', nsDelta: [],
        graphDelta: runs ? runs.graphDeltaOfRows() : stager.graphDelta(flakes), meta: req.meta.map((m) => ({ p: { termType: 'NamedNode' as const, value: m.predicate }, o: m.object })), flakes,
      };
      // A large insert staged as id runs is encoded from its columns: the same bytes, without
      // preparing and sorting a term object per flake (docs/bulk-load.md).
      const rows = runs ? runs.commitRows() : null;
      const encoded = rows ? await encodeCommitRowsSliced(data, ns, rows.rows, rows.keyOf, slice)
        : big ? await encodeCommitSliced(data, ns, slice) : encodeCommit(data, ns);
      const delta = encoded.bytes.length;
      admitNovelty(env, ledger, base.pendingBytes + ownBytes, delta);
      if (big && slice.due()) await slice.pause();
      const commitCid = (await cidOfLarge(Codec.commit, encoded.bytes)).toString();
      // Run staging stages assertions only.
      let asserts = runs ? count : 0, retracts = 0;
      for (const f of flakes) if (f.op) asserts++; else retracts++;
      prepared.push({
        w, t: t + 1, time: commitTime, prevCid: cid, cid: commitCid, data, bytes: encoded.bytes, nsDelta: encoded.nsDelta, txnBytes,
        asserts, retracts, events, newGraphs: new Map(stager.newGraphs), novelty: { base: view.sources.novelty, after: novelty },
        ...(objectDatatypes ? { datatypes: objectDatatypes } : {}),
      });
      for (const dt of fresh) datatypes.add(dt);
      ownBytes += delta;
      ns = encoded.nsTable;
      t++; cid = commitCid; time = commitTime;
      // The next request in the group sees this one.
      view = after;
    } catch (e) {
      ledger.dict.truncate(dictSize);
      failed.push([w, e]);
    }
  }
  // After this group, only its own bytes are pending: the group below it has published by the time
  // the next one stages on it.
  return { prepared, unchanged, failed, after: { view, ns, t, cid, time, pendingBytes: ownBytes, datatypes } };
}

/** The commit time: `eventTime` when given (not before the previous commit, not in the future), else now. */
function checkEventTime(eventTime: string | undefined, previous: string): string {
  const now = Date.now();
  if (eventTime === undefined) {
    // Keep times non-decreasing even if the clock stepped back.
    const prevMs = previous ? Date.parse(previous) : 0;
    return new Date(Math.max(now, prevMs)).toISOString();
  }
  const ms = Date.parse(eventTime);
  if (typeof eventTime !== 'string' || Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}T/.test(eventTime)) {
    throw badRequest(`opts.eventTime "${eventTime}" is not an RFC 3339 timestamp`);
  }
  if (ms > now + 1000) throw constraintViolation(`opts.eventTime ${eventTime} is in the future`);
  if (previous && ms < Date.parse(previous)) throw constraintViolation(`opts.eventTime ${eventTime} is before the previous commit's time ${previous}`);
  return new Date(ms).toISOString();
}
