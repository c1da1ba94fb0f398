/**
 * The stored default context over real HTTP (docs/default-context.md): set at /create, read and
 * replaced through /context/<ledger>, used by JSON-LD queries without @context (jsonld-query.md
 * §2.3) and by Cypher names (cypher.md §3), kept by later commits, published on /events, and shared
 * by a second server on the same storage.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultServerConfig, type ServerConfig } from '../../src/server/config.js';
import { silentLogger } from '../../src/server/log.js';
import { startLedgraphServer, type LedgraphServer } from '../../src/server/main.js';
import { postJson, postText, startTestServer, type TestServer } from '../support/server.js';
import { subscribe } from '../support/sse.js';
import { expectError, json, until } from './helpers.js';

const C1 = { '@vocab': 'http://example.org/', ex: 'http://example.org/', schema: 'http://schema.org/' };
const C2 = { s: 'http://schema.org/', e: 'http://example.org/' };
const TTL = `@prefix ex: <http://example.org/> . @prefix schema: <http://schema.org/> .
ex:ana a ex:Person ; schema:name "Ana" ; ex:age 34 .`;

let srv: TestServer;
const put = (ledger: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${srv.api}/context/${ledger}`, { method: 'PUT', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
const query = async (ledger: string, q: unknown) => json<unknown>(await postJson(`${srv.api}/query/${ledger}`, q));
const cypher = async (ledger: string, text: string) =>
  (await json<{ results: { data: { row: unknown[] }[] }[] }>(await postText(`${srv.api}/query/${ledger}`, 'application/cypher', text))).results[0]!.data.map((d) => d.row);

beforeAll(async () => {
  srv = await startTestServer();
  expect((await postJson(`${srv.api}/create`, { ledger: 'ctx', '@context': C1 })).status).toBe(201);
  expect((await postText(`${srv.api}/insert/ctx:main`, 'text/turtle', TTL)).status).toBe(200);
});
afterAll(async () => { await srv?.close(); });

describe('stored default context', () => {
  it('is set by /create and read by GET /context', async () => {
    const body = await json<Record<string, unknown>>(await fetch(`${srv.api}/context/ctx:main`));
    expect(body['ledger']).toBe('ctx:main');
    expect(body['@context']).toEqual(C1);
    expect(body['default_context']).toMatch(/^b/);
    // Kept by the commit made since (the record's field survives the pipeline's publish).
    expect((await srv.conn.ns.get('ctx:main'))!.default_context).toBe(body['default_context']);
  });

  it('compacts and expands a JSON-LD query without @context; an own @context (even null) replaces it', async () => {
    const q = { select: { '?p': ['*'] }, where: { '@id': '?p', '@type': 'Person' } };
    expect(await query('ctx:main', q)).toEqual([{ '@id': 'ex:ana', '@type': 'ex:Person', 'ex:age': 34, 'schema:name': 'Ana' }]);
    expect(await query('ctx:main', { ...q, '@context': null, where: { '@id': '?p', '@type': 'http://example.org/Person' } }))
      .toEqual([{ '@id': 'http://example.org/ana', '@type': 'http://example.org/Person', 'http://example.org/age': 34, 'http://schema.org/name': 'Ana' }]);
    // The connection-scoped form with one `from` ledger uses that ledger's context too.
    expect(await json(await postJson(`${srv.api}/query`, { from: 'ctx:main', select: '?n', where: { '@id': '?p', 'schema:name': '?n' } }))).toEqual(['Ana']);
  });

  it('resolves Cypher names in a raw-text statement', async () => {
    expect(await cypher('ctx:main', 'MATCH (p:Person) RETURN id(p), p.age, p.`schema:name`, labels(p), keys(p)'))
      .toEqual([['ex:ana', 34, 'Ana', ['Person'], ['age', 'http://schema.org/name']]]);
  });

  it('is replaced by PUT /context (published on /events) and cleared with null', async () => {
    const sub = await subscribe(`${srv.api}/events?ledger=ctx`);
    try {
      const r = await json<Record<string, unknown>>(await put('ctx:main', { '@context': C2 }));
      expect(r).toEqual({ ledger: 'ctx:main', '@context': C2, default_context: expect.stringMatching(/^b/) });
      await until(() => sub.events.some((e) => e.event === 'ns-record' && (e.data.record as Record<string, unknown>)['default_context'] === r['default_context']));
    } finally {
      sub.close();
    }
    expect(await cypher('ctx:main', 'MATCH (p:`e:Person`) RETURN p.`e:age`, keys(p)')).toEqual([[34, ['http://example.org/age', 'http://schema.org/name']]]);
    expect(await query('ctx:main', { select: '?n', where: { '@id': '?p', 's:name': '?n' } })).toEqual(['Ana']);
    expect((await json<Record<string, unknown>>(await put('ctx:main', { '@context': null })))['default_context']).toBeNull();
    expect((await json<Record<string, unknown>>(await fetch(`${srv.api}/context/ctx:main`)))['@context']).toBeNull();
    expect(await query('ctx:main', { select: '?n', where: { '@id': '?p', 'http://schema.org/name': '?n' } })).toEqual(['Ana']);
    expect((await json<Record<string, unknown>>(await put('ctx:main', { '@context': C1 })))['@context']).toEqual(C1);
  });

  it('a commit after a replacement keeps it, and a second server on the same storage sees it', async () => {
    expect((await postText(`${srv.api}/insert/ctx:main`, 'text/turtle', '<http://example.org/ben> a <http://example.org/Person> .')).status).toBe(200);
    const config: ServerConfig = { ...defaultServerConfig(), host: '127.0.0.1', port: 0, storagePath: srv.dir };
    const other: LedgraphServer = await startLedgraphServer(config, { version: 'test', log: silentLogger });
    try {
      const body = await json<Record<string, unknown>>(await fetch(`${other.url}${config.apiBaseUrl}/context/ctx:main`));
      expect(body['@context']).toEqual(C1);
    } finally {
      await other.close(0);
    }
  });

  it('refuses bad contexts, time specifiers, unknown ledgers and wrong bodies', async () => {
    await expectError(await put('ctx:main', { '@context': 'https://example.org/ctx.jsonld' }), 400, 'err:db/BadRequest', 'remote context');
    await expectError(await put('ctx:main', { '@context': { x: { '@id': 5 } } }), 400, 'err:db/BadRequest');
    await expectError(await put('ctx:main', { context: C1 }), 400, 'err:db/BadRequest', '@context');
    await expectError(await put('ctx:main@t:1', { '@context': C1 }), 400, 'err:db/BadRequest', 'time specifier');
    await expectError(await put('nope:main', { '@context': C1 }), 404, 'err:db/LedgerNotFound');
    await expectError(await fetch(`${srv.api}/context/nope:main`), 404, 'err:db/LedgerNotFound');
    await expectError(await fetch(`${srv.api}/context/ctx:main`, { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: '{}' }), 415, 'err:db/UnsupportedMediaType');
    await expectError(await postJson(`${srv.api}/create`, { ledger: 'bad', '@context': ['x'] }), 400, 'err:db/BadRequest');
    expect((await srv.conn.ns.get('bad:main'))).toBeNull();
  });
});
