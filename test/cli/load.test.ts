/**
 * `ledgraph load` end to end: the CLI (bundled from source) in child processes on temp storage
 * directories and against a server on a loopback port — every format, gzip, stdin, an existing
 * ledger, time travel to before a load, and a syntax error midway (exit 2, nothing loaded).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/core/ledger/connection.js';
import { runSparql } from '../../src/core/query/sparql-service.js';
import { collect } from '../../src/core/query/results/types.js';
import { openFileStorage } from '../../src/storage/index.js';
import { bundleForNode } from '../support/bundle.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ROOT = join(import.meta.dirname, '..', '..');
let work: string;
let cli: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'ledgraph-load-cli-'));
  cli = join(work, 'cli.mjs');
  await bundleForNode(join(ROOT, 'test/server/cli-child.ts'), cli);
  // Beside the CLI, as in dist/: the load's worker thread (src/server/load-threads.ts finds it there).
  await bundleForNode(join(ROOT, 'src/server/load-worker.ts'), join(work, 'load-worker.js'));
});
afterAll(async () => { await rm(work, { recursive: true, force: true }); });

/** Run the CLI; its exit code, stdout and stderr. */
function run(args: string[], stdin?: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((ok) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: work, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, HOME: work } });
    let out = '', err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => ok({ code, out, err }));
    child.stdin.end(stdin ?? '');
  });
}

function file(name: string, text: string | Buffer): string {
  const p = join(work, name);
  writeFileSync(p, text);
  return p;
}

const EX = 'http://ex.org/';
const NT = `<${EX}a> <${EX}p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .\n<${EX}a> <${EX}name> "A" .\n`;
const NQ = `<${EX}b> <${EX}p> "2"^^<http://www.w3.org/2001/XMLSchema#integer> <${EX}g> .\n`;
const TTL = `@prefix ex: <${EX}> .\nex:c ex:p 3 ; ex:knows [ ex:name "anon" ] .\n`;
const TRIG = `@prefix ex: <${EX}> .\nex:g2 { ex:d ex:p 4 . }\n`;
const JSONLD = JSON.stringify({ '@id': `${EX}e`, [`${EX}p`]: 5 });

/** Every statement of a ledger (at a time) as sorted "s p o [g]" lines. */
async function statements(dir: string, ref: string): Promise<string[]> {
  const conn = new Connection(await openFileStorage(dir));
  try {
    const { result } = await runSparql(conn, 'SELECT ?s ?p ?o ?g { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }', { ledger: ref });
    if (result.type !== 'bindings') throw new Error('bindings');
    const short = (v: string | undefined) => (v === undefined ? '' : v.startsWith(EX) ? v.slice(EX.length) : v.startsWith('lg') ? '_' : v);
    return (await collect(result.rows)).map((r) => ['s', 'p', 'o', 'g'].map((k) => short(r[k]?.value)).join(' ').trim()).sort();
  } finally {
    await conn.close();
  }
}

describe('ledgraph load into a storage directory', () => {
  it('loads every format, gzip and stdin into a new, then an existing ledger; time travel shows each step', async () => {
    const dir = join(work, 'data1');
    const first = await run(['load', 'kb', file('a.nt', NT), file('b.nq.gz', gzipSync(NQ)), '--storage-path', dir]);
    expect(first.code, first.err).toBe(0);
    expect(JSON.parse(first.out)).toMatchObject({ ledger_id: 'kb:main', previous_t: 0, t: 1, statements: 3, triples: 3, commits: 1, created: true });
    expect(first.err).toMatch(/^load kb:main: .* of .*/m);

    const second = await run(['load', 'kb', file('c.ttl', TTL), file('d.trig', TRIG), file('e.jsonld', JSONLD), '--storage-path', dir, '--commit-flakes', '2']);
    expect(second.code, second.err).toBe(0);
    expect(JSON.parse(second.out)).toMatchObject({ previous_t: 1, t: 4, statements: 5, triples: 5, commits: 3, created: false });

    const third = await run(['load', 'kb', '-', '--format', 'turtle', '--storage-path', dir], `@prefix ex: <${EX}> .\nex:f ex:p 6 .\nex:a ex:name "A" .\n`);
    expect(third.code, third.err).toBe(0);
    expect(JSON.parse(third.out)).toMatchObject({ previous_t: 4, t: 5, statements: 2, triples: 1 });

    expect(await statements(dir, 'kb')).toEqual([
      '_ name anon', 'a name A', 'a p 1', 'b p 2 g', 'c knows _', 'c p 3', 'd p 4 g2', 'e p 5', 'f p 6',
    ]);
    expect(await statements(dir, 'kb@t:1')).toEqual(['a name A', 'a p 1', 'b p 2 g']);
    expect((await statements(dir, 'kb@t:2')).length).toBe(5);
    expect((await statements(dir, 'kb@t:4')).length).toBe(8);
  });

  it('stops at a syntax error midway with exit code 2, the file, line and column, and loads nothing', async () => {
    const dir = join(work, 'data2');
    expect((await run(['load', 'kb', file('ok.nt', NT), '--storage-path', dir])).code).toBe(0);
    const bad = file('bad.nt', `<${EX}x> <${EX}p> "1" .\n<${EX}y> <${EX}p> "2" .\n<${EX}z> <${EX}p> oops .\n`);
    const r = await run(['load', 'kb', file('more.nt', `<${EX}w> <${EX}p> "0" .\n`), bad, '--storage-path', dir]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`ledgraph: ${bad}: N-Triples syntax error at line 3, column 37: expected an object`);
    expect(r.out).toBe('');
    expect(await statements(dir, 'kb')).toEqual(['a name A', 'a p 1']);
    // Clear refusals: no files, unknown extensions, a missing file.
    expect((await run(['load', 'kb', '--storage-path', dir])).err).toMatch(/usage: ledgraph load/);
    expect((await run(['load', 'kb', file('x.txt', 'x'), '--storage-path', dir])).err).toContain('x.txt: unknown extension; give --format');
    expect((await run(['load', 'kb', join(work, 'nope.nt'), '--storage-path', dir])).err).toContain('nope.nt: no such file');
    expect((await run(['load', 'kb', '-', '--storage-path', dir])).err).toContain('reading stdin (-) needs --format');
  });
});

/** Every fact of a ledger's head as "g s p o" with its ids and keys (commit metadata: its predicate only, its times differ). */
async function facts(dir: string, ledgerId: string): Promise<string[]> {
  const conn = new Connection(await openFileStorage(dir));
  try {
    const ledger = await conn.ledger(ledgerId);
    const db = await ledger.db();
    const out: string[] = [];
    for await (const b of db.scan({})) {
      await ledger.dict.ensureIds([b.s, b.p, b.o], b.n);
      for (let i = 0; i < b.n; i++) {
        const [g, s, p, o] = [b.g[i]!, b.s[i]!, b.p[i]!, b.o[i]!];
        out.push(g === 1 ? `${g} ${ledger.dict.key(p)}` : `${g} ${s} ${p} ${o} ${ledger.dict.key(s)} ${ledger.dict.key(p)} ${ledger.dict.key(o)}`);
      }
    }
    return out;
  } finally {
    await conn.close();
  }
}

describe('ledgraph load on two threads', () => {
  // Subjects out of order, blank nodes (labelled and anonymous) across files, named graphs, a
  // duplicate, enough statements for several batches and commits.
  const many = Array.from({ length: 70_000 }, (_, i) => `<${EX}s${(i * 7919) % 70_000}> <${EX}p${i % 5}> "v${i % 1000}" .\n`).join('');
  const inputs = () => [
    file('m.nt', many + NT + `_:x <${EX}p> _:y .\n` + NT), file('m.nq.gz', gzipSync(NQ + `_:x <${EX}p> "q" _:gb .\n`)),
    file('m.ttl', TTL), file('m.trig', TRIG), file('m.jsonld', JSONLD),
  ];

  it('loads exactly what the single-threaded path loads: the same facts, ids, keys and commits, new and existing ledgers', async () => {
    const one = join(work, 'one'), two = join(work, 'two');
    for (const [dir, flags] of [[one, ['--no-worker']], [two, []]] as const) {
      const a = await run(['load', 'kb', ...inputs(), '--storage-path', dir, '--commit-flakes', '30000', ...flags]);
      expect(a.code, a.err).toBe(0);
      expect(JSON.parse(a.out)).toMatchObject({ previous_t: 0, t: 3, statements: 70_012, triples: 70_010, commits: 3 });
      const b = await run(['load', 'kb', file('n.nt', `<${EX}a> <${EX}name> "A" .\n<${EX}new> <${EX}p1> "v1" .\n_:x <${EX}p> _:y .\n`), '--storage-path', dir, ...flags]);
      expect(b.code, b.err).toBe(0);
      expect(JSON.parse(b.out)).toMatchObject({ previous_t: 3, t: 4, statements: 3, triples: 2, commits: 1 });
    }
    const [f1, f2] = [await facts(one, 'kb'), await facts(two, 'kb')];
    expect(f1.filter((f) => !f.startsWith('1 ')).length).toBe(70_012);
    expect(f2).toEqual(f1);
    for (const t of [1, 2, 3, 4]) expect(await statements(two, `kb@t:${t}`)).toEqual(await statements(one, `kb@t:${t}`));
  }, 120_000);

  it('a worker that fails midway loads nothing', async () => {
    const dir = join(work, 'three');
    expect((await run(['load', 'kb', file('ok3.nt', NT), '--storage-path', dir])).code).toBe(0);
    const bad = file('bad3.nt', many + `<${EX}z> <${EX}p> oops .\n`);
    // Commits of 20,000 are written while the worker reads: the failure comes after several of them.
    const r = await run(['load', 'kb', file('more3.nt', many), bad, '--storage-path', dir, '--commit-flakes', '20000']);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`ledgraph: ${bad}: N-Triples syntax error at line 70001, column 37: expected an object`);
    expect(await statements(dir, 'kb')).toEqual(['a name A', 'a p 1']);
  }, 60_000);
});

describe('ledgraph load through a server', () => {
  let srv: TestServer;
  beforeAll(async () => { srv = await startTestServer(); });
  afterAll(async () => { await srv.close(); });

  it('creates the ledger, streams each file (gzip as gzip) to POST /load, and reports errors with nothing loaded', async () => {
    const r = await run(['load', 'remote-kb', file('s.nt.gz', gzipSync(NT)), file('s.ttl', TTL), '--server', srv.url]);
    expect(r.code, r.err).toBe(0);
    const out = JSON.parse(r.out) as Record<string, unknown>[];
    expect(out).toMatchObject([{ ledger_id: 'remote-kb:main', previous_t: 0, t: 1, triples: 2 }, { previous_t: 1, t: 2, triples: 3 }]);
    const q = await fetch(`${srv.api}/query/remote-kb`, { method: 'POST', headers: { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+json' }, body: `SELECT ?o { <${EX}c> <${EX}p> ?o }` });
    expect(((await q.json()) as { results: { bindings: { o: { value: string } }[] } }).results.bindings.map((b) => b.o.value)).toEqual(['3']);
    const bad = await run(['load', 'remote-kb', file('s-bad.ttl', `@prefix ex: <${EX}> .\nex:q ex:p 1 .\nex:q ex:p ex:r ex:s .\n`), '--server', srv.url]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('s-bad.ttl: loading into remote-kb:main on remote');
    expect(bad.err).toContain('HTTP 400 — Turtle syntax error at line 3');
    expect((await srv.conn.ledger('remote-kb')).t).toBe(2);
  });

  it('loads into the directory the server runs on: the server serves the load from its change feed', async () => {
    await fetch(`${srv.api}/create`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ledger: 'shared' }) });
    await fetch(`${srv.api}/insert/shared`, { method: 'POST', headers: { 'Content-Type': 'application/n-triples' }, body: `<${EX}z> <${EX}p> "0" .\n` });
    const r = await run(['load', 'shared', file('sh.nt', NT), '--storage-path', srv.dir]);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ previous_t: 1, t: 2, triples: 2, created: false });
    const ask = async () => {
      const q = await fetch(`${srv.api}/query/shared`, { method: 'POST', headers: { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+json' }, body: 'SELECT ?s ?o { ?s ?p ?o } ORDER BY ?s ?o' });
      return ((await q.json()) as { results: { bindings: { s: { value: string }; o: { value: string } }[] } }).results.bindings.map((b) => `${b.s.value.slice(EX.length)} ${b.o.value}`).sort();
    };
    expect(await ask()).toEqual(['a 1', 'a A', 'z 0']);
    // The server writes on after the load.
    const w = await fetch(`${srv.api}/insert/shared`, { method: 'POST', headers: { 'Content-Type': 'application/n-triples' }, body: `<${EX}y> <${EX}p> "9" .\n` });
    expect(((await w.json()) as { t: number }).t).toBe(3);
    expect(await ask()).toEqual(['a 1', 'a A', 'y 9', 'z 0']);
  });
});
