/**
 * The per-ledger S3 layout (--s3-ledger-prefixes, src/storage/per-ledger-store.ts) against a real
 * S3-protocol server (s3rver on loopback): the storage contract on one ledger's view, where every
 * write path puts its objects (commits, transaction blobs, index, default context, branches,
 * merges, a restore under another name), hard drops deleting exactly one ledger's prefix, calls
 * outside any ledger refused, and a bucket written with the shared layout read on.
 */
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBranch } from '../../src/core/branch/fork.js';
import { mergeBranches } from '../../src/core/branch/merge.js';
import { Codec } from '../../src/core/commit/cid.js';
import { Connection } from '../../src/core/ledger/connection.js';
import { collectReachable } from '../../src/core/ledger/reachable.js';
import { readPack } from '../../src/core/pack/reader.js';
import { restoreLedger } from '../../src/core/pack/restore.js';
import { packFrames, planArchive } from '../../src/core/pack/writer.js';
import { runSparql } from '../../src/core/query/sparql-service.js';
import { literal, namedNode } from '../../src/core/rdf/terms.js';
import type { ContentStore } from '../../src/core/store.js';
import { MemoryNameService } from '../../src/storage/memory-store.js';
import { ledgerSegment } from '../../src/storage/per-ledger-store.js';
import { S3ContentStore } from '../../src/storage/s3-store.js';
import { rejection, storageContract } from './contract.js';
import { startS3, type TestS3 } from './s3-server.js';

const BUCKET = 'ledgraph-lp';
let s3: TestS3;
let n = 0;

beforeAll(async () => { s3 = await startS3([BUCKET]); });
afterAll(async () => { await s3?.stop(); });

const shared = (prefix: string) => new S3ContentStore({ bucket: BUCKET, prefix, endpoint: s3.endpoint, forcePathStyle: true, credentials: s3.credentials });

/** Every key under `prefix`, sorted. */
async function keys(client: S3ContentStore['client'], prefix: string): Promise<string[]> {
  const out: string[] = [];
  let token: string | undefined;
  do {
    const r = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix, ContinuationToken: token }));
    for (const o of r.Contents ?? []) out.push(o.Key!);
    token = r.IsTruncated ? r.NextContinuationToken : undefined;
  } while (token);
  return out.sort();
}

storageContract('s3, one ledger of the per-ledger layout', async () => {
  const base = shared(`c${++n}/content`);
  const store = base.perLedger();
  const view = store.forLedger('team/hr');
  // The view as the core holds it, closing the whole store at the end.
  const content: ContentStore = {
    put: (c, b) => view.put(c, b), putWithCid: (c, b) => view.putWithCid(c, b), get: (c) => view.get(c),
    has: (c) => view.has(c), delete: (c) => view.delete(c), close: () => store.close(),
  };
  return {
    content,
    ns: new MemoryNameService(),
    tamper: async (cid, bytes) => {
      await base.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${base.prefix}team~hr/${cid.toString()}`, Body: bytes }));
    },
    cleanup: async () => {},
  };
});

const quad = (s: string, o: string) => ({ subject: namedNode(`http://e/${s}`), predicate: namedNode('http://e/name'), object: literal(o), graph: { termType: 'DefaultGraph' as const, value: '' as const } });
const insert = (conn: Connection, ledger: string, s: string, o: string) => conn.transact(ledger, { kind: 'insert', quads: [quad(s, o)], meta: [], opts: {} });

async function names(conn: Connection, ledger: string): Promise<string[]> {
  const { result } = await runSparql(conn, 'SELECT ?n WHERE { ?s <http://e/name> ?n }', { ledger });
  const out: string[] = [];
  if (result.type === 'bindings') for await (const row of result.rows) out.push(row['n']!.value);
  return out.sort();
}

/** The CIDs of the objects under one ledger's prefix. */
const cidsUnder = async (base: S3ContentStore, name: string) =>
  (await keys(base.client, `${base.prefix}${ledgerSegment(name)}/`)).map((k) => k.slice(k.lastIndexOf('/') + 1));

async function concat(gen: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const p of gen) parts.push(p);
  return new Uint8Array(Buffer.concat(parts));
}

describe('per-ledger layout on S3', () => {
  it('names ledger prefixes without nesting: `/` becomes `~`', () => {
    expect(ledgerSegment('hr')).toBe('hr');
    expect(ledgerSegment('team/hr/eu')).toBe('team~hr~eu');
  });

  it('refuses reads and writes that name no ledger', async () => {
    const store = shared(`c${++n}/content`).perLedger();
    for (const p of [store.put(Codec.commit, new Uint8Array([1])), store.get(await import('../../src/core/commit/cid.js').then((m) => m.cidOf(Codec.commit, new Uint8Array([1]))))]) {
      const e = await rejection(p);
      expect(e.status).toBe(500);
      expect(e.message).toContain('is laid out per ledger');
    }
    await store.close();
  });

  it('every write path puts its objects under its ledger; branches share the prefix; a restore under another name copies; a hard drop deletes one prefix', async () => {
    const base = shared(`c${++n}/content`);
    const conn = new Connection({ content: base.perLedger(), ns: new MemoryNameService() }, { indexingEnabled: false, gcGraceMs: 0 });
    try {
      await conn.create('team/hr', { context: { ex: 'http://e/' } });
      await conn.create('team');
      await insert(conn, 'team/hr', 'ana', 'ana');
      await insert(conn, 'team', 'ops', 'ops');
      await conn.reindex('team/hr');
      // Nothing outside the two ledger prefixes: no flat (shared-layout) key, no other prefix.
      const all = await keys(base.client, base.prefix);
      expect(all.length).toBeGreaterThan(0);
      expect(all.filter((k) => !k.startsWith(`${base.prefix}team~hr/`) && !k.startsWith(`${base.prefix}team/`))).toEqual([]);
      // Everything the records reach is under their own ledger's prefix (commits, txn blobs, index, context).
      for (const name of ['team/hr', 'team']) {
        const reach = new Set<string>();
        await collectReachable(conn.contentFor(name), (await conn.ns.get(`${name}:main`))!, reach);
        expect([...reach].sort()).toEqual((await cidsUnder(base, name)).sort());
      }

      // A branch writes into the ledger's prefix, and creating it copies nothing.
      const before = await cidsUnder(base, 'team/hr');
      await createBranch(conn, 'team/hr', 'dev', 'main', undefined);
      expect(await cidsUnder(base, 'team/hr')).toEqual(before);
      await insert(conn, 'team/hr:dev', 'bo', 'bo');
      await insert(conn, 'team/hr', 'cy', 'cy');
      const merged = await mergeBranches(conn, 'team/hr', 'dev', 'main', 'take-both');
      expect(merged.fast_forward).toBe(false);
      await conn.reindex('team/hr');
      expect(await names(conn, 'team/hr')).toEqual(['ana', 'bo', 'cy']);
      expect(await names(conn, 'team/hr:dev')).toEqual(['ana', 'bo']);
      expect((await keys(base.client, base.prefix)).filter((k) => !k.startsWith(`${base.prefix}team~hr/`) && !k.startsWith(`${base.prefix}team/`))).toEqual([]);

      // A restore under another name stores its own copy of every object (the price of isolation).
      const record = (await conn.ns.get('team/hr:main'))!;
      const { plan, trailer } = await planArchive(conn.contentFor('team/hr'), record, true);
      const bytes = await concat(packFrames(conn.contentFor('team/hr'), plan, { maxFrameBytes: 1 << 28, trailer }));
      async function* once() { yield bytes; }
      const restored = await restoreLedger(conn, 'copy', readPack(once(), { maxFrameBytes: 1 << 28, archive: true }), {});
      expect(restored.ledger).toBe('copy:main');
      expect(await names(conn, 'copy')).toEqual(['ana', 'bo', 'cy']);
      const copyReach = new Set<string>();
      await collectReachable(conn.contentFor('copy'), (await conn.ns.get('copy:main'))!, copyReach);
      // Stored: what the archive carried (older index roots on the prev_root chain are not carried).
      const copyStored = await cidsUnder(base, 'copy');
      expect(copyStored.filter((c) => !copyReach.has(c))).toEqual([]);
      expect(copyStored).toContain(record.commit_head_id);
      const hrCids = new Set(await cidsUnder(base, 'team/hr'));
      expect(copyStored.filter((c) => hrCids.has(c)).length).toBe(copyStored.length - 1); // equal objects stored twice; the root re-stamped

      // Hard drops: each deletes its own prefix and nothing else.
      const hrBefore = await cidsUnder(base, 'team/hr');
      const teamBefore = await cidsUnder(base, 'team');
      const dropCopy = await conn.drop('copy', { hard: true });
      expect(dropCopy.files_deleted).toBe(copyStored.length);
      expect(await cidsUnder(base, 'copy')).toEqual([]);
      expect(await cidsUnder(base, 'team/hr')).toEqual(hrBefore);
      const dropHr = await conn.drop('team/hr', { hard: true });
      expect(dropHr.branches_dropped).toEqual(['team/hr:dev', 'team/hr:main']);
      expect(await cidsUnder(base, 'team/hr')).toEqual([]);
      expect(await cidsUnder(base, 'team')).toEqual(teamBefore);
      expect(await names(conn, 'team')).toEqual(['ops']);
    } finally {
      await conn.close();
    }
  }, 120_000);

  it('a bucket written with the shared layout keeps working: old objects are read where they are, new ones go to the ledger prefix', async () => {
    const prefix = `c${++n}/content`;
    const old = new Connection({ content: shared(prefix), ns: new MemoryNameService() }, { indexingEnabled: false });
    const ns = old.ns;
    await old.create('legacy');
    await insert(old, 'legacy', 'ana', 'ana');
    await old.reindex('legacy');
    await insert(old, 'legacy', 'bo', 'bo');
    await old.idle();
    const base = shared(prefix);
    const flat = await keys(base.client, `${prefix}/`);
    expect(flat.length).toBeGreaterThan(0);
    expect(flat.every((k) => !k.slice(prefix.length + 1).includes('/'))).toBe(true);
    await old.content.close();

    // The same bucket and nameservice, now laid out per ledger.
    const conn = new Connection({ content: base.perLedger(), ns }, { indexingEnabled: false, gcGraceMs: 0 });
    try {
      expect(await names(conn, 'legacy')).toEqual(['ana', 'bo']);
      expect(await names(conn, 'legacy@t:1')).toEqual(['ana']);
      await insert(conn, 'legacy', 'cy', 'cy');
      await conn.reindex('legacy');
      expect(await names(conn, 'legacy')).toEqual(['ana', 'bo', 'cy']);
      const own = await cidsUnder(base, 'legacy');
      expect(own.length).toBeGreaterThan(0);
      // The old objects stayed where they were (a view never writes or deletes the shared layout).
      expect((await keys(base.client, `${prefix}/`)).filter((k) => !k.slice(prefix.length + 1).includes('/'))).toEqual(flat);
      // A hard drop deletes the ledger's own prefix; shared-layout objects (possibly another ledger's too) stay.
      await conn.drop('legacy', { hard: true });
      expect(await cidsUnder(base, 'legacy')).toEqual([]);
      expect((await keys(base.client, `${prefix}/`)).filter((k) => !k.slice(prefix.length + 1).includes('/'))).toEqual(flat);
    } finally {
      await conn.close();
    }
  }, 120_000);
});
