/**
 * N-Triples bodies read on the body thread (server/body-thread.ts, body-worker.ts bundled as in
 * dist/) give exactly what the inline reading gives: the same statements, the same hand-over to n3
 * and the same UTF-8 errors, over hand-written documents and the W3C suites fed in pieces; a thread
 * that dies leaves its readings to finish inline.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyRows } from '../../src/core/transact/txn-request.js';
import { quadsOfRows } from '../../src/core/transact/key-rows.js';
import { encodeTxnBlob, Utf8Text } from '../../src/core/commit/txn-blob.js';
import { termKey, type Term } from '../../src/core/rdf/terms.js';
import { BodyThreads, inlineReading, type NTriplesReading } from '../../src/server/body-thread.js';
import { bundleForNode } from '../support/bundle.js';
import { iriOf, loadManifest, readW3c, w3cAvailable } from '../w3c/manifest.js';

const ROOT = join(import.meta.dirname, '..', '..');
let work: string;
let thread: BodyThreads;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'ledgraph-body-thread-'));
  const file = join(work, 'body-worker.js');
  await bundleForNode(join(ROOT, 'src/server/body-worker.ts'), file);
  thread = new BodyThreads(pathToFileURL(file));
});
afterAll(async () => {
  await thread.terminate();
  await rm(work, { recursive: true, force: true });
});

const lines = (rows: KeyRows | null) => rows && quadsOfRows(rows).map((q) => [q.subject, q.predicate, q.object].map((t) => termKey(t as Term)).join(' '));

/** A reading fed `size` bytes at a time: its statements, null (n3's), or the error thrown. */
async function read(r: NTriplesReading, bytes: Uint8Array, size: number): Promise<string[] | null | string> {
  try {
    for (let at = 0; at < bytes.length; at += size) {
      if (!r.feed(bytes.subarray(at, at + size))) { r.drop(); return null; }
      // Let the thread's answers arrive between pieces, as between socket reads.
      if ((at / size) % 7 === 0) await new Promise((ok) => setImmediate(ok));
    }
    return lines(await r.end(bytes));
  } catch (e) {
    r.drop();
    return (e as Error).message;
  }
}

async function same(bytes: Uint8Array): Promise<void> {
  for (const size of [bytes.length + 1, 4096, 97, 5]) {
    expect(await read(thread.reading(), bytes, size)).toEqual(await read(inlineReading(), bytes, size));
  }
}

const enc = (s: string) => new TextEncoder().encode(s);

describe('N-Triples bodies on the body thread', () => {
  it('reads what the inline reading reads, hands the same bodies to n3 and refuses the same bytes', async () => {
    const big = Array.from({ length: 20000 }, (_, i) => `<http://a.example/s${i % 700}> <http://a.example/p${i % 9}> "v ${i % 3000} é😀"@en .`).join('\n') + '\n';
    const docs = [
      big,
      '<http://a.example/s> <http://a.example/p> <http://a.example/o> .\n',
      '# c\r\n_:b1 <http://a.example/p> _:b2 . # t\n<http://a.example/s> <http://a.example/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .',
      '',
      big + '@prefix ex: <http://a.example/> .\n',
      '<http://a.example/s> <http://a.example/p> "x" .\r<http://a.example/s> <http://a.example/p> "2" .',
      '<s> <p> <o> .\n',
    ];
    for (const d of docs) await same(enc(d));
    const ok = enc('<http://a.example/s> <http://a.example/p> "é€😀" .\n');
    await same(new Uint8Array([...ok.subarray(0, 44), 0xff, ...ok.subarray(44)]));
    await same(new Uint8Array([...ok, 0xf0, 0x9f]));
    expect(await read(thread.reading(), enc(big), 4096)).toHaveLength(20000);
    // The thread escapes the text for the transaction blob: the blob's bytes are those of the text.
    for (const text of [big, '\uFEFF' + big, '<http://a.example/s> <http://a.example/p> "raw \u0001\t\u001f, escaped \\t \\" \\\\ é" .\r\n'.repeat(300)]) {
      const bytes = enc(text);
      const r = thread.reading();
      for (let at = 0; at < bytes.length; at += 1000) expect(r.feed(bytes.subarray(at, at + 1000))).toBe(true);
      expect(await r.end(bytes)).not.toBeNull();
      const blob = { type: 'application/n-triples', identity: null, jws: null };
      expect(Buffer.from(encodeTxnBlob({ ...blob, body: new Utf8Text(bytes, r.escaped()) }))).toEqual(Buffer.from(encodeTxnBlob({ ...blob, body: new TextDecoder().decode(bytes) })));
      expect(r.escaped()).not.toBeNull();
    }
  });

  it.skipIf(!w3cAvailable())('agrees with the inline reading on every W3C N-Triples, N-Quads and Turtle document', async () => {
    const tests = ['rdf-n-triples', 'rdf-n-quads', 'rdf-turtle'].flatMap((f) => loadManifest(iriOf(`rdf11/${f}/manifest.ttl`)));
    for (const t of tests) {
      if (!t.action) continue;
      const bytes = enc(readW3c(t.action));
      expect(await read(thread.reading(), bytes, 13)).toEqual(await read(inlineReading(), bytes, 13));
    }
  });

  it('reads several bodies at once, interleaved, each as alone', async () => {
    const docs = [0, 1, 2].map((k) => enc(Array.from({ length: 8000 }, (_, i) => `<http://a.example/s${k}-${i % 300}> <http://a.example/p${i % 5}> "${k} ${i}" .`).join('\n')));
    const readings = docs.map(() => thread.reading());
    for (let at = 0; at < docs[0]!.length; at += 50_000) {
      for (let k = 0; k < docs.length; k++) expect(readings[k]!.feed(docs[k]!.subarray(at, at + 50_000))).toBe(true);
      await new Promise((ok) => setImmediate(ok));
    }
    const got = await Promise.all(readings.map((r, k) => r.end(docs[k]!)));
    for (let k = 0; k < docs.length; k++) expect(lines(got[k]!)).toEqual(await read(inlineReading(), docs[k]!, 1 << 20));
  });

  it('gives the keys, columns and escaped text of the inline reading for bodies of many pieces, on one thread or two', async () => {
    const one = new BodyThreads(pathToFileURL(join(work, 'body-worker.js')), null, 1);
    // Threads handed one piece at a time: the pieces held meanwhile are read by the main thread after the last byte.
    const held = new BodyThreads(pathToFileURL(join(work, 'body-worker.js')), null, 2, 1);
    try {
      const text = '\uFEFF' + Array.from({ length: 60000 }, (_, i) => `<http://a.example/s${i % 900}> <http://a.example/p${i % 11}> "v ${i % 5000} é😀 \\" \u0001"@en .${i % 5 ? '\n' : '\r\n'}`).join('') + '_:b1 <http://a.example/p> _:b2 .';
      const bytes = enc(text);
      const inline = inlineReading();
      for (let at = 0; at < bytes.length; at += 65536) inline.feed(bytes.subarray(at, at + 65536));
      const want = (await inline.end(bytes))!;
      const blob = { type: 'application/n-triples', identity: null, jws: null };
      const wantBlob = Buffer.from(encodeTxnBlob({ ...blob, body: new TextDecoder().decode(bytes) }));
      for (const [threads, size] of [[thread, 65536], [thread, 65537], [thread, 4093], [one, 65536], [thread, bytes.length], [held, 65536], [held, bytes.length]] as const) {
        const r = threads.reading();
        for (let at = 0; at < bytes.length; at += size) {
          expect(r.feed(bytes.subarray(at, at + size))).toBe(true);
          if ((at / size) % 3 === 0) await new Promise((ok) => setImmediate(ok));
        }
        const got = (await r.end(bytes))!;
        expect(got.keys).toEqual(want.keys);
        expect(got.n).toBe(want.n);
        const bytesOf = (a: Int32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
        for (const c of ['s', 'p', 'o'] as const) expect(Buffer.compare(bytesOf(got[c]), bytesOf(want[c]))).toBe(0);
        expect(Buffer.compare(Buffer.from(encodeTxnBlob({ ...blob, body: new Utf8Text(bytes, r.escaped()) })), wantBlob)).toBe(0);
      }
      // A line that is not plain N-Triples in a late piece hands the whole body to n3; bytes that are not UTF-8 there are the same 400.
      const late = enc(text + '\n@prefix ex: <http://a.example/> .\n');
      expect(await read(thread.reading(), late, 65536)).toBeNull();
      expect(await read(one.reading(), late, 65536)).toBeNull();
      expect(await read(held.reading(), late, 65536)).toBeNull();
      const cutUtf8 = bytes.slice(0, bytes.length - 40);
      cutUtf8[cutUtf8.length - 1] = 0xf0;
      for (const size of [65536, 16381]) expect(await read(thread.reading(), cutUtf8, size)).toBe(await read(inlineReading(), cutUtf8, size));
      expect(await read(thread.reading(), cutUtf8, 65536)).toBe('the request body is not valid UTF-8');
    } finally {
      await one.terminate();
      await held.terminate();
    }
  });

  it('finishes a reading inline when a thread dies while its pieces are read', async () => {
    const own = new BodyThreads(pathToFileURL(join(work, 'body-worker.js')));
    const bytes = enc('<http://a.example/s> <http://a.example/p> "x" .\n'.repeat(100000));
    const r = own.reading();
    expect(r.feed(bytes)).toBe(true);
    const ended = r.end(bytes);
    await own.terminate();
    expect(await ended).toMatchObject({ n: 100000 });
    expect(r.escaped()).toBeNull();
  });

  it('finishes a reading inline when the thread has died', async () => {
    const own = new BodyThreads(pathToFileURL(join(work, 'body-worker.js')));
    const bytes = enc('<http://a.example/s> <http://a.example/p> "x" .\n'.repeat(50000));
    const r = own.reading();
    expect(r.feed(bytes.subarray(0, 1 << 21))).toBe(true);
    await own.terminate();
    expect(r.feed(bytes.subarray(1 << 21))).toBe(true);
    expect(await r.end(bytes)).toMatchObject({ n: 50000 });
    expect(await read(own.reading(), bytes, 1 << 20)).toEqual(await read(inlineReading(), bytes, 1 << 20));
  });
});
