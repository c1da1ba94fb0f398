import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
const D = (p) => import(join(process.cwd(), 'dist', p));
const { Connection } = await D('core/ledger/connection.js');
const { openFileStorage } = await D('storage/index.js');
const { commitPage } = await D('core/commit/export-page.js');
const { collectCommitsSince } = await D('server/replication/remote-client.js');
const { receiveCommits } = await D('core/transact/receive.js');
const terms = await D('core/rdf/terms.js');
const durable = process.argv[2] ?? 'commits';
const da = await mkdtemp(join(tmpdir(), 'lg-ra-')), db = await mkdtemp(join(tmpdir(), 'lg-rb-'));
const A = new Connection(await openFileStorage(da, { durable: 'none' }), {});
const B = new Connection(await openFileStorage(db, { durable }), {});
await A.create('x');
const l = await A.ledger('x');
const base = l.head.cid;
// B gets A's genesis via archive-less copy: receive from genesis
await B.create('x');
const EX = 'http://example.org/bench/';
for (let i = 0; i < 1000; i++) {
  await A.transact('x', { kind: 'insert', quads: [{ subject: terms.namedNode(`${EX}item/${i}`), predicate: terms.namedNode(`${EX}seq`), object: terms.literal(String(i), terms.namedNode('http://www.w3.org/2001/XMLSchema#integer')), graph: terms.defaultGraph }], meta: [], opts: {} });
}
let t0 = performance.now();
const batch = await collectCommitsSince(async (cursor) => { const p = await commitPage(l, { limit: 500, lineage: true, cursor: cursor ?? undefined, base }); return { ...p, merged_commits: p.merged_commits ?? [] }; });
console.log('pages ms', Math.round(performance.now() - t0), batch.commits.length);
// B must share the genesis: copy it
const { CID } = await import('multiformats/cid');
await B.content.putWithCid(CID.parse(base), await A.content.get(CID.parse(base)));
const rec = await B.ns.get('x:main'); await B.ns.compareAndSet('x:main', rec, { ...rec, commit_head_id: base, commit_t: 0 });
B.evict?.('x:main');
const lb = await B.ledger('x');
const prof = process.argv[3] ? new Session() : null;
if (prof) { prof.connect(); await prof.post('Profiler.enable'); await prof.post('Profiler.start'); }
t0 = performance.now();
const res = await receiveCommits(B, lb, batch, undefined);
console.log(durable, 'receive ms', Math.round(performance.now() - t0), res.accepted);
if (prof) { const { profile } = await prof.post('Profiler.stop'); writeFileSync(process.argv[3], JSON.stringify(profile)); }
await A.close(); await B.close();
await rm(da, { recursive: true, force: true }); await rm(db, { recursive: true, force: true });
