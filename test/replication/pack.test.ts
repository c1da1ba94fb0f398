/**
 * POST /pack and POST /import between real servers on their own file storage (replication.md §8–9):
 * stream layout and order, have/want and index diffs, export → import under a new name, and
 * tampering or truncation anywhere failing the whole restore with nothing stored.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CID } from 'multiformats/cid';
import { Codec } from '../../src/core/commit/cid.js';
import { decodeEnvelope } from '../../src/core/commit/commit-codec.js';
import { IMPORT_MAX_FRAME_BYTES, PACK_CONTENT_TYPE, type NameserviceManifest } from '../../src/core/pack/frames.js';
import { readPack, type PackFrame } from '../../src/core/pack/reader.js';
import { packFrames, planArchive } from '../../src/core/pack/writer.js';
import { postJson, type TestServer } from '../support/server.js';
import { expectError, json } from '../server/helpers.js';
import { answers, insert, log, startReplServer, storageToken, update } from './helpers.js';

let a: TestServer, b: TestServer;
let tok: string;

async function info(srv: TestServer, ledger: string): Promise<{ t: number; commitId: string; indexId: string | null; index: { t: number } }> {
  return json(await fetch(`${srv.api}/info/${ledger}`));
}

function pack(srv: TestServer, ledger: string, body: unknown): Promise<Response> {
  return postJson(`${srv.api}/pack/${ledger}`, body, { Authorization: `Bearer ${tok}`, Accept: PACK_CONTENT_TYPE });
}

async function frames(r: Response): Promise<PackFrame[]> {
  expect(r.status, r.status === 200 ? '' : await r.clone().text()).toBe(200);
  expect(r.headers.get('content-type')).toBe(PACK_CONTENT_TYPE);
  const out: PackFrame[] = [];
  for await (const f of readPack(r.body as unknown as AsyncIterable<Uint8Array>, { maxFrameBytes: 1 << 28 })) out.push(f);
  return out;
}

async function* chunks(bytes: Uint8Array, size = 1000): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function concat(gen: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const p of gen) parts.push(p);
  return new Uint8Array(Buffer.concat(parts));
}

/** The archive of a ledger of `srv`, built as `ledgraph export` builds it from a storage directory. */
async function archive(srv: TestServer, ledger: string, indexes = true): Promise<Uint8Array> {
  const record = (await srv.conn.ns.get(ledger))!;
  const { plan, trailer } = await planArchive(srv.conn.content, record, indexes);
  return concat(packFrames(srv.conn.content, plan, { maxFrameBytes: 1 << 28, trailer }));
}

function importArchive(srv: TestServer, ledger: string, bytes: Uint8Array): Promise<Response> {
  return fetch(`${srv.api}/import/${ledger}`, { method: 'POST', headers: { 'Content-Type': PACK_CONTENT_TYPE }, body: bytes });
}

/** Byte offsets where each frame starts, and the end. */
function boundaries(bytes: Uint8Array): { starts: number[]; kinds: number[] } {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const starts: number[] = [], kinds: number[] = [];
  let p = 5;
  while (p < bytes.length) {
    starts.push(p); kinds.push(bytes[p]!);
    const type = bytes[p]!;
    if (type === 0xff) { p += 1; continue; }
    if (type === 0x01) { const cl = dv.getUint16(p + 1, true); p += 3 + cl + 4 + dv.getUint32(p + 3 + cl, true); continue; }
    p += 5 + dv.getUint32(p + 1, true);
  }
  return { starts, kinds };
}

/** Data frame starts with the codec of their CID. */
function dataFrames(bytes: Uint8Array): { start: number; codec: number; cidLen: number }[] {
  const { starts, kinds } = boundaries(bytes);
  const out: { start: number; codec: number; cidLen: number }[] = [];
  starts.forEach((s, i) => {
    if (kinds[i] !== 0x01) return;
    const cl = bytes[s + 1]! | (bytes[s + 2]! << 8);
    out.push({ start: s, codec: CID.decode(bytes.slice(s + 3, s + 3 + cl)).code, cidLen: cl });
  });
  return out;
}

async function countObjects(srv: TestServer): Promise<number> {
  let n = 0;
  for (const d of await readdir(join(srv.dir, 'objects'))) n += (await readdir(join(srv.dir, 'objects', d))).length;
  return n;
}

async function nothingLeft(srv: TestServer, ledger: string, objectsBefore: number): Promise<void> {
  expect(await json(await fetch(`${srv.api}/exists/${ledger}`))).toEqual({ ledger: `${ledger}:main`, exists: false });
  expect(await srv.conn.ns.get(`${ledger}:main`)).toBeNull();
  expect(await countObjects(srv)).toBe(objectsBefore);
}

beforeAll(async () => {
  [a, b] = await Promise.all([startReplServer(), startReplServer()]);
  tok = await storageToken();
  await json(await postJson(`${a.api}/create`, { ledger: 'hr' }), 201);
  await insert(a, 'hr', { '@id': 'ex:alice', 'ex:name': 'Alice', 'ex:age': 41 });
  await insert(a, 'hr', { '@id': 'ex:bob', 'ex:name': 'Bob', 'ex:knows': { '@id': 'ex:alice' } });
  await json(await postJson(`${a.api}/reindex`, { ledger: 'hr' }));
  await update(a, 'hr', 'PREFIX ex: <http://example.org/> DELETE DATA { ex:alice ex:name "Alice" } ; INSERT DATA { ex:alice ex:name "Alicia" . ex:carol ex:knows ex:bob }');
  await insert(a, 'hr', { '@id': 'ex:dan', 'ex:name': 'Dan', 'ex:knows': { '@id': 'ex:carol' } });
  // B holds an unrelated ledger, so restores there share no objects by accident.
  await json(await postJson(`${b.api}/create`, { ledger: 'other' }), 201);
});
afterAll(async () => { await Promise.all([a.close(), b.close()]); });

describe('POST /pack', () => {
  it('streams preamble, header, commits oldest first each with its txn blob, the index, End', async () => {
    const i = await info(a, 'hr');
    const fs = await frames(await pack(a, 'hr', { protocol: 'ledgraph-pack-v1', want: [i.commitId], have: [], include_indexes: true, want_index_root_id: i.indexId }));
    expect(fs[0]).toMatchObject({ type: 'header', header: { protocol: 'ledgraph-pack-v1', capabilities: ['commits', 'txns', 'indexes'], commit_count: 5, server_max_frame_bytes: 1 << 28 } });
    const header = (fs[0] as Extract<PackFrame, { type: 'header' }>).header;
    const data = fs.filter((f): f is Extract<PackFrame, { type: 'data' }> => f.type === 'data');
    const commits = data.filter((f) => f.cid.code === Codec.commit);
    expect(commits.map((c) => decodeEnvelope(c.bytes).t)).toEqual([0, 1, 2, 3, 4]);
    // Each non-genesis commit is followed by its transaction blob.
    const firstIdx = fs.findIndex((f) => f.type === 'manifest');
    const commitPart = fs.slice(1, firstIdx) as Extract<PackFrame, { type: 'data' }>[];
    expect(commitPart.map((f) => f.cid.code)).toEqual([Codec.commit, ...[1, 2, 3, 4].flatMap(() => [Codec.commit, Codec.txn])]);
    expect(fs[firstIdx]).toEqual({ type: 'manifest', manifest: { phase: 'indexes', root_id: i.indexId, artifact_count: header.index_artifact_count } });
    const idx = fs.slice(firstIdx + 1, -1) as Extract<PackFrame, { type: 'data' }>[];
    expect(idx.length).toBe(header.index_artifact_count);
    expect(idx[idx.length - 1]!.cid.toString()).toBe(i.indexId);
    const kinds = idx.map((f) => f.cid.code);
    expect(kinds.lastIndexOf(Codec.indexLeaf)).toBeLessThan(kinds.indexOf(Codec.indexBranch));
    expect(fs[fs.length - 1]).toEqual({ type: 'end' });
  });

  it('stops at have, leaves out txns on request, and sends only the index objects the client lacks', async () => {
    const before = await info(a, 'hr');
    await insert(a, 'hr', { '@id': 'ex:erin', 'ex:name': 'Erin' });
    await json(await postJson(`${a.api}/reindex`, { ledger: 'hr' }));
    const after = await info(a, 'hr');
    const fs = await frames(await pack(a, 'hr', { protocol: 'ledgraph-pack-v1', want: [after.commitId], have: [before.commitId], include_indexes: false, include_txns: false }));
    expect(fs.filter((f) => f.type === 'data').map((f) => (f as { cid: CID }).cid.toString())).toEqual([after.commitId]);
    const full = await frames(await pack(a, 'hr', { protocol: 'ledgraph-pack-v1', want: [after.commitId], include_indexes: true, want_index_root_id: after.indexId }));
    const diff = await frames(await pack(a, 'hr', { protocol: 'ledgraph-pack-v1', want: [after.commitId], have: [before.commitId], include_indexes: true, want_index_root_id: after.indexId, have_index_root_id: before.indexId }));
    const ids = (xs: PackFrame[]) => new Set(xs.filter((f) => f.type === 'data').map((f) => (f as { cid: CID }).cid.toString()));
    const fullIds = ids(full), diffIds = ids(diff);
    expect(diffIds.size).toBeLessThan(fullIds.size);
    for (const id of diffIds) expect(fullIds.has(id)).toBe(true);
    expect(diffIds.has(after.indexId!)).toBe(true);
  });

  it('400 for a bad protocol, an empty want, indexes without a root; 404 for a want that is not a commit', async () => {
    const i = await info(a, 'hr');
    await expectError(await pack(a, 'hr', { protocol: 'x', want: [i.commitId], include_indexes: false }), 400, 'err:db/BadRequest', 'protocol');
    await expectError(await pack(a, 'hr', { protocol: 'ledgraph-pack-v1', want: [], include_indexes: false }), 400, 'err:db/BadRequest', 'want');
    await expectError(await pack(a, 'hr', { protocol: 'ledgraph-pack-v1', want: [i.commitId], include_indexes: true }), 400, 'err:db/BadRequest', 'want_index_root_id');
    await expectError(await pack(a, 'hr', { protocol: 'ledgraph-pack-v1', want: [i.indexId], include_indexes: false }), 404, 'err:db/LedgerNotFound');
  });
});

describe('POST /import', () => {
  it('restores an archive under a new name: same commits, /log and answers at every t; index re-stamped', async () => {
    const bytes = await archive(a, 'hr:main');
    const i = await info(a, 'hr');
    const r = await json<Record<string, unknown>>(await importArchive(b, 'hr2', bytes), 201);
    expect(r).toMatchObject({ ledger: 'hr2:main', t: i.t, commit_id: i.commitId, bytes: expect.any(Number) });
    expect(r.index_id).not.toBe(i.indexId);
    const root = JSON.parse(new TextDecoder().decode(await b.conn.content.get(CID.parse(r.index_id as string)))) as { ledger_id: string };
    expect(root.ledger_id).toBe('hr2:main');
    expect(await log(b, 'hr2')).toEqual(await log(a, 'hr'));
    const ts = [0, 1, 2, 3, 4, 5];
    expect(await answers(b, 'hr2', ts)).toEqual(await answers(a, 'hr', ts));
    // The restored ledger takes writes like any other.
    await insert(b, 'hr2', { '@id': 'ex:zed', 'ex:name': 'Zed' });
    await expectError(await importArchive(b, 'hr2', bytes), 409, 'err:db/LedgerExists');
  });

  it('fails the whole restore on a tampered commit, txn blob, index leaf, frame length or CID, storing nothing', async () => {
    const bytes = await archive(a, 'hr:main');
    const objects = await countObjects(b);
    const df = dataFrames(bytes);
    const payload = (codec: number) => { const f = df.find((x) => x.codec === codec)!; return f.start + 3 + f.cidLen + 4; };
    const flip = (at: number) => { const c = bytes.slice(); c[at] ^= 0x20; return c; };
    const cases: [string, Uint8Array, number][] = [
      ['commit', flip(payload(Codec.commit) + 20), 422],
      ['txn blob', flip(payload(Codec.txn) + 5), 422],
      ['index leaf', flip(payload(Codec.indexLeaf) + 30), 422],
      ['CID', flip(df[2]!.start + 3 + df[2]!.cidLen - 1), 422],
    ];
    for (const [what, tampered, status] of cases) {
      const r = await importArchive(b, 'bad', tampered);
      expect(r.status, `${what}: ${await r.clone().text()}`).toBe(status);
      await nothingLeft(b, 'bad', objects);
    }
    // A frame length one byte longer shifts every later frame: the stream no longer parses.
    const len = bytes.slice();
    const f = df[3]!;
    const dv = new DataView(len.buffer);
    dv.setUint32(f.start + 3 + f.cidLen, dv.getUint32(f.start + 3 + f.cidLen, true) + 1, true);
    const r = await importArchive(b, 'bad', len);
    expect([400, 422]).toContain(r.status);
    await nothingLeft(b, 'bad', objects);
  });

  it('fails on a stream truncated at every frame boundary, with and without indexes, leaving nothing', async () => {
    for (const indexes of [false, true]) await truncatedEverywhere(await archive(a, 'hr:main', indexes));
    const r = await importArchive(b, 'cut', (await archive(a, 'hr:main', false)).subarray(0, 3));
    await expectError(r, 400, 'err:db/BadRequest');
  });

  async function truncatedEverywhere(bytes: Uint8Array): Promise<void> {
    const objects = await countObjects(b);
    const { starts, kinds } = boundaries(bytes);
    expect(kinds).toContain(0x03);
    for (let k = 0; k < starts.length; k++) {
      const cut = bytes.subarray(0, starts[k]!);
      const r = await importArchive(b, 'cut', cut);
      // Only the cut right before End, after the nameservice manifest, is a complete archive (§9 tolerance).
      if (k === starts.length - 1 && kinds[k] === 0xff) {
        expect(r.status, await r.clone().text()).toBe(201);
        await json(await postJson(`${b.api}/drop`, { ledger: 'cut', hard: true }));
        continue;
      }
      await expectError(r, 400, 'err:db/BadRequest', 'truncated');
      await nothingLeft(b, 'cut', objects);
    }
  }

  it('422 when the nameservice manifest is missing or names heads the archive does not carry, leaving nothing', async () => {
    const record = (await a.conn.ns.get('hr:main'))!;
    const other = (await b.conn.ns.get('other:main'))!;
    const objects = await countObjects(b);
    const build = async (indexes: boolean, trailer: (t: NameserviceManifest) => NameserviceManifest | undefined) => {
      const { plan, trailer: t } = await planArchive(a.conn.content, record, indexes);
      const tr = trailer(t);
      return concat(packFrames(a.conn.content, plan, { maxFrameBytes: 1 << 28, ...(tr ? { trailer: tr } : {}) }));
    };
    const cases: [string, Uint8Array, string][] = [
      ['no manifest', await build(false, () => undefined), 'has no nameservice manifest'],
      ['head commit not carried', await build(false, (t) => ({ ...t, commit_head_id: other.commit_head_id!, commit_t: other.commit_t })), `head commit ${other.commit_head_id} is not in the archive`],
      ['index root not carried', await build(false, (t) => ({ ...t, index_head_id: record.index_head_id, index_t: record.index_t })), `index root ${record.index_head_id} is not in the archive`],
      ['head at another t', await build(false, (t) => ({ ...t, commit_t: t.commit_t + 1 })), 'is not a commit at t'],
    ];
    for (const [what, bytes, message] of cases) {
      const r = await importArchive(b, 'headless', bytes);
      await expectError(r, 422, 'err:db/ConstraintViolation', message);
      expect(r.status, what).toBe(422);
      await nothingLeft(b, 'headless', objects);
    }
  });

  it('413 for a data frame declared above 1 GiB, before reading it', async () => {
    const bytes = await archive(a, 'hr:main', false);
    const f = dataFrames(bytes)[0]!;
    const big = bytes.slice(0, f.start + 3 + f.cidLen + 4);
    new DataView(big.buffer).setUint32(f.start + 3 + f.cidLen, IMPORT_MAX_FRAME_BYTES + 1, true);
    await expectError(await importArchive(b, 'huge', big), 413, 'err:db/PayloadTooLarge');
    expect(await b.conn.ns.get('huge:main')).toBeNull();
  });
});
