#!/usr/bin/env node
/**
 * JSON-LD insert bench (part of `npm run bench -- jsonld`): BSBM data as JSON-LD insert documents
 * (compact IRIs through a prefix context, typed and language-tagged values, references), each
 * parsed by the transaction parser and committed to an in-memory ledger — what `/insert` does per
 * request minus HTTP. Two builds run in the same process, alternately: this tree's (dist/) and a
 * baseline built from `--base` (default: the commit this branch forked from main, i.e. today's
 * hand-written JSON-LD processor), so the ratio is the cost of expanding through jsonld.js; this
 * build also runs with its plain-document fast path off (`jsonldOnly`), which shows what that
 * path saves. Acceptance: this tree's median within 1.2x of the baseline's (parse + commit; parse
 * alone is reported too).
 *
 *   node bench/jsonld-insert.js [--data bench/data/bsbm-265.nt] [--triples 20000] [--batch 50] [--reps 7] [--base <git ref>]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { join } from 'node:path';
import { Parser } from 'n3';
import { ROOT_DIR, bsbmData, parseArgs } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const MAX_TRIPLES = Number(args.triples ?? 20000);
const BATCH = Number(args.batch ?? 50);
const REPS = Number(args.reps ?? 7);
const baseRef = String(args.base ?? execFileSync('git', ['merge-base', 'HEAD', 'main'], { cwd: ROOT_DIR, encoding: 'utf8' }).trim());

/** Build `ref`'s sources into a cache dir outside the tree (git archive + tsc); returns its dist path. */
function buildBaseline(ref) {
  const sha = execFileSync('git', ['rev-parse', ref], { cwd: ROOT_DIR, encoding: 'utf8' }).trim();
  const dir = join(tmpdir(), `ledgraph-bench-base-${sha.slice(0, 12)}`);
  if (existsSync(join(dir, 'dist', 'core', 'transact', 'parse-jsonld.js'))) return join(dir, 'dist');
  mkdirSync(dir, { recursive: true });
  const tar = spawnSync('git', ['archive', sha, 'src', 'tsconfig.build.json', 'tsconfig.json', 'package.json'], { cwd: ROOT_DIR, maxBuffer: 1 << 28 });
  if (tar.status !== 0) throw new Error(`git archive ${ref} failed: ${tar.stderr}`);
  const x = spawnSync('tar', ['-x', '-C', dir], { input: tar.stdout });
  if (x.status !== 0) throw new Error(`tar failed: ${x.stderr}`);
  if (!existsSync(join(dir, 'node_modules'))) symlinkSync(join(ROOT_DIR, 'node_modules'), join(dir, 'node_modules'));
  const tsc = spawnSync(process.execPath, [join(ROOT_DIR, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: dir, encoding: 'utf8' });
  if (!existsSync(join(dir, 'dist', 'core', 'transact', 'parse-jsonld.js'))) throw new Error(`building ${ref} failed: ${tsc.stdout}${tsc.stderr}`);
  return join(dir, 'dist');
}

async function build(distDir) {
  const { parseJsonLdTxn } = await import(join(distDir, 'core/transact/parse-jsonld.js'));
  const { Connection } = await import(join(distDir, 'core/ledger/connection.js'));
  const { openMemoryStorage } = await import(join(distDir, 'storage/index.js'));
  return { parseJsonLdTxn, Connection, openMemoryStorage };
}

const PREFIXES = {
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#', rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  xsd: 'http://www.w3.org/2001/XMLSchema#', dc: 'http://purl.org/dc/elements/1.1/',
  foaf: 'http://xmlns.com/foaf/0.1/', rev: 'http://purl.org/stuff/rev#',
  bsbm: 'http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/',
  'bsbm-inst': 'http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/instances/',
};
const compact = (iri) => {
  for (const [p, ns] of Object.entries(PREFIXES)) if (iri.startsWith(ns) && !iri.slice(ns.length).includes('/')) return `${p}:${iri.slice(ns.length)}`;
  return iri;
};

/** The first MAX_TRIPLES triples as insert documents of BATCH subjects each. */
function documents(file) {
  // N-Triples holds one triple per line: read only the lines needed (the default data file is ~1M triples).
  const lines = [];
  const fd = openSync(file, 'r');
  const buf = Buffer.alloc(1 << 22);
  const utf8 = new StringDecoder('utf8'); // a chunk may end inside a character
  let rest = '';
  for (let n; lines.length < MAX_TRIPLES && (n = readSync(fd, buf, 0, buf.length, null)) > 0;) {
    const parts = (rest + utf8.write(buf.subarray(0, n))).split('\n');
    rest = parts.pop();
    for (const line of parts) if (line.trim() !== '' && lines.push(line) >= MAX_TRIPLES) break;
  }
  closeSync(fd);
  const quads = new Parser({ format: 'N-Triples' }).parse(lines.join('\n'));
  const nodes = new Map();
  for (const q of quads) {
    let n = nodes.get(q.subject.value);
    if (!n) nodes.set(q.subject.value, (n = { '@id': compact(q.subject.value) }));
    if (q.predicate.value === PREFIXES.rdf + 'type') { (n['@type'] ??= []).push(compact(q.object.value)); continue; }
    const o = q.object;
    const v = o.termType === 'NamedNode' ? { '@id': compact(o.value) }
      : o.language ? { '@value': o.value, '@language': o.language }
      : o.datatype.value === PREFIXES.xsd + 'string' ? o.value
      : { '@value': o.value, '@type': compact(o.datatype.value) };
    (n[compact(q.predicate.value)] ??= []).push(v);
  }
  const all = [...nodes.values()];
  const docs = [];
  for (let i = 0; i < all.length; i += BATCH) docs.push(JSON.stringify({ '@context': PREFIXES, '@graph': all.slice(i, i + BATCH) }));
  return { docs, triples: quads.length };
}

/** ms to parse every document; ms to parse and commit every document into a fresh ledger. */
async function runOnce(lib, docs) {
  const parse = (d) => lib.parseJsonLdTxn(JSON.parse(d), 'insert', lib.options);
  let t = performance.now();
  for (const d of docs) await parse(d);
  const parseMs = performance.now() - t;
  // Novelty only (no background indexing), large enough for the whole run: the measurement is parse + stage + commit.
  const conn = new lib.Connection(lib.openMemoryStorage(), { indexingEnabled: false, reindexMaxBytes: 1 << 30 });
  await conn.create('bench:main');
  t = performance.now();
  let flakes = 0;
  for (const d of docs) flakes += (await conn.transact('bench:main', await parse(d))).flakes_added;
  const insertMs = performance.now() - t;
  await conn.close();
  return { parseMs, insertMs, flakes };
}

const { data } = bsbmData(args.data);
const { docs, triples } = documents(data);
const current = await build(join(ROOT_DIR, 'dist'));
// `jsonldOnly`: this build with the plain-document fast path off, to show what the fast path saves.
const libs = { baseline: { ...(await build(buildBaseline(baseRef))), options: {} }, current: { ...current, options: {} }, jsonldOnly: { ...current, options: { fastPath: false } } };
const KINDS = Object.keys(libs);
const runs = Object.fromEntries(KINDS.map((k) => [k, []]));
for (const k of KINDS) await runOnce(libs[k], docs); // warm-up
for (let i = 0; i < REPS; i++) {
  // Rotate the order so drift and GC hit every variant alike.
  for (let j = 0; j < KINDS.length; j++) { const k = KINDS[(i + j) % KINDS.length]; runs[k].push(await runOnce(libs[k], docs)); }
}
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return +s[s.length >> 1].toFixed(1); };
const summary = {};
for (const k of KINDS) {
  const parseMs = med(runs[k].map((r) => r.parseMs)), insertMs = med(runs[k].map((r) => r.insertMs));
  summary[k] = { parseMs, insertMs, triplesPerSecond: Math.round(triples / (insertMs / 1000)), flakes: runs[k][0].flakes };
}
for (const k of KINDS) if (summary[k].flakes !== summary.baseline.flakes) throw new Error(`${k} stored ${summary[k].flakes} facts, the baseline ${summary.baseline.flakes}`);
const ratio = (k, f) => +(summary[k][f] / summary.baseline[f]).toFixed(2);
const insertRatio = ratio('current', 'insertMs'), parseRatio = ratio('current', 'parseMs');
const jsonldOnlyInsertRatio = ratio('jsonldOnly', 'insertMs'), jsonldOnlyParseRatio = ratio('jsonldOnly', 'parseMs');
process.stderr.write(`insert ${triples} triples in ${docs.length} documents: baseline ${summary.baseline.insertMs} ms, current ${summary.current.insertMs} ms (x${insertRatio}; parse alone x${parseRatio}); `
  + `jsonld.js only ${summary.jsonldOnly.insertMs} ms (x${jsonldOnlyInsertRatio}; parse x${jsonldOnlyParseRatio})\n`);
console.log(JSON.stringify({
  suite: 'jsonld-insert', data, base: baseRef, triples, documents: docs.length, batch: BATCH, reps: REPS, ...summary,
  insertRatio, parseRatio, jsonldOnlyInsertRatio, jsonldOnlyParseRatio, pass: insertRatio <= 1.2,
}));
