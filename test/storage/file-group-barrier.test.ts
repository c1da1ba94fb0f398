/**
 * Durability 'commits' (src/storage/file-store.ts): a group of commits fsyncs only the directories
 * its own objects were created in, so an index job's leaves written meanwhile do not stretch a
 * write's commit; their directories stay dirty until the index root's barrier fsyncs them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Codec, cidOf } from '../../src/core/commit/cid.js';

const synced: string[] = [];
vi.mock('../../src/storage/fd-io.js', async (orig) => {
  const real = await orig<typeof import('../../src/storage/fd-io.js')>();
  return { ...real, syncDir: async (dir: string) => { synced.push(dir); await real.syncDir(dir); } };
});
const { FileContentStore } = await import('../../src/storage/file-store.js');

const dirs: string[] = [];
afterAll(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });
const enc = new TextEncoder();

describe('file store group barrier', () => {
  it("fsyncs the group's own directories, and leaves other objects' directories to the next barrier", async () => {
    const root = await mkdtemp(join(tmpdir(), 'ledgraph-group-barrier-'));
    dirs.push(root);
    const content = await FileContentStore.open(root);
    // Leaves in many shard directories (an index job under way).
    const leaves = await Promise.all(Array.from({ length: 64 }, (_, i) => cidOf(Codec.indexLeaf, enc.encode(`leaf ${i}`))));
    for (const [i, cid] of leaves.entries()) await content.putWithCid(cid, enc.encode(`leaf ${i}`));
    const leafDirs = new Set(leaves.map((c) => dirname(content.pathOf(c))));
    // A write's group: a txn blob and its commit.
    const group = await Promise.all([['txn', Codec.txn], ['commit', Codec.commit]].map(async ([text, codec]) => {
      const bytes = enc.encode(`${text as string} 1`);
      return { cid: await cidOf(codec as number, bytes), bytes };
    }));
    const groupDirs = new Set(group.map((o) => dirname(content.pathOf(o.cid))));
    synced.length = 0;
    await content.putAllWithCid(group);
    const byGroup = new Set(synced);
    for (const d of groupDirs) expect(byGroup.has(d)).toBe(true);
    for (const d of byGroup) expect(groupDirs.has(d) || d === join(root, 'objects')).toBe(true);
    const left = [...leafDirs].filter((d) => !groupDirs.has(d));
    expect(left.length).toBeGreaterThan(32);
    // The index root is a barrier: every directory still dirty is fsynced before its put returns.
    synced.length = 0;
    await content.put(Codec.indexRoot, enc.encode('root'));
    const byRoot = new Set(synced);
    for (const d of left) expect(byRoot.has(d)).toBe(true);
  });
});
