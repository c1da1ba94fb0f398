import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'rolldown';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Codec, cidOf } from '../../src/core/commit/cid.js';
import type { NsChange } from '../../src/core/store.js';
import { FileContentStore } from '../../src/storage/file-store.js';
import { decodeLedgerId, encodeLedgerId, FileNameService } from '../../src/storage/file-ns.js';
import { openFileStorage } from '../../src/storage/index.js';
import { rec, rejection, storageContract } from './contract.js';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'ledgraph-file-store-'));
  dirs.push(d);
  return d;
}
afterAll(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Every file under a directory, relative, sorted. */
async function tree(dir: string): Promise<string[]> {
  return ((await readdir(dir, { recursive: true, withFileTypes: true })) as { name: string; parentPath?: string; path?: string; isFile(): boolean }[])
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? e.path ?? '', e.name).slice(dir.length + 1))
    .sort();
}

storageContract('file', async () => {
  const root = await tempDir();
  const content = await FileContentStore.open(root);
  const ns = await FileNameService.open(root);
  return {
    content, ns,
    tamper: async (cid, bytes) => { await writeFile(content.pathOf(cid), bytes); },
    settle: () => ns.refresh(),
    cleanup: async () => {},
  };
});

describe('file storage specifics', () => {
  const open: FileNameService[] = [];
  afterEach(async () => { for (const ns of open.splice(0)) await ns.close(); });
  const openNs = async (root: string, opts = {}) => {
    const ns = await FileNameService.open(root, opts);
    open.push(ns);
    return ns;
  };

  it('deflates an object file when that pays, keeps small or incompressible objects as they are, and reads both forms', async () => {
    const root = await tempDir();
    const content = await FileContentStore.open(root);
    const text = enc.encode('<http://example.org/s> <http://example.org/p> "a long enough literal" .\n'.repeat(200));
    const cid = await content.put(Codec.txn, text);
    const file = await readFile(content.pathOf(cid));
    expect([...file.subarray(0, 4)]).toEqual([0x4c, 0x47, 0x5a, 0x01]);
    expect(file.length).toBeLessThan(text.length / 8);
    expect(dec.decode(await content.get(cid))).toBe(dec.decode(text));
    // Small: stored as is.
    const small = enc.encode('tiny object');
    const smallCid = await content.put(Codec.txn, small);
    expect(dec.decode(await readFile(content.pathOf(smallCid)))).toBe('tiny object');
    // Random bytes do not deflate by an eighth: stored as is.
    const noise = new Uint8Array(4096);
    crypto.getRandomValues(noise);
    const noiseCid = await content.put(Codec.indexLeaf, noise);
    expect(new Uint8Array(await readFile(content.pathOf(noiseCid)))).toEqual(noise);
    // A raw object that starts with the marker is itself, not an inflated one.
    const lookalike = new Uint8Array([0x4c, 0x47, 0x5a, 0x01, ...noise.subarray(0, 1000)]);
    const lookCid = await content.put(Codec.txn, lookalike);
    expect(await content.get(lookCid)).toEqual(lookalike);
    // 'fast' (the default) leaves commits and dictionary pages raw; 'all' deflates them too.
    const commitText = enc.encode('a commit-like text '.repeat(100));
    const commitCid = await content.put(Codec.commit, commitText);
    expect((await readFile(content.pathOf(commitCid))).length).toBe(commitText.length);
    const all = await FileContentStore.open(await tempDir(), { compress: 'all' });
    const commitAll = await all.put(Codec.commit, commitText);
    expect((await readFile(all.pathOf(commitAll))).length).toBeLessThan(commitText.length / 8);
    expect(dec.decode(await all.get(commitAll))).toBe(dec.decode(commitText));
    // With compression off the same store reads old deflated files and writes raw ones.
    const plain = await FileContentStore.open(root, { compress: 'none' });
    expect(dec.decode(await plain.get(cid))).toBe(dec.decode(text));
    const other = enc.encode('x'.repeat(5000));
    const otherCid = await plain.put(Codec.indexLeaf, other);
    expect((await readFile(plain.pathOf(otherCid))).length).toBe(5000);
    expect(dec.decode(await content.get(otherCid))).toBe('x'.repeat(5000));
    // A damaged deflated file is refused like any corrupt object.
    const bad = new Uint8Array(file);
    bad[bad.length - 5]! ^= 0xff;
    await writeFile(content.pathOf(cid), bad);
    await expect(content.get(cid)).rejects.toMatchObject({ status: 502 });
  });

  it('lays objects out by the last two CID characters and records by encoded id, leaving no temp or lock files', async () => {
    const root = await tempDir();
    const { content, ns } = await openFileStorage(root);
    const cid = await content.put(Codec.commit, enc.encode('layout'));
    const s = cid.toString();
    await ns.compareAndSet('org/hr:main', null, rec('org/hr:main', { commit_head_id: s, commit_t: 1 }));
    expect(content.pathOf(cid)).toBe(join(root, 'objects', s.slice(-2), s));
    expect(await tree(root)).toEqual([join('ns', 'org%2Fhr%3Amain.json'), join('objects', s.slice(-2), s)]);
    expect(JSON.parse(await readFile(join(root, 'ns', 'org%2Fhr%3Amain.json'), 'utf8'))).toEqual(
      rec('org/hr:main', { commit_head_id: s, commit_t: 1 }));
    await ns.close();
    await content.close();
  });

  it('a staged record is set by rename when its expected version holds, and leaves no temp file either way', async () => {
    const root = await tempDir();
    const { content, ns } = await openFileStorage(root);
    const file = join(root, 'ns', 'hr%3Amain.json');
    await ns.compareAndSet('hr:main', null, rec('hr:main'));
    const one = rec('hr:main', { commit_head_id: 'c1', commit_t: 1 });
    // Refused: the stored record is not the expected one; nothing changes, the staged copy goes.
    expect(await ns.compareAndSet('hr:main', rec('hr:main', { commit_t: 5 }), one, ns.stage!('hr:main', one))).toBe(false);
    expect(await ns.get('hr:main')).toEqual(rec('hr:main'));
    // Set: the record is replaced, and a second stage on top of it is set too.
    expect(await ns.compareAndSet('hr:main', rec('hr:main'), one, ns.stage!('hr:main', one))).toBe(true);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(one);
    const two = rec('hr:main', { commit_head_id: 'c2', commit_t: 2 });
    const staged = ns.stage!('hr:main', two);
    expect(staged.record).toEqual(two);
    expect(await ns.compareAndSet('hr:main', one, two, staged)).toBe(true);
    expect(await ns.get('hr:main')).toEqual(two);
    staged.discard(); // taken: nothing happens
    // A staged record for another record is not used: the record set is the one asked for.
    const three = rec('hr:main', { commit_head_id: 'c3', commit_t: 3 });
    expect(await ns.compareAndSet('hr:main', two, three, ns.stage!('hr:main', rec('hr:main', { commit_head_id: 'cX', commit_t: 3 })))).toBe(true);
    expect(await ns.get('hr:main')).toEqual(three);
    // Discarded: never visible.
    ns.stage!('hr:main', rec('hr:main', { commit_head_id: 'c4', commit_t: 4 })).discard();
    await new Promise((r) => setTimeout(r, 200));
    expect(await ns.get('hr:main')).toEqual(three);
    expect(await tree(root)).toEqual([join('ns', 'hr%3Amain.json')]);
    await ns.close();
    await content.close();
  });

  it('a new instance on the same directory sees the same objects and records', async () => {
    const root = await tempDir();
    const first = await openFileStorage(root);
    const cid = await first.content.put(Codec.indexLeaf, enc.encode('leaf'));
    await first.ns.compareAndSet('hr:main', null, rec('hr:main', { index_head_id: cid.toString(), index_t: 1 }));
    await first.ns.compareAndSet('hr:dev', null, rec('hr:dev'));
    await first.ns.close();
    await first.content.close();

    const again = await openFileStorage(root);
    expect(dec.decode(await again.content.get(cid))).toBe('leaf');
    expect((await again.ns.list()).map((r) => r.ledger_id)).toEqual(['hr:dev', 'hr:main']);
    expect(await again.ns.get('hr:main')).toEqual(rec('hr:main', { index_head_id: cid.toString(), index_t: 1 }));
    await again.ns.close();
  });

  it('putting an object again repairs a truncated file', async () => {
    const content = await FileContentStore.open(await tempDir());
    const bytes = enc.encode('will be truncated');
    const cid = await content.put(Codec.txn, bytes);
    await writeFile(content.pathOf(cid), bytes.subarray(0, 4));
    expect((await rejection(content.get(cid))).status).toBe(502);
    await content.put(Codec.txn, bytes);
    expect(dec.decode(await content.get(cid))).toBe('will be truncated');
  });

  it('putting an object again repairs a same-size corrupt file and keeps an intact one', async () => {
    const content = await FileContentStore.open(await tempDir());
    const bytes = enc.encode('same size, other bytes');
    const cid = await content.put(Codec.txn, bytes);
    const path = content.pathOf(cid);
    await writeFile(path, enc.encode('SAME SIZE, OTHER BYTES'));
    expect((await rejection(content.get(cid))).status).toBe(502);
    await content.put(Codec.txn, bytes);
    expect(dec.decode(await content.get(cid))).toBe('same size, other bytes');
    const before = await stat(path);
    await content.put(Codec.txn, bytes);
    expect((await stat(path)).ino).toBe(before.ino); // intact: left in place, not rewritten
  });

  it('concurrent puts of one object all succeed and leave one intact file', async () => {
    const content = await FileContentStore.open(await tempDir());
    const bytes = new Uint8Array(200_000).map((_, i) => i % 251);
    const cids = await Promise.all(Array.from({ length: 8 }, () => content.put(Codec.indexLeaf, bytes)));
    expect(new Set(cids.map(String)).size).toBe(1);
    expect(await content.get(cids[0]!)).toEqual(bytes);
    expect((await readdir(join(content.pathOf(cids[0]!), '..'))).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('works in every durability mode', async () => {
    for (const durable of ['all', 'commits', 'none'] as const) {
      const root = await tempDir();
      const { content, ns } = await openFileStorage(root, { durable });
      const leaf = await content.put(Codec.indexLeaf, enc.encode(`leaf ${durable}`));
      const commit = await content.put(Codec.commit, enc.encode(`commit ${durable}`));
      expect(await ns.compareAndSet('hr:main', null, rec('hr:main', { commit_head_id: commit.toString(), commit_t: 1 }))).toBe(true);
      await content.close();
      await ns.close();
      const again = await openFileStorage(root);
      expect(dec.decode(await again.content.get(leaf))).toBe(`leaf ${durable}`);
      expect((await again.ns.get('hr:main'))!.commit_head_id).toBe(commit.toString());
    }
  });

  it('puts a group of objects at once, refusing the whole group when one CID does not match', async () => {
    const root = await tempDir();
    const content = await FileContentStore.open(root);
    const objects = await Promise.all(Array.from({ length: 40 }, async (_, i) => {
      const bytes = enc.encode(`object ${i}`);
      return { cid: await cidOf(i % 2 ? Codec.commit : Codec.txn, bytes), bytes };
    }));
    const bad = [...objects.slice(0, 3), { cid: objects[3]!.cid, bytes: enc.encode('not object 3') }];
    expect((await rejection(content.putAllWithCid(bad))).status).toBe(502);
    expect(await tree(join(root, 'objects'))).toEqual([]);
    await content.putAllWithCid(objects);
    for (const o of objects) expect(dec.decode(await content.get(o.cid))).toBe(dec.decode(o.bytes));
    expect((await tree(join(root, 'objects'))).length).toBe(40);
  });

  it('prepares announced bytes without writing anything, and their put writes the same file as an unannounced put', async () => {
    const root = await tempDir();
    const content = await FileContentStore.open(root);
    const text = enc.encode('<http://example.org/s> <http://example.org/p> "announced before it is put" .\n'.repeat(300));
    content.prepare(Codec.txn, text);
    content.prepare(Codec.commit, text); // a codec 'fast' leaves raw: nothing to start
    await new Promise((ok) => setTimeout(ok, 20));
    expect(await tree(join(root, 'objects'))).toEqual([]);
    const cid = await cidOf(Codec.txn, text);
    await content.putAllWithCid([{ cid, bytes: text }], { hashed: true });
    const prepared = new Uint8Array(await readFile(content.pathOf(cid)));
    expect([...prepared.subarray(0, 4)]).toEqual([0x4c, 0x47, 0x5a, 0x01]);
    const other = await FileContentStore.open(await tempDir());
    await other.put(Codec.txn, text);
    expect(prepared).toEqual(new Uint8Array(await readFile(other.pathOf(cid))));
    expect(dec.decode(await content.get(cid))).toBe(dec.decode(text));
  });

  it('takes a group whose CIDs the caller hashed itself without hashing it again; other groups are still checked', async () => {
    const root = await tempDir();
    const content = await FileContentStore.open(root);
    const bytes = enc.encode('a commit the pipeline hashed');
    const cid = await cidOf(Codec.commit, bytes);
    await content.putAllWithCid([{ cid, bytes }], { hashed: true });
    expect(dec.decode(await content.get(cid))).toBe('a commit the pipeline hashed');
    // Proof it was not hashed: a mismatched pair is written as given (a read then refuses it), while
    // the same pair without the option is refused before anything is written.
    const other = enc.encode('other bytes');
    const otherCid = await cidOf(Codec.txn, enc.encode('not these'));
    expect((await rejection(content.putAllWithCid([{ cid: otherCid, bytes: other }]))).status).toBe(502);
    expect(await content.has(otherCid)).toBe(false);
    await content.putAllWithCid([{ cid: otherCid, bytes: other }], { hashed: true });
    expect(await content.has(otherCid)).toBe(true);
    expect((await rejection(content.get(otherCid))).status).toBe(502);
  });

  it('encodes ledger ids into safe, reversible file names', () => {
    for (const id of ['hr:main', 'a/b/c:dev', '..:main', '.hidden:x', 'x*y(z)~!:\'q\'', 'ünï cödé:br/anch', '%41:main']) {
      const e = encodeLedgerId(id);
      expect(e).toMatch(/^[A-Za-z0-9_%-]+$/);
      expect(decodeLedgerId(e)).toBe(id);
    }
    expect(encodeLedgerId('..:main')).toBe('%2E%2E%3Amain');
    expect(decodeLedgerId('%E0%A4%A')).toBeNull();
    const err = (() => { try { encodeLedgerId('bad\uD800:main'); } catch (e) { return e as { status: number }; } })();
    expect(err?.status).toBe(400);
  });

  it('ignores files in ns/ that are not records it wrote', async () => {
    const root = await tempDir();
    const ns = await openNs(root);
    const heard: NsChange[] = [];
    const off = ns.subscribe((c) => heard.push(c));
    await ns.compareAndSet('hr:main', null, rec('hr:main'));
    await writeFile(join(root, 'ns', 'notes.txt'), 'hello');
    await writeFile(join(root, 'ns', 'x.y.json'), '{}');
    await writeFile(join(root, 'ns', '%FF.json'), '{}');
    await ns.refresh();
    expect((await ns.list()).map((r) => r.ledger_id)).toEqual(['hr:main']);
    expect(heard.map((c) => c.kind)).toEqual(['create']);
    off();
  });

  it('notices records changed, created and deleted by another instance', async () => {
    const root = await tempDir();
    const watcher = await openNs(root);
    const writer = await openNs(root);
    await writer.compareAndSet('hr:main', null, rec('hr:main')); // before anyone subscribed
    const heard: NsChange[] = [];
    const off = watcher.subscribe((c) => heard.push(c));
    await watcher.refresh();
    expect(heard).toEqual([{ ledger_id: 'hr:main', kind: 'update', record: rec('hr:main') }]);

    const r1 = rec('hr:main', { commit_head_id: 'bag1', commit_t: 1 });
    await writer.compareAndSet('hr:main', rec('hr:main'), r1);
    await watcher.refresh();
    await writer.compareAndSet('a/b:x', null, rec('a/b:x'));
    await watcher.refresh();
    await writer.delete('hr:main');
    await watcher.refresh();
    await watcher.refresh(); // nothing new
    expect(heard.slice(1)).toEqual([
      { ledger_id: 'hr:main', kind: 'update', record: r1 },
      { ledger_id: 'a/b:x', kind: 'update', record: rec('a/b:x') },
      { ledger_id: 'hr:main', kind: 'delete', record: null },
    ]);
    off();
  });

  it('the watcher or poll delivers external changes without being asked', async () => {
    const root = await tempDir();
    const watcher = await openNs(root, { pollMs: 50 });
    const writer = await openNs(root);
    const heard: NsChange[] = [];
    const off = watcher.subscribe((c) => heard.push(c));
    await writer.compareAndSet('hr:main', null, rec('hr:main', { commit_t: 5 }));
    await expect.poll(() => heard.length, { timeout: 5000 }).toBe(1);
    expect(heard[0]).toEqual({ ledger_id: 'hr:main', kind: 'update', record: rec('hr:main', { commit_t: 5 }) });
    off();
  });

  describe('lock files', () => {
    const deadPid = () => new Promise<number>((resolve) => {
      const child = spawn(process.execPath, ['-e', '']);
      child.on('exit', () => resolve(child.pid!));
    });

    it('breaks a lock whose process is dead', async () => {
      const root = await tempDir();
      const ns = await openNs(root, { lockTimeoutMs: 5000 });
      const lock = join(root, 'ns', 'hr%3Amain.lock');
      await writeFile(lock, JSON.stringify({ pid: await deadPid(), host: (await import('node:os')).hostname(), token: 'x', at: Date.now() }));
      expect(await ns.compareAndSet('hr:main', null, rec('hr:main'))).toBe(true);
      expect(await tree(join(root, 'ns'))).toEqual(['hr%3Amain.json']);
    });

    it('breaks a lock older than the stale limit even when its holder looks alive', async () => {
      const root = await tempDir();
      const ns = await openNs(root, { lockStaleMs: 10_000, lockTimeoutMs: 5000 });
      const lock = join(root, 'ns', 'hr%3Amain.lock');
      await writeFile(lock, JSON.stringify({ pid: process.pid, host: 'some-other-host', token: 'y', at: 0 }));
      const old = new Date(Date.now() - 60_000);
      await utimes(lock, old, old);
      expect(await ns.compareAndSet('hr:main', null, rec('hr:main'))).toBe(true);
      expect(await tree(join(root, 'ns'))).toEqual(['hr%3Amain.json']);
    });

    it('waits for a live, fresh lock and gives up with a 502, leaving that lock alone', async () => {
      const root = await tempDir();
      const ns = await openNs(root, { lockTimeoutMs: 200 });
      const lock = join(root, 'ns', 'hr%3Amain.lock');
      const body = JSON.stringify({ pid: process.pid, host: (await import('node:os')).hostname(), token: 'live', at: Date.now() });
      await writeFile(lock, body);
      const err = await rejection(ns.compareAndSet('hr:main', null, rec('hr:main')));
      expect(err.status).toBe(502);
      expect(err.message).toContain('timed out waiting for nameservice lock');
      expect(await readFile(lock, 'utf8')).toBe(body);
      expect(await ns.get('hr:main')).toBeNull();
      await rm(lock);
      expect(await ns.compareAndSet('hr:main', null, rec('hr:main'))).toBe(true);
    });
  });

  describe('two processes on one directory', () => {
    let work: string;
    beforeAll(async () => {
      // Child processes run the real module, bundled from source (Node 20 cannot load .ts itself).
      work = await tempDir();
      await build({
        input: join(import.meta.dirname, '../../src/storage/file-ns.ts'),
        platform: 'node',
        logLevel: 'silent',
        resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
        output: { file: join(work, 'file-ns.mjs'), format: 'esm' },
      });
      await writeFile(join(work, 'worker.mjs'), `
        import { FileNameService } from './file-ns.mjs';
        const [dir, mode, n] = process.argv.slice(2);
        const ns = await FileNameService.open(dir);
        if (mode === 'cas') {
          console.log('ready');
          let wins = 0, losses = 0;
          for (let i = 0; i < Number(n); i++) {
            const cur = await ns.get('hr:main');
            if (await ns.compareAndSet('hr:main', cur, { ...cur, commit_t: cur.commit_t + 1 })) wins++; else losses++;
          }
          console.log(JSON.stringify({ wins, losses }));
          await ns.close();
        } else {
          const off = ns.subscribe(() => {});
          await ns.compareAndSet('hr:main', null, { ledger_id: 'hr:main', name: 'hr', branch: 'main', commit_head_id: null,
            commit_t: 0, index_head_id: null, index_t: 0, default_context: null, config_id: null, retracted: false });
          await new Promise((r) => setTimeout(r, 300));
          off();
          console.log('unsubscribed'); // no close(): unsubscribing alone must let the process exit
        }
      `);
    });

    /** Run the worker; resolves with its stdout lines once it exits with status 0. */
    const runWorker = (args: string[], onLine?: (line: string) => void) => new Promise<string[]>((resolve, reject) => {
      const child = spawn(process.execPath, [join(work, 'worker.mjs'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      const lines: string[] = [];
      let out = '', errText = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        let i;
        while ((i = out.indexOf('\n')) >= 0) {
          const line = out.slice(0, i);
          out = out.slice(i + 1);
          lines.push(line);
          onLine?.(line);
        }
      });
      child.stderr.on('data', (d: Buffer) => { errText += d.toString(); });
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve(lines) : reject(new Error(`worker exited ${code}: ${errText}`))));
    });

    it('compare-and-set increments from parent and two children never lose an update', async () => {
      const root = await tempDir();
      const ns = await openNs(root);
      await ns.compareAndSet('hr:main', null, rec('hr:main'));
      const perProcess = 150;
      let ready = 0;
      let go!: () => void;
      const started = new Promise<void>((r) => { go = r; });
      const children = [0, 1].map(() => runWorker([root, 'cas', String(perProcess)], (l) => { if (l === 'ready' && ++ready === 2) go(); }));
      await started;
      let wins = 0, losses = 0;
      for (let i = 0; i < perProcess; i++) {
        const cur = (await ns.get('hr:main'))!;
        if (await ns.compareAndSet('hr:main', cur, { ...cur, commit_t: cur.commit_t + 1 })) wins++; else losses++;
      }
      const results = (await Promise.all(children)).map((lines) => JSON.parse(lines[1]!) as { wins: number; losses: number });
      const totalWins = wins + results[0]!.wins + results[1]!.wins;
      expect(wins + losses).toBe(perProcess);
      for (const r of results) expect(r.wins + r.losses).toBe(perProcess);
      expect((await ns.get('hr:main'))!.commit_t).toBe(totalWins);
      expect(await tree(join(root, 'ns'))).toEqual(['hr%3Amain.json']);
    });

    it('a process exits on its own once its last subscriber unsubscribes', async () => {
      const root = await tempDir();
      const lines = await runWorker([root, 'subscribe']);
      expect(lines).toEqual(['unsubscribed']);
      expect((await stat(join(root, 'ns', 'hr%3Amain.json'))).isFile()).toBe(true);
    });
  });
});
