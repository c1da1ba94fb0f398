/**
 * The one write pipeline (DESIGN.md "Write"): under the ledger's lock, stage against the head,
 * validate, write the transaction and commit blobs, compare-and-set the head, apply to novelty.
 * A failure anywhere leaves the ledger as it was: blobs written before a failed publish are
 * unreferenced, and in-memory state changes only after the head moved.
 */
import { CID } from 'multiformats/cid';
import { sha256 } from 'multiformats/hashes/sha2';
import { Codec } from '../commit/cid.js';
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

/** Run a write request; retries on a moved head up to 16 times, then 409. */
export async function transact(conn: Connection, ledger: Ledger, req: TxnRequest, ctx: TxnContext): Promise<Receipt> {
  const started = Date.now();
  const txId = 'ledgraph:tx:sha256:' + hex((await sha256.digest(ctx.rawBody ?? enc.encode(JSON.stringify(ctx.body ?? req)))).digest);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const result = await ledger.lock.run(async () => {
      await conn.catchUp(ledger);
      return attemptWrite(conn, ledger, req, ctx, txId);
    });
    if (result !== 'conflict') {
      if (req.opts.meta) result.time = `${Date.now() - started}ms`;
      return result;
    }
  }
  throw commitConflict(`ledger ${ledger.id}: the head kept moving; gave up after ${MAX_ATTEMPTS} attempts`);
}

async function attemptWrite(conn: Connection, ledger: Ledger, req: TxnRequest, ctx: TxnContext, txId: string): Promise<Receipt | 'conflict'> {
  // Multi-operation updates intern staged terms for their overlays; undo that unless we commit.
  const dictSize = ledger.dict.size;
  const headBefore = ledger.head.cid;
  try {
    return await stageAndCommit(conn, ledger, req, ctx, txId);
  } finally {
    if (ledger.head.cid === headBefore) ledger.dict.truncate(dictSize);
  }
}

async function stageAndCommit(conn: Connection, ledger: Ledger, req: TxnRequest, ctx: TxnContext, txId: string): Promise<Receipt | 'conflict'> {
  const db = await ledger.db();
  const t = ledger.t + 1;
  const prevCid = ledger.head.cid;
  const time = checkEventTime(req.opts.eventTime, ledger.head.time);
  const stager = await stageRequest(db, ledger, req, t, ctx.signal);
  const flakes = stager.flakes();
  let asserts = 0, retracts = 0;
  for (const f of flakes) if (f.op) asserts++; else retracts++;
  if (flakes.length === 0) {
    // Nothing changed: no commit, the receipt names the head (jsonld-transactions.md §2).
    return {
      ledger_id: ledger.id, t: ledger.t, timestamp: ledger.head.time, commit_id: prevCid, previous_commit_id: prevCid,
      flakes_added: 0, flakes_retracted: 0, 'tx-id': txId, commit: { hash: prevCid },
    };
  }
  // Policy (policy.md §6): one flake the identity may not modify refuses the whole transaction,
  // before any blob is written, so nothing commits.
  await checkWritePolicy(db, flakes, writePolicyInputs(req.opts, ctx.identity), req.meta);
  checkDatatypeLimit(ledger, flakes.map((f) => f.o));

  let txnCid = null;
  let txnBytes: Uint8Array | null = null;
  if (conn.opts.storeTxn) {
    txnBytes = encodeTxnBlob({ type: ctx.contentType ?? 'application/json', body: ctx.body ?? null, identity: ctx.identity ?? null, jws: ctx.jws ?? null });
  }
  if (txnBytes) txnCid = await conn.content.put(Codec.txn, txnBytes);
  const data: CommitData = {
    t, parents: [CID.parse(prevCid)], time, txn: txnCid, author: '', nsDelta: [],
    graphDelta: stager.graphDelta(flakes), meta: req.meta.map((m) => ({ p: { termType: 'NamedNode' as const, value: m.predicate }, o: m.object })), flakes,
  };
  const encoded = encodeCommit(data, ledger.ns);
  const delta = encoded.bytes.length;
  const max = conn.opts.reindexMaxBytes;
  if (delta >= max) throw noveltyDeltaTooLarge(`the transaction's novelty delta (${delta} bytes) is at or above reindex_max_bytes (${max}); split it into smaller transactions`);
  if (ledger.novelty.bytes >= max || ledger.novelty.bytes + delta > max) {
    conn.maybeIndex(ledger);
    throw noveltyAtMax(`novelty is at capacity (${ledger.novelty.bytes} of ${max} bytes); retry after indexing catches up`);
  }
  const cid = (await conn.content.put(Codec.commit, encoded.bytes)).toString();
  const expected = ledger.record;
  const next: NsRecord = { ...expected, commit_head_id: cid, commit_t: t };
  if (!(await conn.ns.compareAndSet(ledger.id, expected, next))) return 'conflict';
  ledger.record = next;
  ledger.applyCommit({ ...data, nsDelta: encoded.nsDelta }, cid, encoded.bytes);
  return {
    ledger_id: ledger.id, t, timestamp: time, commit_id: cid, previous_commit_id: prevCid,
    flakes_added: asserts, flakes_retracted: retracts, 'tx-id': txId, commit: { hash: cid },
  };
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

function checkDatatypeLimit(ledger: Ledger, objects: { termType: string; datatype?: { value: string } }[]): void {
  const fresh = new Set<string>();
  for (const o of objects) {
    if (o.termType !== 'Literal') continue;
    const dt = o.datatype!.value;
    if (!RESERVED_DATATYPES.has(dt) && !ledger.datatypes.has(dt)) fresh.add(dt);
  }
  if (fresh.size > 0 && ledger.datatypes.size + fresh.size > MAX_DATATYPES) {
    throw datatypeLimitExceeded(`this write would use ${ledger.datatypes.size + fresh.size} distinct non-reserved datatypes; a ledger allows at most ${MAX_DATATYPES}`);
  }
}
