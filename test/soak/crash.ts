/**
 * The crash soak (`npm run soak -- crash --iterations N`): a server child on one file storage
 * directory takes mixed concurrent writes — JSON-LD inserts, JSON-LD updates, SPARQL updates,
 * Turtle inserts, pushes into a mirror ledger and imports of an archive — and is killed with
 * SIGKILL at a random moment; then it is restarted and checked:
 *  - zero lost acknowledged writes (every acknowledged write's facts are there, at its receipt's t);
 *  - no partial commits (each write asserts two facts: both or neither);
 *  - no duplicated commits (the head t equals the number of writes that landed; /log has every t
 *    from the head down to 0 once, with distinct commit ids);
 *  - pushes: the mirror's commits are the source's commits at the same t, at least up to the last
 *    acknowledged push; imports: an acknowledged import exists whole, an unacknowledged one is whole or absent;
 *  - leftovers: temporary files found at each start are counted and reported.
 * Ledgers rotate every `perLedger` iterations so each check stays small.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startChildServer, type ChildServer } from '../fuzz/child-server.js';
import { fetchCommitsSince, postArchive, pushCommits, type RemoteTarget } from '../../src/server/replication/remote-client.js';
import { serverPlace } from '../../src/server/cli/places.js';
import { prng } from '../support/prng.js';

const EX = 'http://example.org/soak/';
const CTX = { ex: EX };
const API = '/v1/ledgraph';

export interface SoakOptions {
  serverBundle: string;
  dir: string;
  iterations: number;
  seed: number;
  writers: number;
  /** Kill between these many ms after the writes start. */
  killMinMs: number;
  killMaxMs: number;
  perLedger: number;
  token: string;
  flags: string[];
  onIteration?(i: number, it: IterationResult): void;
}

export interface IterationResult {
  ledger: string; newAcks: number; acked: number; landedUnacked: number; lost: number; partial: number; extraCommits: number;
  logProblems: string[]; pushAcked: number; pushProblems: string[]; imports: number; importProblems: string[]; leftovers: string[]; ms: number;
}


type Kind = 'jsonld-insert' | 'jsonld-update' | 'sparql-update' | 'turtle';
const KINDS: Kind[] = ['jsonld-insert', 'jsonld-update', 'sparql-update', 'turtle'];

/** The request of one write: two facts about ex:w<id>, in the kind's language. */
function writeRequest(kind: Kind, api: string, ledger: string, id: number): [string, RequestInit] {
  const facts = `<${EX}w${id}> <${EX}n> ${id} ; <${EX}pair> ${id} .`;
  switch (kind) {
    case 'jsonld-insert': return [`${api}/insert/${ledger}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ '@context': CTX, '@id': `ex:w${id}`, 'ex:n': id, 'ex:pair': id }) }];
    case 'jsonld-update': return [`${api}/update/${ledger}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ '@context': CTX, insert: { '@id': `ex:w${id}`, 'ex:n': id, 'ex:pair': id } }) }];
    case 'sparql-update': return [`${api}/update/${ledger}`, { method: 'POST', headers: { 'Content-Type': 'application/sparql-update' }, body: `INSERT { ${facts} } WHERE { OPTIONAL { <${EX}anchor> <${EX}v> ?v } }` }];
    case 'turtle': return [`${api}/insert/${ledger}`, { method: 'POST', headers: { 'Content-Type': 'text/turtle' }, body: facts }];
  }
}

async function getJson<T>(url: string, init?: RequestInit): Promise<{ status: number; body: T }> {
  const r = await fetch(url, init);
  const text = await r.text();
  let body: unknown = text;
  try { body = JSON.parse(text); } catch { /* not JSON */ }
  return { status: r.status, body: body as T };
}

async function sparql<T = Record<string, { value: string }>>(api: string, ledger: string, q: string): Promise<T[]> {
  const r = await getJson<{ results: { bindings: T[] } }>(`${api}/query/${ledger}`, { method: 'POST', headers: { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+json' }, body: q });
  // A 200 without a SPARQL JSON body was seen once under heavy load; say what came instead.
  if (r.status !== 200 || !Array.isArray(r.body?.results?.bindings)) throw new Error(`query on ${ledger}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
  return r.body.results.bindings;
}

interface LogBody { commits: { t: number; commit_id: string }[]; count: number; truncated: boolean }

/** Temporary files under the storage directory (left by a killed writer). */
async function leftovers(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (/\.tmp$|\.tmp\./.test(e.name)) out.push(p.slice(dir.length + 1));
    }
  };
  await walk(dir);
  return out;
}

/** Everything the soak remembers across restarts. */
interface State {
  ledger: string; mirror: string; nextId: number;
  /** Acknowledged writes: id -> receipt t. */
  acked: Map<number, number>;
  /** The highest t the mirror acknowledged. */
  pushAckedT: number;
  /** Imports: name -> acknowledged?, and the t of the archive it restores. */
  imports: Map<string, { acked: boolean; t: number }>;
  importT: number;
  importsAcked: number;
  pack?: Uint8Array;
}

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> { yield bytes; }

/** A `.flpack` archive of a ledger on the server (as `ledgraph export` writes it). */
async function archive(origin: string, token: string, ledger: string): Promise<Uint8Array> {
  const place = await serverPlace(origin, { remotesFile: '/nonexistent/ledgraph-remotes.json', token });
  const chunks: Uint8Array[] = [];
  for await (const b of await place.archive(ledger, false)) chunks.push(b);
  await place.close();
  return Buffer.concat(chunks);
}

/** Start a ledger pair: the source, and its mirror restored from the source's genesis archive. */
async function startLedger(origin: string, target: RemoteTarget, st: State): Promise<void> {
  const c = await getJson(`${target.api}/create`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ledger: st.ledger }) });
  if (c.status !== 201) throw new Error(`create ${st.ledger}: ${c.status} ${JSON.stringify(c.body)}`);
  await postArchive(target, st.mirror, once(await archive(origin, target.token!, st.ledger)));
}

/** Rotate to a new source/mirror pair every `perLedger` iterations; the import archive is the previous ledger's history. */
async function rotate(o: SoakOptions, st: State, srv: ChildServer, i: number): Promise<void> {
  if (i % o.perLedger !== 0) return;
  const api = srv.url + API;
  const target: RemoteTarget = { name: 'soak', api, token: o.token };
  const previous = st.ledger;
  st.ledger = `soak${i / o.perLedger}`;
  st.mirror = `mirror${i / o.perLedger}`;
  st.acked = new Map();
  st.pushAckedT = 0;
  await startLedger(srv.url, target, st);
  const from = previous || st.ledger;
  const src = await getJson<{ t: number }>(`${api}/info/${from}`);
  st.pack = await archive(srv.url, o.token, from);
  st.importT = src.body.t;
}

/** Mixed concurrent writes, pushes and one import against `srv` until a random moment; then SIGKILL. */
async function writeUntilKilled(o: SoakOptions, st: State, rnd: () => number, i: number, srv: ChildServer): Promise<void> {
  const api = srv.url + API;
  const target: RemoteTarget = { name: 'soak', api, token: o.token };
  let stop = false;
  const killAt = o.killMinMs + rnd() * (o.killMaxMs - o.killMinMs);
  const writer = async () => {
    while (!stop) {
      const id = st.nextId++;
      const kind = KINDS[Math.floor(rnd() * KINDS.length)]!;
      const [url, init] = writeRequest(kind, api, st.ledger, id);
      try {
        const r = await fetch(url, init);
        const body = await r.text();
        if (r.status === 200) st.acked.set(id, (JSON.parse(body) as { t: number }).t);
        else if (r.status !== 503) throw new Error(`${kind} answered ${r.status}: ${body.slice(0, 300)}`);
      } catch (e) {
        if (!stop) throw e;
      }
    }
  };
  const pusher = async () => {
    while (!stop) {
      try {
        const head = await getJson<{ commitId: string }>(`${api}/info/${st.mirror}`);
        const batch = await fetchCommitsSince(target, st.ledger, head.body.commitId);
        if (batch.commits.length) {
          const r = await pushCommits(target, st.mirror, batch);
          st.pushAckedT = Math.max(st.pushAckedT, r.head.t);
        }
      } catch (e) {
        // A push racing new source commits is fine; anything else while running is a finding.
        if (!stop && !/409|CommitConflict/.test(String(e))) throw e;
      }
      await new Promise((ok) => setTimeout(ok, 20 + rnd() * 100));
    }
  };
  const importer = async () => {
    await new Promise((ok) => setTimeout(ok, rnd() * killAt));
    if (stop || !st.pack) return;
    const name = `imp${i}`;
    const t = st.importT;
    st.imports.set(name, { acked: false, t });
    try {
      await postArchive(target, name, once(st.pack));
      st.imports.set(name, { acked: true, t });
      st.importsAcked++;
    } catch (e) {
      if (!stop) throw e;
    }
  };
  const work = Promise.all([...Array.from({ length: o.writers }, writer), pusher(), importer()]);
  let failure: unknown;
  work.catch((e) => { failure ??= e; });
  await new Promise((ok) => setTimeout(ok, killAt));
  stop = true;
  await srv.kill();
  await work.catch(() => undefined);
  if (failure) throw failure;
}

async function check(api: string, st: State): Promise<Omit<IterationResult, 'leftovers' | 'ms' | 'newAcks'>> {
  const rows = await sparql(api, st.ledger, `SELECT ?n ?p WHERE { ?s <${EX}n> ?n OPTIONAL { ?s <${EX}pair> ?p } }`);
  const present = new Set<number>();
  let partial = 0;
  for (const r of rows) {
    const n = Number(r['n']!.value);
    if (!r['p'] || Number(r['p'].value) !== n) partial++;
    present.add(n);
  }
  let lost = 0;
  for (const id of st.acked.keys()) if (!present.has(id)) lost++;
  const landedUnacked = [...present].filter((id) => !st.acked.has(id)).length;
  const info = await getJson<{ t: number }>(`${api}/info/${st.ledger}`);
  // One commit per landed write, nothing else on this ledger.
  const extraCommits = info.body.t - present.size;
  const logProblems: string[] = [];
  const log = await getJson<LogBody>(`${api}/log/${st.ledger}?limit=5000`);
  const ts = log.body.commits.map((c) => c.t);
  if (log.body.count !== info.body.t + 1) logProblems.push(`log count ${log.body.count}, head t ${info.body.t}`);
  ts.forEach((t, k) => { if (t !== info.body.t - k) logProblems.push(`log position ${k} has t ${t}`); });
  if (new Set(log.body.commits.map((c) => c.commit_id)).size !== log.body.commits.length) logProblems.push('duplicate commit ids in /log');
  // Receipts: a sample of acknowledged writes is visible at its t and not before.
  const sample = [...st.acked].sort(() => 0.5 - Math.random()).slice(0, 3);
  for (const [id, t] of sample) {
    const before = await getJson<{ boolean: boolean }>(`${api}/query/${st.ledger}@t:${t - 1}`, { method: 'POST', headers: { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+json' }, body: `ASK { <${EX}w${id}> <${EX}n> ${id} }` });
    const atT = await getJson<{ boolean: boolean }>(`${api}/query/${st.ledger}@t:${t}`, { method: 'POST', headers: { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+json' }, body: `ASK { <${EX}w${id}> <${EX}n> ${id} }` });
    if (atT.body.boolean !== true || before.body.boolean !== false) logProblems.push(`write ${id} acknowledged at t ${t} is ${atT.body.boolean ? '' : 'not '}visible at t ${t} and ${before.body.boolean ? '' : 'not '}at t ${t - 1}`);
  }
  // Mirror: a prefix of the source's history, at least up to the last acknowledged push.
  const pushProblems: string[] = [];
  const mInfo = await getJson<{ t: number }>(`${api}/info/${st.mirror}`);
  if (mInfo.body.t < st.pushAckedT) pushProblems.push(`mirror at t ${mInfo.body.t}, a push was acknowledged at t ${st.pushAckedT}`);
  if (mInfo.body.t > info.body.t) pushProblems.push(`mirror at t ${mInfo.body.t} is ahead of the source (${info.body.t})`);
  const mLog = await getJson<LogBody>(`${api}/log/${st.mirror}?limit=5000`);
  const srcIds = new Map(log.body.commits.map((c) => [c.t, c.commit_id]));
  for (const c of mLog.body.commits) if (srcIds.has(c.t) && srcIds.get(c.t) !== c.commit_id) { pushProblems.push(`mirror commit at t ${c.t} differs from the source's`); break; }
  // Imports: acknowledged ones whole; the others whole or absent.
  const importProblems: string[] = [];
  for (const [name, { acked, t }] of st.imports) {
    const r = await getJson<{ t: number }>(`${api}/info/${name}`);
    if (r.status === 404) { if (acked) importProblems.push(`acknowledged import ${name} is missing`); continue; }
    if (r.status !== 200 || r.body.t !== t) importProblems.push(`import ${name}: ${r.status}, t ${r.body.t} (archive t ${t})`);
  }
  st.imports = new Map([...st.imports].filter(([, v]) => v.acked).slice(-5));
  return { ledger: st.ledger, acked: st.acked.size, landedUnacked, lost, partial, extraCommits, logProblems, pushAcked: st.pushAckedT, pushProblems, imports: st.importsAcked, importProblems };
}

/** Run the soak; returns every iteration's result. Each cycle's server first checks what the previous kill left, then takes the next writes. */
export async function crashSoak(o: SoakOptions): Promise<IterationResult[]> {
  const rnd = prng(o.seed);
  const st: State = { ledger: '', mirror: '', nextId: 1, acked: new Map(), pushAckedT: 0, imports: new Map(), importT: 0, importsAcked: 0 };
  const out: IterationResult[] = [];
  let pending: { ackedBefore: number; t0: number } | undefined;
  for (let i = 0; ; i++) {
    const found = await leftovers(o.dir);
    const srv = await startChildServer(o.serverBundle, o.dir, o.flags);
    try {
      if (pending) {
        const r: IterationResult = { ...(await check(srv.url + API, st)), newAcks: st.acked.size - pending.ackedBefore, leftovers: found, ms: Math.round(performance.now() - pending.t0) };
        out.push(r);
        o.onIteration?.(i - 1, r);
      }
      if (i === o.iterations) break;
      await rotate(o, st, srv, i);
      pending = { ackedBefore: st.acked.size, t0: performance.now() };
      await writeUntilKilled(o, st, rnd, i, srv);
    } finally {
      await srv.kill();
    }
  }
  return out;
}
