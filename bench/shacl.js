#!/usr/bin/env node
/**
 * SHACL write-validation bench (`npm run bench -- shacl`): the cost of checking writes against the
 * ledger's shapes (docs/shacl.md). Two in-memory ledgers hold the same people graph (each person a
 * ex:Person with name, age and one ex:knows link; companies employing them); one also holds the
 * graphql.md §16 shapes. Both take the same writes, alternating rep by rep in one process:
 * single-fact inserts (one ex:tags value on an existing Person — a focus node plus the people who
 * know it are re-checked) and 1,000-fact inserts (250 new people, 4 facts each). A third ledger
 * that never held shapes is the no-shapes path. Memory storage, so validation is not hidden behind
 * fsync: this is the worst-case ratio; on file storage the commit's fsync adds to both sides.
 *
 *   node bench/shacl.js [--people 20000] [--singles 400] [--bulk 12] [--reps 5]
 */
import { ROOT_DIR, emitResult, median, parseArgs } from './measure.js';
import { join } from 'node:path';
import { loadavg } from 'node:os';

const args = parseArgs(process.argv.slice(2));
const PEOPLE = Number(args.people ?? 20000);
const SINGLES = Number(args.singles ?? 400);
const BULK = Number(args.bulk ?? 12);
const REPS = Number(args.reps ?? 5);

const dist = (rel) => import(join(ROOT_DIR, 'dist', rel));
const { parseRdfTxn } = await dist('core/transact/parse-rdf.js');
const { Connection } = await dist('core/ledger/connection.js');
const { openMemoryStorage } = await dist('storage/index.js');

const P = `@prefix ex: <http://example.org/> . @prefix schema: <http://schema.org/> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n`;
const SHAPES = `${P}
ex:PersonShape a sh:NodeShape ; sh:targetClass ex:Person ; rdfs:comment "Someone known to the ledger." ;
  sh:property [ sh:path schema:name ; sh:datatype xsd:string ; sh:minCount 1 ; sh:maxCount 1 ] ,
    [ sh:path ex:age ; sh:datatype xsd:integer ; sh:maxCount 1 ] ,
    [ sh:path ex:level ; sh:in ( "junior" "senior" ) ; sh:maxCount 1 ] ,
    [ sh:path ex:knows ; sh:class ex:Person ] ,
    [ sh:path [ sh:inversePath ex:employs ] ; sh:class ex:Company ] .
ex:CompanyShape a sh:NodeShape ; sh:targetClass ex:Company ; sh:closed true ; sh:ignoredProperties ( rdf:type ) ;
  sh:property [ sh:path schema:name ; sh:datatype xsd:string ; sh:minCount 1 ; sh:maxCount 1 ] ,
    [ sh:path ex:employs ; sh:class ex:Person ] .
`;
const person = (i, known) => `ex:p${i} a ex:Person ; schema:name "P${i}" ; ex:age ${20 + (i % 50)} ; ex:knows ex:p${known} .`;

/** A ledger with the people graph; `shapes` adds the shapes. */
async function ledger(name, shapes) {
  const conn = new Connection(openMemoryStorage());
  await conn.create(name);
  const CHUNK = 2000;
  for (let i = 0; i < PEOPLE; i += CHUNK) {
    const lines = [];
    for (let j = i; j < Math.min(PEOPLE, i + CHUNK); j++) lines.push(person(j, (j * 7 + 1) % PEOPLE));
    for (let c = i / 100; c < Math.min(PEOPLE, i + CHUNK) / 100; c++) lines.push(`ex:c${c} a ex:Company ; schema:name "C${c}" ; ex:employs ${Array.from({ length: 100 }, (_, k) => `ex:p${c * 100 + k}`).join(', ')} .`);
    await conn.transact(name, parseRdfTxn(P + lines.join('\n'), 'text/turtle', 'insert'));
  }
  if (shapes) await conn.transact(name, parseRdfTxn(SHAPES, 'text/turtle', 'insert'));
  return { conn, name };
}

/** Wall and CPU ms per transaction of `run` (CPU time is steadier on the shared box). */
async function timed(run, n) {
  const t0 = performance.now(), c0 = process.cpuUsage();
  await run();
  const c = process.cpuUsage(c0);
  return { wall: (performance.now() - t0) / n, cpu: (c.user + c.system) / 1000 / n };
}

let next = PEOPLE;
/** ms per transaction of `count` single-fact inserts. */
async function singles(l, rep) {
  const docs = Array.from({ length: SINGLES }, (_, i) => parseRdfTxn(`${P} ex:p${(i * 37 + rep * 101) % PEOPLE} ex:tags "r${rep}-${i}" .`, 'text/turtle', 'insert'));
  return timed(async () => { for (const d of docs) await l.conn.transact(l.name, d); }, SINGLES);
}
/** ms per 1,000-fact transaction. */
async function bulk(l) {
  const docs = [];
  for (let b = 0; b < BULK; b++) {
    const lines = [];
    for (let k = 0; k < 250; k++, next++) lines.push(person(next, next % PEOPLE));
    docs.push(parseRdfTxn(P + lines.join('\n'), 'text/turtle', 'insert'));
  }
  return timed(async () => { for (const d of docs) await l.conn.transact(l.name, d); }, BULK);
}

const none = await ledger('none', false);
const shaped = await ledger('shaped', true);
const sides = { none, shaped };
const times = { single: { none: [], shaped: [] }, bulk: { none: [], shaped: [] } };
const cpu = { single: { none: [], shaped: [] }, bulk: { none: [], shaped: [] } };
for (let rep = -1; rep < REPS; rep++) { // rep -1 warms up
  for (const side of rep % 2 ? ['none', 'shaped'] : ['shaped', 'none']) {
    const s = await singles(sides[side], rep + 1);
    const b = await bulk(sides[side]);
    if (rep >= 0) {
      times.single[side].push(s.wall); times.bulk[side].push(b.wall);
      cpu.single[side].push(s.cpu); cpu.bulk[side].push(b.cpu);
    }
  }
}
const row = (k) => ({
  none_ms: +median(times[k].none).toFixed(3), shapes_ms: +median(times[k].shaped).toFixed(3), ratio: +(median(times[k].shaped) / median(times[k].none)).toFixed(2),
  none_cpu_ms: +median(cpu[k].none).toFixed(3), shapes_cpu_ms: +median(cpu[k].shaped).toFixed(3), cpu_ratio: +(median(cpu[k].shaped) / median(cpu[k].none)).toFixed(2),
});
const result = { bench: 'shacl', people: PEOPLE, reps: REPS, singles: SINGLES, bulk: BULK, loadavg: loadavg().map((x) => +x.toFixed(1)), single_fact: row('single'), thousand_facts: row('bulk') };
console.error(`SHACL write validation, ${PEOPLE} people, load ${result.loadavg.join(' ')}`);
for (const [label, r] of [['single-fact insert', result.single_fact], ['1,000-fact insert ', result.thousand_facts]]) {
  console.error(`  ${label}  wall: no shapes ${r.none_ms} ms, shapes ${r.shapes_ms} ms, ${r.ratio}x   cpu: ${r.none_cpu_ms} / ${r.shapes_cpu_ms} ms, ${r.cpu_ratio}x`);
}
emitResult(result);
