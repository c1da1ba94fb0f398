#!/usr/bin/env node
/**
 * Dictionary hot paths (`npm run bench -- dict`): the paged term dictionary (docs/dictionary.md)
 * with every page resident, against the same TermDict holding every key in its in-memory delta —
 * exactly what `main`'s whole-in-memory dictionary did (a Map and an array). One process, same
 * keys, `--rounds` rounds (default 3), median and spread reported.
 *
 *   id → key        4 M lookups of random ids
 *   hot key → id    1,000 keys × 200 (predicates, classes: the paged side remembers them)
 *   stored key → id every third key (distinct stored keys, each looked up once per round)
 *   absent key → id as many keys the dictionary does not hold (the new terms of a write)
 *
 * Probe strings are fresh copies each round, so neither side profits from a hash V8 cached in a
 * string it saw before. Flags: --keys N (400,000). Prints one JSON result line, with the filters'
 * false positives measured on the absent-key lookups: Bloom candidate pages per absent key (each a
 * page read before the fingerprints), and pages still read per absent key (fingerprints matched).
 */
import { CID } from 'multiformats/cid';
import { emitResult, fromDist, log, median, parseArgs } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const N = Number(args.keys ?? 400_000);
const ROUNDS = Number(args.rounds ?? 3);
const { TermDict } = await fromDist('core/index/dict.js');
const { writeDictPages } = await fromDist('core/index/dict-write.js');
const { MemoryContentStore } = await fromDist('storage/memory-store.js');
const { LeafCache } = await fromDist('core/index/tree.js');

// Two thirds IRIs (sharing prefixes as real data does), one third literals; keys in termKey form.
const keyOf = (i) => (i % 3 === 2
  ? `"review text number ${i} with some words"^^<http://www.w3.org/2001/XMLSchema#string>`
  : `<http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/instances/dataFromProducer${i % 97}/Product${i}>`);
const fresh = (xs) => JSON.parse(JSON.stringify(xs));

const flat = new TermDict(64 * 1024 * 1024);
for (let i = 0; i < N; i++) flat.internKey(keyOf(i));

const store = new MemoryContentStore();
const root = await writeDictPages(store, flat, null, N);
const paged = new TermDict(64 * 1024 * 1024, 3_600_000);
paged.attachBase(root, { get: (cid) => store.get(CID.parse(cid)) }, new LeafCache(1 << 30));
await paged.keysOf(0, N); // every page resident
await paged.resolveKeys([keyOf(0)]); // filters loaded
const persisted = { pages: root.pages.length, filterGroups: root.filters.length };
log(`dict: ${N} keys, ${persisted.pages} pages, ${persisted.filterGroups} filter groups`);

function time(fn) { const t0 = performance.now(); fn(); return performance.now() - t0; }
const ops = {
  'id → key, 4 M lookups': (d) => { let x = 0; for (let i = 0; i < 4_000_000; i++) x += d.key((i * 7919) % N).length; return x; },
  'key → id, 1,000 hot keys × 200': (d, probes) => { let x = 0; for (let r = 0; r < 200; r++) for (const k of probes.hot) x += d.idOfKey(k) ?? 0; return x; },
  'key → id, stored keys': (d, probes) => { let x = 0; for (const k of probes.stored) x += d.idOfKey(k) ?? 0; return x; },
  'key → id, absent keys': (d, probes) => { let x = 0; for (const k of probes.absent) x += d.idOfKey(k) ?? 1; return x; },
};
const stored = [];
for (let i = 0; i < N; i += 3) stored.push(keyOf(i));
const absent = stored.map((_, j) => `<http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/instances/dataFromProducer${j % 97}/Offer${j}>`);
const hot = Array.from({ length: 1000 }, (_, j) => keyOf(j * 3));
const times = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, op] of Object.entries(ops)) {
    for (const [side, d] of [['main (all in memory)', flat], ['paged (pages resident)', paged]]) {
      const probes = { hot: fresh(hot), stored: fresh(stored), absent: fresh(absent) };
      globalThis.gc?.();
      ((times[name] ??= {})[side] ??= []).push(time(() => op(d, probes)));
    }
  }
}
const round = (x) => Math.round(x * 10) / 10;
const result = { suite: 'dict', keys: N, storedProbes: stored.length, absentProbes: absent.length, persisted, rounds: ROUNDS, ops: {} };
for (const [name, sides] of Object.entries(times)) {
  const m = Object.fromEntries(Object.entries(sides).map(([s, xs]) => [s, { medianMs: round(median(xs)), minMs: round(Math.min(...xs)), maxMs: round(Math.max(...xs)) }]));
  const ratio = Math.round((m['paged (pages resident)'].medianMs / Math.max(0.01, m['main (all in memory)'].medianMs)) * 100) / 100;
  result.ops[name] = { ...m, ratioPagedToMain: ratio };
  log(`dict: ${name}: main ${m['main (all in memory)'].medianMs} ms, paged ${m['paged (pages resident)'].medianMs} ms (${ratio}×)`);
}
result.memory = { paged: paged.memory(), main: flat.memory() };
const pr = paged.probes;
result.falsePositives = {
  absentLookups: pr.absent, bloomCandidatePages: pr.candidates, pagesRead: pr.pagesRead,
  bloomCandidatesPerAbsentKey: Math.round((pr.candidates / Math.max(1, pr.absent)) * 1e4) / 1e4,
  pagesReadPerAbsentKey: pr.pagesRead / Math.max(1, pr.absent),
};
log(`dict: absent keys: ${result.falsePositives.bloomCandidatesPerAbsentKey} Bloom candidate pages per key, ${pr.pagesRead} pages read in ${pr.absent} lookups`);
emitResult(result);
