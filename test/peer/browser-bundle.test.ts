/**
 * What the browser peer's worker loads before it can open a ledger (`npm run build:peer`): the
 * worker's entry chunk and the chunks it imports statically hold the read side only. GraphQL and
 * Cypher (graphql-js), the write side (transaction pipeline, SHACL, JSON-LD expansion, bulk load),
 * the N-Quads writer and the S3 signer are chunks of their own, loaded on first use — starting the
 * worker (fetching and compiling its code) is most of a reopen (docs/peers.md).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

describe('browser peer bundle', () => {
  let out = '';
  beforeAll(async () => {
    out = await mkdtemp(join(tmpdir(), 'lg-peer-bundle-'));
    process.env.LEDGRAPH_PEER_OUT_DIR = out;
    try {
      const { build } = await import('vite');
      await build({ configFile: join(root, 'vite.peer.config.ts'), logLevel: 'silent' });
    } finally {
      delete process.env.LEDGRAPH_PEER_OUT_DIR;
    }
  }, 180_000);
  afterAll(async () => { await rm(out, { recursive: true, force: true }); });

  /** A chunk and every chunk it imports statically, transitively. */
  async function staticClosure(first: string): Promise<string[]> {
    const seen = new Set<string>();
    const todo = [first];
    while (todo.length) {
      const f = todo.pop()!;
      if (seen.has(f)) continue;
      seen.add(f);
      const code = await readFile(join(out, 'assets', f), 'utf8');
      for (const m of code.matchAll(/(?:from|import)\s*"\.\/([^"]+\.js)"/g)) todo.push(m[1]!);
    }
    return [...seen];
  }

  /** The source files a chunk was built from (its source map). */
  async function sources(chunk: string): Promise<string[]> {
    return (JSON.parse(await readFile(join(out, 'assets', chunk + '.map'), 'utf8')) as { sources: string[] }).sources;
  }

  it('starts the worker without GraphQL, Cypher, the write side, the N-Quads writer or the S3 signer', async () => {
    const files = await readdir(join(out, 'assets'));
    const worker = files.find((f) => /^worker-[\w-]+\.js$/.test(f));
    expect(worker).toBeDefined();
    const startup = await staticClosure(worker!);
    const loaded = (await Promise.all(startup.map(sources))).flat();
    // The read side is there: the SPARQL parser, the engine, the follower, the IndexedDB cache.
    for (const needed of ['node_modules/sparqljs/', 'src/core/query/engine.ts', 'src/peer/follower.ts', 'src/storage/indexeddb-store.ts']) {
      expect(loaded.some((s) => s.includes(needed)), needed).toBe(true);
    }
    for (const lazy of ['node_modules/graphql/', 'src/core/query/cypher/', 'node_modules/rdf-validate-shacl/', 'node_modules/jsonld/',
      'src/core/transact/', 'src/core/query/results/rdf-writers.ts', 'node_modules/@smithy/']) {
      expect(loaded.filter((s) => s.includes(lazy)), lazy).toEqual([]);
    }
    // ...and each is a chunk of its own that the worker can load.
    const all = (await Promise.all(files.filter((f) => f.endsWith('.js')).map(async (f) => ({ f, src: await sources(f) })))).filter((c) => !startup.includes(c.f));
    for (const lazy of ['node_modules/graphql/', 'src/core/query/cypher/', 'src/core/transact/pipeline.ts', 'node_modules/@smithy/']) {
      expect(all.some((c) => c.src.some((s) => s.includes(lazy))), lazy).toBe(true);
    }
    const bytes = (await Promise.all(startup.map((f) => readFile(join(out, 'assets', f))))).reduce((n, b) => n + b.length, 0);
    // 1.40 MB before the split; about 0.63 MB after it.
    expect(bytes).toBeLessThan(800_000);
  });
});
