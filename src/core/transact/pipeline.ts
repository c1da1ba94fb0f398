/**
 * The one write pipeline (DESIGN.md "Write"): under the ledger's lock, stage against the head,
 * validate, write the transaction and commit blobs, compare-and-set the head, apply to novelty.
 * Concurrent writes are grouped (each still its own commit). A failure anywhere leaves the ledger
 * as it was: blobs written before a failed publish are unreferenced, and in-memory state changes
 * only after the head moved.
 */
import { CID } from 'multiformats/cid';
import { sha256 } from 'multiformats/hashes/sha2';
import { Codec, cidOf } from '../commit/cid.js';
import { encodeCommit, type CommitData } from '../commit/commit-codec.js';
import { encodeTxnBlob } from '../commit/txn-blob.js';
import {
  badRequest, commitConflict, constraintViolation, datatypeLimitExceeded, noveltyAtMax, noveltyDeltaTooLarge,
} from '../errors.js';
import type { Connection } from '../ledger/connection.js';
import type { Ledger } from '../ledger/ledger.js';
import { MAX_DATATYPES, RESERVED_DATATYPES } from '../ledger/datatypes-limit.js';
import type { NsRecord } from '../store.js';
import { checkWritePolicy, writePolicyInputs } from '../policy/index.js';
import { stageRequest } from './stage-request.js';
import type { TxnRequest } from './txn-request.js';

/** Commit receipt (http-api.md §2.1, jsonld-transactions.md §10). */
export interface Receipt {
  ledger_id: string;
  t: number;
  timestamp: string;
  commit_id: string;
  previous_commit_id: string | null;
  flakes_added: number;
  flakes_retracted: number;
  'tx-id': string;
  commit: { hash: string };
  time?: string;
  fuel?: number;
}

/** What the front end knows about the request besides its parsed form. */
export interface TxnContext {
  /** Content type and body as received, for the transaction blob. */
  contentType?: string;
  body?: unknown;
  identity?: string | null;
  jws?: string | null;
  /** Bytes of the raw request body (tx-id is their SHA-256). */
  rawBody?: Uint8Array;
  signal?: AbortSignal;
}

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
export async function writeGenesis(conn: Connection, ledger: Ledger): Promise<{ cid: string; record: NsRecord }> {
  const data: CommitData = { t: 0, parents: [], time: nowIso(), txn: null, author: '', nsDelta: [], graphDelta: [], meta: [], flakes: [] };
  const { bytes } = encodeCommit(data, ledger.ns);
  const cid = await conn.content.put(Codec.commit, bytes);
  ledger.applyCommit(data, cid.toString(), bytes);
  return { cid: cid.toString(), record: { ...ledger.record, commit_head_id: cid.toString(), commit_t: 0 } };
}

/** A write waiting in a ledger's queue. */
export interface PendingWrite {
  req: TxnRequest;
  ctx: TxnContext;
  txId: string;
  started: number;
  resolve(r: Receipt): void;
  reject(e: unknown): void;
}

/** Most requests committed together in one publish. */
const MAX_BATCH = 64;

/**
 * Run a write request. Writes to one ledger queue up and are committed in groups: each request is
 * still its own commit with its own t, but the group's blobs are written together and one
 * compare-and-set publishes them, so concurrent writers share the cost of durable storage.
 */
export async function transact(conn: Connection, ledger: Ledger, req: TxnRequest, ctx: TxnContext): Promise<Receipt> {
  const txId = 'ledgraph:tx:sha256:' + hex((await sha256.digest(ctx.rawBody ?? enc.encode(JSON.stringify(ctx.body ?? req)))).digest);
  return new Promise<Receipt>((resolve, reject) => {
    ledger.writeQueue.push({ req, ctx, txId, started: Date.now(), resolve, reject });
    if (!ledger.writing) void drain(conn, ledger);
  });
}

async function drain(conn: Connection, ledger: Ledger): Promise<void> {
  ledger.writing = true;
  try {
    while (ledger.writeQueue.length > 0) {
      const batch = ledger.writeQueue.splice(0, MAX_BATCH);
      await ledger.lock.run(() => commitBatch(conn, ledger, batch)).catch((e) => { for (const w of batch) w.reject(e); });
    }
  } finally {
    ledger.writing = false;
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
}

/** Stage, write and publish a group; on a moved head, catch up and restage, up to 16 times. */
async function commitBatch(conn: Connection, ledger: Ledger, batch: PendingWrite[]): Promise<void> {
  let writes = batch;
  for (let attempt = 0; attempt < MAX_ATTEMPTS && writes.length > 0; attempt++) {
    await conn.catchUp(ledger);
    const dictSize = ledger.dict.size;
    const { prepared, unchanged, failed } = await prepareAll(conn, ledger, writes);
    for (const [w, e] of failed) w.reject(e);
    const settleUnchanged = () => {
      for (const u of unchanged) {
        u.w.resolve(finish(u.w, {
          ledger_id: ledger.id, t: u.t, timestamp: u.time, commit_id: u.cid, previous_commit_id: u.cid,
          flakes_added: 0, flakes_retracted: 0, 'tx-id': u.w.txId, commit: { hash: u.cid },
        }));
      }
    };
    if (prepared.length === 0) { settleUnchanged(); return; }
    // Blobs first (their fsyncs overlap), then one compare-and-set names the last commit.
    await Promise.all(prepared.flatMap((x) => [
      ...(x.txnBytes ? [conn.content.put(Codec.txn, x.txnBytes)] : []),
      conn.content.put(Codec.commit, x.bytes),
    ]));
    const last = prepared[prepared.length - 1]!;
    const expected = ledger.record;
    const next: NsRecord = { ...expected, commit_head_id: last.cid, commit_t: last.t };
    if (!(await conn.ns.compareAndSet(ledger.id, expected, next))) {
      ledger.dict.truncate(dictSize); // nothing staged here will be published
      writes = [...prepared.map((x) => x.w), ...unchanged.map((u) => u.w)];
      continue;
    }
    ledger.record = next;
    for (const x of prepared) ledger.applyCommit({ ...x.data, nsDelta: x.nsDelta }, x.cid, x.bytes);
    for (const x of prepared) {
      x.w.resolve(finish(x.w, {
        ledger_id: ledger.id, t: x.t, timestamp: x.time, commit_id: x.cid, previous_commit_id: x.prevCid,
        flakes_added: x.asserts, flakes_retracted: x.retracts, 'tx-id': x.w.txId, commit: { hash: x.cid },
      }));
    }
    settleUnchanged();
    return;
  }
  for (const w of writes) w.reject(commitConflict(`ledger ${ledger.id}: the head kept moving; gave up after ${MAX_ATTEMPTS} attempts`));
}

function finish(w: PendingWrite, r: Receipt): Receipt {
  if (w.req.opts.meta) r.time = `${Date.now() - w.started}ms`;
  return r;
}

/**
 * Stage each write in order as the next commit, against an overlay of the snapshot plus the
 * commits staged before it in this group. Nothing touches the ledger's state; a request that fails
 * validation is reported alone and the rest go on.
 */
async function prepareAll(conn: Connection, ledger: Ledger, writes: PendingWrite[]): Promise<{
  prepared: Prepared[]; unchanged: { w: PendingWrite; t: number; cid: string; time: string }[]; failed: [PendingWrite, unknown][];
}> {
  const prepared: Prepared[] = [];
  const unchanged: { w: PendingWrite; t: number; cid: string; time: string }[] = [];
  const failed: [PendingWrite, unknown][] = [];
  let view = await ledger.db();
  let ns = ledger.ns;
  let t = ledger.t, cid = ledger.head.cid, time = ledger.head.time;
  let noveltyBytes = ledger.novelty.bytes;
  const datatypes = new Set(ledger.datatypes);
  const max = conn.opts.reindexMaxBytes;
  for (const w of writes) {
    const { req, ctx } = w;
    // Terms a failed request interned are released; later requests have not staged yet.
    const dictSize = ledger.dict.size;
    try {
      const commitTime = checkEventTime(req.opts.eventTime, time);
      const stager = await stageRequest(view, ledger, req, t + 1, ctx.signal, ctx.identity);
      const flakes = stager.flakes();
      if (flakes.length === 0) {
        // Nothing changed: no commit, the receipt names the head (jsonld-transactions.md §2).
        unchanged.push({ w, t, cid, time });
        continue;
      }
      // Policy (policy.md §6): one flake the identity may not modify refuses the whole transaction,
      // before any blob is written, so nothing commits.
      await checkWritePolicy(view, flakes, writePolicyInputs(req.opts, ctx.identity), req.meta);
      const fresh = checkDatatypeLimit(datatypes, flakes.map((f) => f.o));
      const txnBytes = conn.opts.storeTxn
        ? encodeTxnBlob({ type: ctx.contentType ?? 'application/json', body: ctx.body ?? null, identity: ctx.identity ?? null, jws: ctx.jws ?? null })
        : null;
      const data: CommitData = {
        t: t + 1, parents: [CID.parse(cid)], time: commitTime, txn: txnBytes ? await cidOf(Codec.txn, txnBytes) : null, author: '', nsDelta: [],
        graphDelta: stager.graphDelta(flakes), meta: req.meta.map((m) => ({ p: { termType: 'NamedNode' as const, value: m.predicate }, o: m.object })), flakes,
      };
      const encoded = encodeCommit(data, ns);
      const delta = encoded.bytes.length;
      if (delta >= max) throw noveltyDeltaTooLarge(`the transaction's novelty delta (${delta} bytes) is at or above reindex_max_bytes (${max}); split it into smaller transactions`);
      if (noveltyBytes >= max || noveltyBytes + delta > max) {
        conn.maybeIndex(ledger);
        throw noveltyAtMax(`novelty is at capacity (${noveltyBytes} of ${max} bytes); retry after indexing catches up`);
      }
      const commitCid = (await cidOf(Codec.commit, encoded.bytes)).toString();
      let asserts = 0, retracts = 0;
      for (const f of flakes) if (f.op) asserts++; else retracts++;
      prepared.push({ w, t: t + 1, time: commitTime, prevCid: cid, cid: commitCid, data, bytes: encoded.bytes, nsDelta: encoded.nsDelta, txnBytes, asserts, retracts });
      for (const dt of fresh) datatypes.add(dt);
      noveltyBytes += delta;
      ns = encoded.nsTable;
      t++; cid = commitCid; time = commitTime;
      // The next request in the group sees this one.
      view = view.withEvents(stager.idFlakes(t), view.graphTableWith(stager.newGraphs), t);
    } catch (e) {
      ledger.dict.truncate(dictSize);
      failed.push([w, e]);
    }
  }
  return { prepared, unchanged, failed };
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

/** The new non-reserved datatypes of a write; refuses the write when they would pass the limit. */
function checkDatatypeLimit(known: ReadonlySet<string>, objects: { termType: string; datatype?: { value: string } }[]): Set<string> {
  const fresh = new Set<string>();
  for (const o of objects) {
    if (o.termType !== 'Literal') continue;
    const dt = o.datatype!.value;
    if (!RESERVED_DATATYPES.has(dt) && !known.has(dt)) fresh.add(dt);
  }
  if (fresh.size > 0 && known.size + fresh.size > MAX_DATATYPES) {
    throw datatypeLimitExceeded(`this write would use ${known.size + fresh.size} distinct non-reserved datatypes; a ledger allows at most ${MAX_DATATYPES}`);
  }
  return fresh;
}
