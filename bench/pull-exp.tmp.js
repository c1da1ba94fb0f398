import { fork, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const ROOT = process.cwd();
const BIN = join(ROOT, 'bin/ledgraph.js');
const data = process.argv[2] ?? 'bench/data/bsbm-2825.nt';
const work = await mkdtemp(join(tmpdir(), 'lg-pullexp-'));
const keys = JSON.parse(spawnSync(process.execPath, [BIN, 'token', 'keygen'], { encoding: 'utf8' }).stdout);
const token = spawnSync(process.execPath, [BIN, 'token', 'create', '--key', keys.private_key, '--storage-all'], { encoding: 'utf8' }).stdout.trim();
function start(name, data) {
  const child = fork(join(ROOT, 'bench/repl-server.js'), ['--storage', join(work, name), '--issuer', keys.did, ...(data ? ['--data', data] : [])], { execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const replies = [];
  return new Promise((ok) => child.on('message', (m) => { if (m.type === 'ready') ok({ child, ...m, ask: (msg) => new Promise((r) => { replies.push(r); child.send(msg); }) }); else replies.shift()?.(m); }));
}
const [a, b] = await Promise.all([start('a', data), start('b')]);
const rc = await import(join(ROOT, 'dist/server/replication/remote-client.js'));
const A = { name: 'a', api: a.api, token }, B = { name: 'b', api: b.api, token };
let t0 = performance.now();
const h = await rc.remoteHeads(A, 'bsbm');
const body = await rc.fetchPack(A, 'bsbm', { want: [h.commitId], have: [], include_indexes: true, want_index_root_id: h.indexId });
const { readPack } = await import(join(ROOT, 'dist/core/pack/reader.js'));
const { reframe } = await import(join(ROOT, 'dist/core/pack/writer.js'));
await rc.postArchive(B, 'bsbm', reframe(readPack(body, { maxFrameBytes: 1 << 28 }), { phase: 'nameservice', ledger_id: 'bsbm:main', name: 'bsbm', branch: 'main', commit_head_id: h.commitId, commit_t: h.t, index_head_id: h.indexId, index_t: h.indexT }));
console.log('clone ms', Math.round(performance.now() - t0));
await b.ask({ type: 'open', ledger: 'bsbm:main' });
let base = h.commitId;
for (let rep = 0; rep < 3; rep++) {
  await a.ask({ type: 'commits', ledger: 'bsbm:main', n: 1000 });
  t0 = performance.now();
  const hb = await rc.remoteHeads(B, 'bsbm');
  const t05 = performance.now();
  const batch = await rc.fetchCommitsSince(A, 'bsbm', hb.commitId);
  const t1 = performance.now();
  const res = await rc.pushCommits(B, 'bsbm', batch);
  const t2 = performance.now();
  console.log('heads ms', Math.round(t05 - t0), 'fetch ms', Math.round(t1 - t05), 'push ms', Math.round(t2 - t1), res.accepted);
}
a.child.kill(); b.child.kill();
await rm(work, { recursive: true, force: true });
