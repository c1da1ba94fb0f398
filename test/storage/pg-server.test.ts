/**
 * Transaction servers over real HTTP with `--nameservice postgres://...`: two servers sharing one
 * content directory and one PostgreSQL nameservice race writes to one ledger; every acknowledged
 * write is present on both, and the commit t values are contiguous.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger, postJson, startTestServer, type TestServer } from '../support/server.js';
import { pgUnavailable, startPgCluster, type PgCluster } from './pg-cluster.js';

const why = pgUnavailable();
if (why) console.warn(`\n!!! SKIPPING PostgreSQL server tests: ${why}\n`);

const CTX = { ex: 'http://example.org/' };

describe.skipIf(why !== null)('servers sharing a PostgreSQL nameservice', () => {
  let cluster: PgCluster;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    cluster = await startPgCluster();
    const ns = { nameservice: cluster.url, nameserviceSchema: 'http_race' };
    a = await startTestServer({ config: ns });
    b = await startTestServer({ config: { ...ns, storagePath: a.dir } });
  }, 120_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await cluster?.stop();
  });

  it('keeps the ledger record in PostgreSQL and both servers see it', async () => {
    await createLedger(a, 'shared');
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    const { rows } = await admin.query(`SELECT ledger_id, commit_t FROM http_race.records`);
    await admin.end();
    expect(rows).toEqual([{ ledger_id: 'shared:main', commit_t: '0' }]);
    const r = await postJson(`${b.api}/create`, { ledger: 'shared' });
    expect(r.status).toBe(409);
  });

  it('two servers racing writes to one ledger: every acknowledged write present, t contiguous', async () => {
    const acked: { n: string; t: number }[] = [];
    const conflicts: number[] = [];
    const writer = async (srv: TestServer, name: string) => {
      for (let i = 0; i < 12; i++) {
        const n = `${name}${i}`;
        const r = await postJson(`${srv.api}/insert/shared`, { '@context': CTX, '@id': `ex:${n}`, 'ex:n': n });
        const body = await r.json() as { t: number };
        if (r.status === 200) acked.push({ n, t: body.t });
        else { expect(r.status).toBe(409); conflicts.push(r.status); }
      }
    };
    await Promise.all([writer(a, 'a'), writer(b, 'b')]);
    expect(acked.length + conflicts.length).toBe(24);
    expect(acked.length).toBeGreaterThan(0);
    const ts = acked.map((x) => x.t).sort((x, y) => x - y);
    expect(ts).toEqual(Array.from({ length: acked.length }, (_, i) => i + 1));

    const query = { '@context': CTX, select: '?n', where: { '@id': '?s', 'ex:n': '?n' }, from: 'shared' };
    const expected = acked.map((x) => x.n).sort();
    // The other server learns the last head over LISTEN/NOTIFY, asynchronously: wait (bounded) until
    // it has caught up to the last acknowledged t, then every acknowledged write must be there.
    const lastT = ts[ts.length - 1]!;
    for (const srv of [a, b]) {
      const deadline = Date.now() + 10_000;
      let rows: string[] = [];
      for (;;) {
        rows = await (await postJson(`${srv.api}/query`, query)).json() as string[];
        if (rows.length >= expected.length || Date.now() > deadline) break;
        await new Promise((ok) => setTimeout(ok, 20));
      }
      expect(rows.sort(), `server ${srv === a ? 'a' : 'b'} at t ${lastT}`).toEqual(expected);
    }
  }, 60_000);
});
