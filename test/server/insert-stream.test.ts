/**
 * POST /insert and the graph store with large Turtle / N-Triples bodies sent in chunks: parsed
 * while they arrive (server/rdf-body.ts), with the exact receipt, transaction blob and data of a
 * whole-body parse; errors still name line and column, and the body limit still holds.
 */
import { createHash } from 'node:crypto';
import { CID } from 'multiformats/cid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCommit } from '../../src/core/commit/commit-codec.js';
import { decodeTxnBlob } from '../../src/core/commit/txn-blob.js';
import { parseRdfTxn } from '../../src/core/transact/parse-rdf.js';
import { createLedger, startTestServer, type TestServer } from '../support/server.js';

let srv: TestServer;
beforeAll(async () => { srv = await startTestServer({ config: { reindexMaxBytes: 64 * 1024 * 1024, bodyLimit: 32 * 1024 * 1024 } }); });
afterAll(async () => { await srv.close(); });

const N = 60_000;
/** N triples with multi-byte characters, as N-Triples text. */
function body(): string {
  const lines: string[] = [];
  for (let i = 0; i < N; i++) lines.push(`<http://ex.org/s${i >> 2}> <http://ex.org/p${i & 3}> "wert ${i} — ünïcödé 🙂" .`);
  return lines.join('\n') + '\n';
}

/** A body as a stream of `size`-byte chunks (split inside multi-byte characters), sent chunked. */
function chunked(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(ctl) {
      if (at >= bytes.length) { ctl.close(); return; }
      ctl.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

const post = (path: string, type: string, b: ReadableStream<Uint8Array> | string) =>
  fetch(`${srv.api}${path}`, { method: 'POST', headers: { 'Content-Type': type }, body: b, duplex: 'half' } as RequestInit);

describe('streamed RDF bodies', () => {
  it('commits a 60,000-triple chunked N-Triples body with the exact receipt and transaction blob', async () => {
    await createLedger(srv, 'big');
    const text = body();
    const bytes = new TextEncoder().encode(text);
    const res = await post('/insert/big', 'application/n-triples', chunked(bytes, 7_777));
    expect(res.status).toBe(200);
    const r = (await res.json()) as Record<string, unknown>;
    expect(r).toMatchObject({ ledger_id: 'big:main', t: 1, flakes_added: N, flakes_retracted: 0 });
    expect(r['tx-id']).toBe(`ledgraph:tx:sha256:${createHash('sha256').update(bytes).digest('hex')}`);
    // The transaction blob records the body text exactly as a whole-body parse stored it.
    const ledger = await srv.conn.ledger('big');
    const commit = decodeCommit(await srv.conn.content.get(CID.parse(String(r.commit_id))), ledger.ns);
    const blob = decodeTxnBlob(await srv.conn.content.get(commit.txn!));
    expect(blob).toEqual({ type: 'application/n-triples', body: text, identity: null, jws: null });
    const q = await fetch(`${srv.api}/query/big`, {
      method: 'POST', headers: { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+json' },
      body: 'SELECT (COUNT(*) AS ?n) ?o { ?s ?p ?o . FILTER(?s = <http://ex.org/s7>) } GROUP BY ?o ORDER BY ?o',
    });
    const rows = ((await q.json()) as { results: { bindings: { o: { value: string } }[] } }).results.bindings.map((b) => b.o.value);
    expect(rows).toEqual(['wert 28 — ünïcödé 🙂', 'wert 29 — ünïcödé 🙂', 'wert 30 — ünïcödé 🙂', 'wert 31 — ünïcödé 🙂']);
  });

  it('streams Turtle into the graph store and names a late syntax error by line and column', async () => {
    await createLedger(srv, 'ttl');
    const ttl = '@prefix ex: <http://ex.org/> .\n' + Array.from({ length: 5000 }, (_, i) => `ex:s${i} ex:p ${i} ; ex:q "q${i}" .`).join('\n') + '\n';
    const res = await post('/data/ttl?graph=http://ex.org/g', 'text/turtle', chunked(new TextEncoder().encode(ttl), 1000));
    expect(res.status).toBe(201);
    expect(res.headers.get('Ledgraph-T')).toBe('1');
    const bad = ttl + 'ex:z ex:p ex:a ex:b .\n';
    const e = await post('/insert/ttl', 'text/turtle', chunked(new TextEncoder().encode(bad), 1000));
    expect(e.status).toBe(400);
    // The message of a whole-body parse, word for word.
    let whole = '';
    try { parseRdfTxn(bad, 'text/turtle', 'insert'); } catch (x) { whole = (x as Error).message; }
    expect(whole).toBe('invalid Turtle: Expected punctuation to follow "http://ex.org/a" (line 5002, column 16)');
    expect(((await e.json()) as { error: string }).error).toBe(whole);
    const utf8 = await post('/insert/ttl', 'text/turtle', chunked(Uint8Array.from([0x3c, 0xff, 0x3e]), 1));
    expect(((await utf8.json()) as { error: string }).error).toBe('the request body is not valid UTF-8');
  });

  it('commits a big insert all or nothing: a bad line 49,999 leaves no commit, a resend of current facts commits nothing', async () => {
    await createLedger(srv, 'atom');
    const lines = Array.from({ length: 50_000 }, (_, i) => `<http://ex.org/a${i >> 1}> <http://ex.org/p${i & 1}> "v${i}" .`);
    const bad = [...lines];
    bad[49_998] = '<http://ex.org/a1> <http://ex.org/p0> "unterminated .';
    const e = await post('/insert/atom', 'application/n-triples', chunked(new TextEncoder().encode(bad.join('\n') + '\n'), 65_536));
    expect(e.status).toBe(400);
    expect(((await e.json()) as { error: string }).error).toMatch(/line 49999/);
    expect((await srv.conn.ledger('atom')).t).toBe(0);
    const count = async () => {
      const q = await fetch(`${srv.api}/query/atom`, {
        method: 'POST', headers: { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+json' }, body: 'SELECT (COUNT(*) AS ?n) { ?s ?p ?o }',
      });
      return Number(((await q.json()) as { results: { bindings: { n: { value: string } }[] } }).results.bindings[0]!.n.value);
    };
    expect(await count()).toBe(0);
    const text = lines.join('\n') + '\n';
    const ok = (await (await post('/insert/atom', 'application/n-triples', text)).json()) as Record<string, unknown>;
    expect(ok).toMatchObject({ t: 1, flakes_added: 50_000 });
    // Every fact already current: no commit, the receipt names the head (as for a small insert).
    const again = (await (await post('/insert/atom', 'application/n-triples', text)).json()) as Record<string, unknown>;
    expect(again).toMatchObject({ t: 1, flakes_added: 0, commit_id: ok.commit_id });
    expect(await count()).toBe(50_000);
  });

  it('still refuses a chunked body past the body limit with 413', async () => {
    await createLedger(srv, 'lim');
    const big = new Uint8Array(33 * 1024 * 1024).fill(0x20);
    const res = await post('/insert/lim', 'application/n-triples', chunked(big, 1 << 20));
    expect(res.status).toBe(413);
    expect((await res.json()) as Record<string, unknown>).toMatchObject({ '@type': 'err:db/PayloadTooLarge' });
    expect((await srv.conn.ledger('lim')).t).toBe(0);
  });
});
