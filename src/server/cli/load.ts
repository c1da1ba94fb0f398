/**
 * `ledgraph load <ledger> <files…>` (docs/bulk-load.md): RDF files (N-Triples, N-Quads, Turtle,
 * TriG, JSON-LD; gzip-compressed too; `-` for stdin) into a new or existing ledger through the bulk
 * path, either straight into a storage directory (safe beside a server on the same directory: the
 * load publishes with one compare-and-set) or through a running server (`POST /load`, one request
 * per file). Progress goes to stderr; the result JSON to stdout.
 */
import { createReadStream, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { parseArgs } from 'node:util';
import { badRequest, isLedgraphError, LedgraphError } from '../../core/errors.js';
import { normalizeLedgerId } from '../../core/ledger/ledger-id.js';
import type { BulkDocument, BulkLoadResult } from '../../core/transact/bulk-load.js';
import type { BulkFormat } from '../../core/transact/bulk-sources.js';
import type { CliIo } from './io.js';
import { loadDocument, threadOptions } from '../load-threads.js';
import { LoadProgress } from './load-progress.js';
import { serverTarget } from './places.js';
import { postLoad, ensureRemoteLedger } from './load-remote.js';

export const LOAD_USAGE = `Usage: ledgraph load <ledger> <file…> [flags]
  Bulk-load RDF files into a ledger (created when missing); all files of one run are one load:
  committed (chunks of --commit-flakes flakes, each its own t), indexed and durable on return,
  or, on any error, nothing at all. Through --server each file is its own load.
  Files: .nt .nq .ttl .trig .jsonld/.json, each optionally .gz; - reads stdin (give --format).
Flags:
  --storage-path <dir>    Storage directory (default ./data); safe beside a server on it
  --server <remote|url>   Load through a running server instead (POST /load)
  --token <token|@file>   Bearer token for --server
  --config <file>         Remotes file (default ~/.config/ledgraph/remotes.json)
  --format <f>            n-triples, n-quads, turtle, trig or json-ld (default: from each file's extension)
  --base <iri>            Base IRI for relative references (Turtle, TriG, JSON-LD)
  --commit-flakes <n>     Flakes per commit (default 100000)
  --no-worker             Parse on the main thread (default: a worker thread parses)
`;

const EXT: [RegExp, BulkFormat][] = [
  [/\.nt$/i, 'n-triples'], [/\.nq$/i, 'n-quads'], [/\.ttl$/i, 'turtle'], [/\.trig$/i, 'trig'], [/\.(jsonld|json)$/i, 'json-ld'],
];
const FORMATS: BulkFormat[] = ['n-triples', 'n-quads', 'turtle', 'trig', 'json-ld'];
/** Media types of the formats (POST /load). */
export const FORMAT_TYPES: Record<BulkFormat, string> = {
  'n-triples': 'application/n-triples', 'n-quads': 'application/n-quads', turtle: 'text/turtle', trig: 'application/trig', 'json-ld': 'application/ld+json',
};

/** One input: where it is, its format, and its size on disk (null for stdin). */
export interface LoadInput { path: string; format: BulkFormat; bytes: number | null }

/** The inputs named on the command line, their formats from `--format` or the extension. */
export function loadInputs(files: readonly string[], format: string | undefined): LoadInput[] {
  if (format !== undefined && !FORMATS.includes(format as BulkFormat)) throw badRequest(`--format must be one of ${FORMATS.join(', ')}, not ${format}`);
  return files.map((path) => {
    const bytes = path === '-' ? null : sizeOf(path);
    const fmt = (format as BulkFormat | undefined) ?? EXT.find(([re]) => re.test(path.replace(/\.gz$/i, '')))?.[1];
    if (!fmt) throw badRequest(path === '-' ? 'reading stdin (-) needs --format' : `${path}: unknown extension; give --format`);
    return { path, format: fmt, bytes };
  });
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch (e) {
    throw badRequest(`${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
}

/** The raw bytes of an input (a file or stdin), counted into the progress as they are read. */
async function* rawBytes(input: LoadInput, progress: LoadProgress): AsyncGenerator<Uint8Array> {
  const stream = input.path === '-' ? process.stdin : createReadStream(input.path, { highWaterMark: 1 << 20 });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    progress.bytes(chunk.length);
    yield chunk;
  }
}

/** True for gzip's magic bytes. */
const isGzip = (b: Uint8Array) => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;

/** An input's text bytes: inflated when it is gzip (told by its first bytes, so stdin works too). */
async function* textBytes(input: LoadInput, progress: LoadProgress): AsyncGenerator<Uint8Array> {
  const it = rawBytes(input, progress)[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) return;
  const rest = { [Symbol.asyncIterator]: () => it };
  if (!isGzip(first.value)) {
    yield first.value;
    yield* rest;
    return;
  }
  const gz = Readable.from((async function* () { yield first.value; yield* rest; })()).pipe(createGunzip());
  try {
    for await (const chunk of gz as AsyncIterable<Buffer>) yield chunk;
  } catch (e) {
    throw badRequest(`${input.path}: corrupt gzip data (${(e as Error).message})`);
  }
}

/** Run `ledgraph load`. */
export async function loadMain(args: string[], remotesFile: (flag?: string) => string, io: CliIo): Promise<number> {
  const { values: v, positionals: pos } = parseArgs({
    args, allowPositionals: true, strict: true,
    options: {
      'storage-path': { type: 'string' }, server: { type: 'string' }, token: { type: 'string' }, config: { type: 'string' },
      format: { type: 'string' }, base: { type: 'string' }, 'commit-flakes': { type: 'string' }, 'no-worker': { type: 'boolean' },
    },
  });
  if (pos.length < 2) throw badRequest('usage: ledgraph load <ledger> <file…> [--storage-path <dir> | --server <remote>] (ledgraph load --help)');
  if (v.server && v['storage-path']) throw badRequest('give --server or --storage-path, not both');
  const ledger = normalizeLedgerId(pos[0]!);
  const inputs = loadInputs(pos.slice(1), v.format);
  if (inputs.filter((i) => i.path === '-').length > 1) throw badRequest('stdin (-) can be read once');
  const commitFlakes = v['commit-flakes'] === undefined ? undefined : Number(v['commit-flakes']);
  if (commitFlakes !== undefined && !(Number.isInteger(commitFlakes) && commitFlakes > 0)) throw badRequest('--commit-flakes must be a positive integer');
  const total = inputs.every((i) => i.bytes !== null) ? inputs.reduce((a, i) => a + i.bytes!, 0) : null;
  const progress = new LoadProgress(io, `load ${ledger}`, total);
  let current = 0;
  const named = (e: unknown): unknown => {
    if (!isLedgraphError(e) || inputs.length === 0) return e;
    const path = inputs[current]!.path === '-' ? 'stdin' : inputs[current]!.path;
    return e.message.startsWith(path) ? e : new LedgraphError(e.status, e.type, `${path}: ${e.message}`);
  };
  if (v.server) {
    const target = await serverTarget(v.server, { remotesFile: remotesFile(v.config), token: v.token });
    await ensureRemoteLedger(target, ledger);
    const results: unknown[] = [];
    for (current = 0; current < inputs.length; current++) {
      const input = inputs[current]!;
      try {
        results.push(await postLoad(target, ledger, rawBytes(input, progress), FORMAT_TYPES[input.format], v.base, commitFlakes));
      } catch (e) {
        progress.done();
        if (results.length) io.err(`loaded before the failure: ${inputs.slice(0, results.length).map((i) => i.path).join(', ')}\n`);
        throw named(e);
      }
    }
    progress.done();
    io.out(JSON.stringify(results.length === 1 ? results[0] : results) + '\n');
    return 0;
  }
  const { openLocalLedger } = await import('./load-local.js');
  const local = await openLocalLedger(v['storage-path'] ?? './data', ledger);
  try {
    const docs: BulkDocument[] = inputs.map((input, i) => loadDocument(
      (async function* () { current = i; yield* textBytes(input, progress); })(), input.format, v.base, !v['no-worker'],
    ));
    let res: BulkLoadResult;
    try {
      res = await local.conn.bulkLoad(ledger, docs, { ...threadOptions(!v['no-worker']), onProgress: (p) => progress.phase(p), ...(commitFlakes ? { commitFlakes } : {}) });
    } catch (e) {
      progress.done();
      throw named(e);
    }
    progress.done(res.triples);
    io.out(JSON.stringify({ ...res, created: local.created }) + '\n');
    return 0;
  } finally {
    await local.conn.close();
  }
}
