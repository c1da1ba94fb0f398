/** Diagnostics over real HTTP: /health, discovery, /swagger.json, /stats, /exists, /info, /ledgers, unknown routes. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger, postJson, startTestServer, type TestServer } from '../support/server.js';
import { CTX, EX, expectError, json } from './helpers.js';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
  await createLedger(srv, 'diag/a');
  await createLedger(srv, 'diag/b:dev');
  await json(await postJson(`${srv.api}/insert/diag/a`, {
    '@context': CTX, '@graph': [
      { '@id': 'ex:ana', '@type': 'ex:Person', 'ex:name': 'Ana', 'ex:knows': { '@id': 'ex:ben' } },
      { '@id': 'ex:ben', '@type': 'ex:Person', 'ex:name': 'Ben', 'ex:age': 40 },
    ],
  }));
});
afterAll(async () => { await srv.close(); });

describe('root diagnostics', () => {
  it('answers /health and the discovery document', async () => {
    expect(await json(await fetch(`${srv.url}/health`))).toEqual({ status: 'ok', version: 'test' });
    expect(await json(await fetch(`${srv.url}/.well-known/ledgraph.json`))).toEqual({ version: 1, api_base_url: '/v1/ledgraph', push: { merged_commits: true } });
  });

  it('publishes an OpenAPI 3.0 document listing every route', async () => {
    const doc = await json<{ openapi: string; info: { version: string }; paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; responses: Record<string, unknown> }>> }>(await fetch(`${srv.url}/swagger.json`));
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.info.version).toBe('test');
    const ops = Object.entries(doc.paths).flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`));
    for (const op of [
      'GET /health', 'GET /.well-known/ledgraph.json', 'GET /swagger.json',
      'GET /v1/ledgraph/stats', 'GET /v1/ledgraph/exists/{ledger}', 'GET /v1/ledgraph/info/{ledger}', 'GET /v1/ledgraph/ledgers',
      'POST /v1/ledgraph/create', 'POST /v1/ledgraph/drop', 'POST /v1/ledgraph/reindex',
      'POST /v1/ledgraph/update', 'POST /v1/ledgraph/update/{ledger}', 'POST /v1/ledgraph/insert', 'POST /v1/ledgraph/insert/{ledger}',
      'POST /v1/ledgraph/upsert', 'POST /v1/ledgraph/upsert/{ledger}', 'POST /v1/ledgraph/sync', 'POST /v1/ledgraph/sync/{ledger}',
      'GET /v1/ledgraph/data/{ledger}', 'HEAD /v1/ledgraph/data/{ledger}', 'PUT /v1/ledgraph/data/{ledger}', 'POST /v1/ledgraph/data/{ledger}', 'DELETE /v1/ledgraph/data/{ledger}',
      'GET /v1/ledgraph/show/{ledger}', 'GET /v1/ledgraph/log/{ledger}',
    ]) expect(ops).toContain(op);
    const info = doc.paths['/v1/ledgraph/info/{ledger}']!.get!;
    expect(info.parameters!.map((p) => `${p.in}:${p.name}`)).toEqual([
      'path:ledger', 'query:realtime_property_details', 'query:include_property_datatypes', 'query:include_property_estimates',
    ]);
    expect(Object.keys(info.responses)).toEqual(['200', '400', '404']);
  });

  it('answers unknown routes with 404 err:db/LedgerNotFound', async () => {
    await expectError(await fetch(`${srv.api}/nothing/here`), 404, 'err:db/LedgerNotFound', 'no route for GET /v1/ledgraph/nothing/here');
    await expectError(await fetch(`${srv.url}/elsewhere`, { method: 'POST' }), 404, 'err:db/LedgerNotFound', 'no route for POST /elsewhere');
  });
});

describe('GET /stats', () => {
  it('reports the server', async () => {
    await fetch(`${srv.api}/info/diag/a`);
    const s = await json<Record<string, unknown>>(await fetch(`${srv.api}/stats`));
    expect(s).toEqual({ uptime_secs: expect.any(Number), storage_type: 'file', indexing_enabled: true, cached_ledgers: 2, version: 'test' });
    expect(s.uptime_secs).toBeGreaterThanOrEqual(0);
  });

  it('reports memory storage and disabled indexing from the config', async () => {
    const mem = await startTestServer({ config: { memory: true, indexingEnabled: false } });
    try {
      expect(await json(await fetch(`${mem.api}/stats`))).toEqual({ uptime_secs: 0, storage_type: 'memory', indexing_enabled: false, cached_ledgers: 0, version: 'test' });
    } finally {
      await mem.close();
    }
  });
});

describe('GET /exists', () => {
  it('answers from the nameservice, normalising bare names', async () => {
    expect(await json(await fetch(`${srv.api}/exists/diag/a`))).toEqual({ ledger: 'diag/a:main', exists: true });
    expect(await json(await fetch(`${srv.api}/exists/diag/b:dev`))).toEqual({ ledger: 'diag/b:dev', exists: true });
    expect(await json(await fetch(`${srv.api}/exists/diag/b`))).toEqual({ ledger: 'diag/b:main', exists: false });
    await expectError(await fetch(`${srv.api}/exists/bad%20name`), 400, 'err:db/BadRequest', 'invalid ledger name');
  });
});

describe('GET /info', () => {
  const P = (local: string) => `${EX}${local}`;

  it('returns heads and real-time stats with datatypes and class details by default', async () => {
    const info = await json<Record<string, any>>(await fetch(`${srv.api}/info/diag/a`));
    const log = await json<{ commits: { commit_id: string }[] }>(await fetch(`${srv.api}/log/diag/a?limit=1`));
    expect(info.ledger).toBe('diag/a:main');
    expect(info.t).toBe(1);
    expect(info.commitId).toBe(log.commits[0]!.commit_id);
    expect(info.commit).toEqual({ commit_id: info.commitId, t: 1 });
    expect(info.index).toEqual({ id: null, t: 0 });
    expect(info.indexId).toBeNull();
    expect(info.stats.flakes).toBe(6);
    expect(info.stats.indexed).toBe(0);
    expect(info.stats.properties[P('name')]).toEqual({ count: 2, 'last-modified-t': 1, datatypes: { 'http://www.w3.org/2001/XMLSchema#string': 2 } });
    expect(info.stats.classes[P('Person')]).toEqual({
      count: 2,
      properties: {
        'http://www.w3.org/1999/02/22-rdf-syntax-ns#type': { count: 2, refs: 2, 'ref-classes': {} },
        [P('name')]: { count: 2, refs: 0, 'ref-classes': {} },
        [P('knows')]: { count: 1, refs: 1, 'ref-classes': { [P('Person')]: 1 } },
        [P('age')]: { count: 1, refs: 0, 'ref-classes': {} },
      },
      'property-list': [P('age'), P('knows'), P('name'), 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type'],
    });
  });

  it('honours realtime_property_details, include_property_datatypes and include_property_estimates', async () => {
    const light = await json<Record<string, any>>(await fetch(`${srv.api}/info/diag/a?realtime_property_details=false&include_property_datatypes=false`));
    expect(light.stats.classes[P('Person')]).toEqual({ count: 2 });
    expect(light.stats.properties[P('name')]).toEqual({ count: 2, 'last-modified-t': 1 });
    await json(await postJson(`${srv.api}/reindex`, { ledger: 'diag/a' }));
    const est = await json<Record<string, any>>(await fetch(`${srv.api}/info/diag/a?include_property_estimates=true&include_property_datatypes=false`));
    expect(est.stats.properties[P('name')]).toEqual({ count: 2, 'last-modified-t': 1, 'ndv-values': 2, 'ndv-subjects': 2, selectivity: 1 });
    expect(est.stats.indexed).toBe(1);
    await expectError(await fetch(`${srv.api}/info/diag/a?include_property_estimates=perhaps`), 400, 'err:db/BadRequest', 'include_property_estimates must be true or false');
  });

  it('answers 404 for a missing ledger', async () => {
    await expectError(await fetch(`${srv.api}/info/diag/zzz`), 404, 'err:db/LedgerNotFound', 'ledger diag/zzz:main not found');
  });
});

describe('GET /ledgers', () => {
  it('lists every live ledger sorted by id', async () => {
    const list = await json<Record<string, unknown>[]>(await fetch(`${srv.api}/ledgers`));
    const info = await json<{ commitId: string; index: { id: string; t: number } }>(await fetch(`${srv.api}/info/diag/a`));
    expect(list).toEqual([
      { ledger: 'diag/a:main', name: 'diag/a', branch: 'main', t: 1, commit_id: info.commitId, index_t: info.index.t, index_id: info.index.id },
      { ledger: 'diag/b:dev', name: 'diag/b', branch: 'dev', t: 0, commit_id: expect.stringMatching(/^bag/), index_t: 0, index_id: null },
    ]);
  });
});
