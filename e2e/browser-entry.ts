/**
 * Browser entry of the e2e bundle: runs core and browser-storage code inside Chromium and exposes
 * `window.ledgraphSelfTest()`, which returns a JSON report of named checks.
 */
import { set as idbSet, createStore } from 'idb-keyval';
import { Codec, cidOf, digestHex, parseCid, verifyCid } from '../src/core/commit/cid.js';
import { LedgraphError, badRequest, isLedgraphError, noveltyAtMax, notFound } from '../src/core/errors.js';
import { decodeFlakes, encodeFlakes } from '../src/core/proxy/flakes-codec.js';
import { FLAKES_VECTOR, FLAKES_VECTOR_HEX } from '../src/core/proxy/flakes-vector.js';
import { blankNode, keyKind, keyToTerm, literal, namedNode, termEquals, termKey, type Term } from '../src/core/rdf/terms.js';
import { xsd } from '../src/core/rdf/vocab.js';
import type { NsChange, NsRecord } from '../src/core/store.js';
import { IdbContentStore, IdbNameService } from '../src/storage/indexeddb-store.js';
import { ledgerChecks } from './ledger-checks.js';
import './w3c-entry.js';

/** One named check of the self-test. */
export interface SelfTestCheck { name: string; ok: boolean; ms: number; error?: string }

/** What `window.ledgraphSelfTest()` returns. */
export interface SelfTestReport {
  ok: boolean;
  passed: number;
  failed: number;
  userAgent: string;
  checks: SelfTestCheck[];
}

declare global {
  interface Window {
    ledgraphSelfTest: () => Promise<SelfTestReport>;
  }
}

function assert(cond: unknown, msg: string): asserts cond {
  if (!cond) throw new Error(msg);
}

function assertEq<T>(actual: T, expected: T, what: string): void {
  const a = JSON.stringify(actual), e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

async function expectLedgraphError(p: () => unknown, status: number, type: string): Promise<LedgraphError> {
  try {
    await p();
  } catch (e) {
    assert(isLedgraphError(e), `expected a LedgraphError, got ${String(e)}`);
    assertEq([e.status, e.type], [status, type], 'error status and @type');
    return e;
  }
  throw new Error(`expected a ${status} ${type} error, but nothing was thrown`);
}

const enc = new TextEncoder();
/** CID of "abc" under the commit codec, computed in Node (its digest is the FIPS 180-2 SHA-256 "abc" vector). */
const ABC_COMMIT_CID = 'bagaybqabciqlu6awx6hqdt7kifaubxs5vyrchmadmgrzmf32ts2bb73b6iablli';
const ABC_SHA256 = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';

function nsRecord(ledgerId: string, t: number, head: string | null): NsRecord {
  const [name, branch] = ledgerId.split(':') as [string, string];
  return {
    ledger_id: ledgerId, name, branch, commit_head_id: head, commit_t: t, index_head_id: null, index_t: 0,
    default_context: null, config_id: null, retracted: false,
  };
}

const checks: Array<[string, () => Promise<void> | void]> = [
  ['terms: keys round-trip every term kind', () => {
    const terms: Term[] = [
      namedNode('http://example.org/alice'),
      blankNode('b0'),
      literal('plain'),
      literal('bonjour', 'FR'),
      literal('42', namedNode(xsd.integer)),
      literal('a|b|"c"\n', namedNode('http://example.org/dt')),
      literal('日本語 🦊', 'ja'),
    ];
    for (const t of terms) {
      const key = termKey(t);
      const back = keyToTerm(key);
      assert(termEquals(t, back), `round trip of ${key} gave ${JSON.stringify(back)}`);
    }
    assertEq(terms.map((t) => keyKind(termKey(t))), [0, 1, 2, 2, 2, 2, 2], 'key kinds');
    assertEq((literal('bonjour', 'FR')).language, 'fr', 'language tags are lower-cased');
    assert(!termEquals(literal('1', namedNode(xsd.integer)), literal('1')), 'literals differing in datatype are different terms');
  }],
  ['cid: sha2-256 CIDs match the Node-computed known answer', async () => {
    const cid = await cidOf(Codec.commit, enc.encode('abc'));
    assertEq(digestHex(cid), ABC_SHA256, 'sha-256 digest');
    assertEq(cid.toString(), ABC_COMMIT_CID, 'CID string');
    assertEq(parseCid(ABC_COMMIT_CID).toString(), ABC_COMMIT_CID, 'parseCid round trip');
    assert(await verifyCid(cid, enc.encode('abc')), 'verifyCid accepts the right bytes');
    assert(!(await verifyCid(cid, enc.encode('abd'))), 'verifyCid rejects other bytes');
    const other = await cidOf(Codec.txn, enc.encode('abc'));
    assert(other.toString() !== cid.toString(), 'the kind codec is part of the CID');
    await expectLedgraphError(() => parseCid('zQmNotBase32'), 400, 'err:db/BadRequest');
  }],
  ['errors: LedgraphError carries status, @type, cause and headers', async () => {
    const e = new LedgraphError(400, 'err:db/BadRequest', 'outer', { cause: notFound('inner') });
    assertEq(e.toJSON(), {
      error: 'outer', status: 400, '@type': 'err:db/BadRequest',
      cause: { error: 'inner', status: 404, '@type': 'err:db/LedgerNotFound' },
    }, 'error body');
    assert(e instanceof Error && isLedgraphError(e), 'is an Error and a LedgraphError');
    assert(isLedgraphError({ name: 'LedgraphError' }), 'recognised across bundle copies by name');
    assert(!isLedgraphError(new TypeError('x')), 'other errors are not LedgraphErrors');
    const busy = noveltyAtMax('novelty full');
    assert(/^\d+$/.test(busy.headers?.['Retry-After'] ?? ''), '503 novelty errors carry Retry-After');
    await expectLedgraphError(() => { throw badRequest('x'); }, 400, 'err:db/BadRequest');
  }],
  ['indexeddb: content store puts, verifies, and detects tampering', async () => {
    const name = `selftest-${crypto.randomUUID()}`;
    const store = new IdbContentStore(name);
    const bytes = enc.encode('{"hello":"ledgraph"}');
    const cid = await store.put(Codec.txn, bytes);
    assertEq(cid.toString(), (await cidOf(Codec.txn, bytes)).toString(), 'put returns the content CID');
    assert(await store.has(cid), 'has after put');
    assertEq(Array.from(await store.get(cid)), Array.from(bytes), 'get returns the bytes');
    await idbSet(cid.toString(), enc.encode('tampered'), createStore(`${name}-objects`, 'objects'));
    await expectLedgraphError(() => store.get(cid), 502, 'err:db/BadGateway');
    assert(await store.delete(cid), 'delete reports an existing object');
    assert(!(await store.has(cid)), 'gone after delete');
    await expectLedgraphError(() => store.get(cid), 404, 'err:db/LedgerNotFound');
    await store.close();
  }],
  ['indexeddb: nameservice compare-and-set, list and change feed', async () => {
    const ns = new IdbNameService(`selftest-${crypto.randomUUID()}`);
    const seen: NsChange[] = [];
    const unsubscribe = ns.subscribe((c) => seen.push(c));
    const r1 = nsRecord('people:main', 1, ABC_COMMIT_CID);
    assert(await ns.compareAndSet('people:main', null, r1), 'create succeeds');
    assert(!(await ns.compareAndSet('people:main', null, r1)), 'second create loses');
    const r2 = { ...r1, commit_t: 2 };
    assert(!(await ns.compareAndSet('people:main', r2, r2)), 'stale expectation loses');
    assert(await ns.compareAndSet('people:main', r1, r2), 'advance succeeds');
    assertEq((await ns.get('people:main'))?.commit_t, 2, 'record after advance');
    assertEq((await ns.list()).map((r) => r.ledger_id), ['people:main'], 'list');
    assertEq(seen.map((c) => c.kind), ['create', 'commit'], 'change kinds');
    unsubscribe();
    assert(await ns.delete('people:main'), 'delete');
    assertEq(await ns.get('people:main'), null, 'gone after delete');
    await ns.close();
  }],
  ['flakes: the storage-proxy flake format (CBOR via cborg) encodes and decodes the Node vector byte for byte', () => {
    const bytes = encodeFlakes(FLAKES_VECTOR);
    assertEq(Array.from(bytes, (x) => x.toString(16).padStart(2, '0')).join(''), FLAKES_VECTOR_HEX, 'encoded bytes');
    const back = decodeFlakes(bytes);
    // Map key order differs after decoding (CBOR keys are length-first); compare field by field.
    assertEq(back.map((f) => [f.s, f.p, f.o, f.dt, f.t, f.op, f.lang ?? null]), FLAKES_VECTOR.map((f) => [f.s, f.p, f.o, f.dt, f.t, f.op, f.lang ?? null]), 'decoded flakes');
  }],
];

/** Run every check and report; never throws. */
async function ledgraphSelfTest(): Promise<SelfTestReport> {
  const results: SelfTestCheck[] = [];
  for (const [name, run] of [...checks, ...ledgerChecks]) {
    const start = performance.now();
    try {
      await run();
      results.push({ name, ok: true, ms: Math.round(performance.now() - start) });
    } catch (e) {
      const error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      results.push({ name, ok: false, ms: Math.round(performance.now() - start), error });
    }
  }
  const failed = results.filter((r) => !r.ok).length;
  return { ok: failed === 0, passed: results.length - failed, failed, userAgent: navigator.userAgent, checks: results };
}

window.ledgraphSelfTest = ledgraphSelfTest;
