/**
 * POST /insert of large N-Triples bodies read on the reading threads (server/body-thread.ts with the
 * bundled worker, as dist/ runs it) commits exactly what the inline reading commits: the same
 * receipt, flakes in the same order, the same transaction blob and the same dictionary, key by key;
 * a body with a line that is not plain N-Triples late in it gets n3's answer either way.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CID } from 'multiformats/cid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCommit } from '../../src/core/commit/commit-codec.js';
import { decodeTxnBlob } from '../../src/core/commit/txn-blob.js';
import { setBodyThreadEnabled, setBodyWorker } from '../../src/server/body-thread.js';
import { bundleForNode } from '../support/bundle.js';
import { createLedger, startTestServer, type TestServer } from '../support/server.js';

const ROOT = join(import.meta.dirname, '..', '..');
let srv: TestServer;
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'ledgraph-insert-threads-'));
  const file = join(work, 'body-worker.js');
  await bundleForNode(join(ROOT, 'src/server/body-worker.ts'), file);
  setBodyWorker(pathToFileURL(file));
  srv = await startTestServer({ config: { reindexMaxBytes: 256 * 1024 * 1024, bodyLimit: 64 * 1024 * 1024 } });
}, 60_000);
afterAll(async () => {
  setBodyThreadEnabled(true);
  await srv.close();
  await rm(work, { recursive: true, force: true });
});

/** A body of many pieces: a byte-order mark, multi-byte characters, blank nodes across the body, long literals, two spellings of one IRI. */
function body(n: number): string {
  const long = 'lang '.repeat(120);
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    lines.push(`<http://ex.org/s${i % 4000}> <http://ex.org/p${i % 7}> "wert ${i % 9000} — ünïcödé 🙂" .`);
    if (i % 10 === 0) lines.push(`_:b${i % 301} <http://ex.org/knows> _:b${(i * 7) % 299} .`);
    if (i % 97 === 0) lines.push(`<http://ex.org/\\u0073${i % 4000}> <http://ex.org/long> "${long}${i % 3}" .`);
  }
  return '\uFEFF' + lines.join('\r\n') + '\n';
}

const post = (path: string, bytes: Uint8Array, size: number) => {
  let at = 0;
  // Chunked, of undeclared length (read on the threads whatever its size).
  const stream = new ReadableStream<Uint8Array>({
    pull(ctl) {
      if (at >= bytes.length) { ctl.close(); return; }
      ctl.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
  return fetch(`${srv.api}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/n-triples' }, body: stream, duplex: 'half' } as RequestInit);
};

/** Insert `bytes` into a new ledger, on the threads or inline: the receipt, the commit's flakes and blob, and the dictionary's keys. */
async function insert(ledger: string, bytes: Uint8Array, threads: boolean) {
  await createLedger(srv, ledger);
  setBodyThreadEnabled(threads);
  const res = await post(`/insert/${ledger}`, bytes, 65_536);
  const receipt = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200) return { status: res.status, receipt };
  const l = await srv.conn.ledger(ledger);
  const commit = decodeCommit(await srv.conn.content.get(CID.parse(String(receipt.commit_id))), l.ns);
  const blob = decodeTxnBlob(await srv.conn.content.get(commit.txn!));
  // Commit ids and times (the commit's own metadata) differ between two ledgers; they are blanked, not dropped, so every id still lines up.
  const keys = Array.from({ length: l.dict.size }, (_, id) => l.dict.key(id).replace(/bagayb[a-z0-9]+/g, 'CID').replace(/dateTime\|\|.*$/, 'dateTime||TIME'));
  // What names the ledger or the moment differs between two ledgers; the rest must not.
  const { t, flakes_added, flakes_retracted, 'tx-id': txId } = receipt;
  return { status: res.status, receipt: { t, flakes_added, flakes_retracted, txId }, flakes: commit.flakes, blob, keys };
}

describe('POST /insert on the reading threads', () => {
  it('commits what the inline reading commits: receipt, flakes in order, blob and dictionary', async () => {
    const text = body(40_000);
    const bytes = new TextEncoder().encode(text);
    expect(bytes.length).toBeGreaterThan(3 << 20);
    const threaded = await insert('thr', bytes, true);
    const inline = await insert('inl', bytes, false);
    expect(threaded.status).toBe(200);
    expect(threaded.receipt).toEqual(inline.receipt);
    expect(threaded.flakes).toEqual(inline.flakes);
    expect(threaded.blob).toEqual(inline.blob);
    expect(threaded.blob!.body).toBe(text.slice(1));
    expect(threaded.keys).toEqual(inline.keys);
  }, 120_000);

  it('hands a body with a late line that is not plain N-Triples to n3, as inline', async () => {
    const bytes = new TextEncoder().encode(body(20_000) + '<http://ex.org/a> <http://ex.org/b> <c> .\n');
    const threaded = await insert('thr-bad', bytes, true);
    const inline = await insert('inl-bad', bytes, false);
    expect(threaded.status).toBe(400);
    expect(threaded).toEqual(inline);
    const turtle = new TextEncoder().encode(body(20_000) + '<http://ex.org/a> <http://ex.org/b> 1 .\n');
    const t1 = await insert('thr-ttl', turtle, true);
    const t2 = await insert('inl-ttl', turtle, false);
    expect(t1.status).toBe(200);
    expect(t1).toEqual(t2);
  }, 120_000);
});
