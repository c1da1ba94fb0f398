/** Commit history over real HTTP: GET /show (§2.2, §2.3) and GET /log (§2.4). */
import { CID } from 'multiformats/cid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, postText, startTestServer, type TestServer } from '../support/server.js';
import { CTX, EX, expectError, json } from './helpers.js';

interface Receipt { t: number; commit_id: string; timestamp: string; previous_commit_id: string }
interface Summary { t: number; commit_id: string; time: string; asserts: number; retracts: number; flake_count: number; message: string | null }
interface LogBody { ledger_id: string; commits: Summary[]; count: number; truncated: boolean }

const XSD = 'http://www.w3.org/2001/XMLSchema#';
const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const hexDigest = (cid: string) => Buffer.from(CID.parse(cid).multihash.digest).toString('hex');

let srv: TestServer;
let genesis: string;
const r: Receipt[] = [];

beforeAll(async () => {
  srv = await startTestServer();
  genesis = (await json<{ commit: { commit_id: string } }>(await postJson(`${srv.api}/create`, { ledger: 'h/ist' }), 201)).commit.commit_id;
  r[1] = await json<Receipt>(await postJson(`${srv.api}/insert/h/ist`, {
    '@context': { ...CTX, f: 'https://ns.ledgraph.dev/' },
    '@graph': [{ '@id': 'ex:ana', '@type': 'ex:Person', 'schema:name': 'Ana', 'ex:tags': { '@list': ['a', 'b'] }, 'ex:score': 1.5, 'ex:ok': true, 'ex:big': 12345678901234567890 }],
    'f:message': 'first load',
  }));
  r[2] = await json<Receipt>(await postText(`${srv.api}/update/h/ist`, 'application/sparql-update',
    `PREFIX ex: <${EX}> PREFIX schema: <http://schema.org/> DELETE DATA { ex:ana schema:name "Ana" } ; INSERT DATA { ex:ana schema:name "Ana"@pt . GRAPH ex:g { ex:ana ex:n 7 } }`));
});
afterAll(async () => { await srv.close(); });

describe('GET /show', () => {
  it('decodes a commit by t with compacted flake tuples and their metadata', async () => {
    const show = await json(await fetch(`${srv.api}/show/h/ist?commit=t:2`));
    expect(show).toEqual({
      id: r[2]!.commit_id, t: 2, time: r[2]!.timestamp, size: expect.any(Number), previous: r[1]!.commit_id, asserts: 2, retracts: 1,
      '@context': { xsd: XSD, rdf: RDF, schema: 'http://schema.org/', ex: EX },
      flakes: [
        // Commit order: (g, s, p, o, dt), so rdf:langString sorts before xsd:string.
        ['ex:ana', 'schema:name', 'Ana', 'rdf:langString', true, { lang: 'pt' }],
        ['ex:ana', 'schema:name', 'Ana', 'xsd:string', false],
        ['ex:ana', 'ex:n', 7, 'xsd:integer', true, { g: 'ex:g' }],
      ],
    });
    expect(show.size).toBeGreaterThan(100);
  });

  it('prints native values, list indexes and references', async () => {
    const show = await json<{ flakes: unknown[]; previous: string; asserts: number; retracts: number }>(await fetch(`${srv.api}/show/h/ist?commit=t:1`));
    expect(show.previous).toBe(genesis);
    expect([show.asserts, show.retracts]).toEqual([7, 0]);
    expect(show.flakes).toEqual(expect.arrayContaining([
      ['ex:ana', 'rdf:type', 'ex:Person', '@id', true],
      ['ex:ana', 'ex:tags', 'a', 'xsd:string', true, { i: 0 }],
      ['ex:ana', 'ex:tags', 'b', 'xsd:string', true, { i: 1 }],
      ['ex:ana', 'ex:score', 1.5, 'xsd:double', true],
      ['ex:ana', 'ex:ok', true, 'xsd:boolean', true],
    ]));
    expect(show.flakes).toHaveLength(7);
  });

  it('shows the genesis commit with no previous and no flakes', async () => {
    expect(await json(await fetch(`${srv.api}/show/h/ist:main?commit=t:0`))).toEqual({
      id: genesis, t: 0, time: expect.any(String), size: expect.any(Number), previous: null, asserts: 0, retracts: 0, '@context': {}, flakes: [],
    });
  });

  it('resolves a full CID and a hex digest prefix of at least 6 characters', async () => {
    const byCid = await json<{ t: number }>(await fetch(`${srv.api}/show/h/ist?commit=${r[1]!.commit_id}`));
    expect(byCid.t).toBe(1);
    const hex = hexDigest(r[2]!.commit_id);
    expect((await json<{ id: string }>(await fetch(`${srv.api}/show/h/ist?commit=${hex.slice(0, 6)}`))).id).toBe(r[2]!.commit_id);
    expect((await json<{ id: string }>(await fetch(`${srv.api}/show/h/ist?commit=${hex.toUpperCase()}`))).id).toBe(r[2]!.commit_id);
  });

  it('answers 400 for a missing, invalid or too short reference and 404 for an unknown one', async () => {
    await expectError(await fetch(`${srv.api}/show/h/ist`), 400, 'err:db/BadRequest', 'missing commit');
    await expectError(await fetch(`${srv.api}/show/h/ist?commit=latest`), 400, 'err:db/BadRequest', 'invalid commit reference');
    await expectError(await fetch(`${srv.api}/show/h/ist?commit=abc12`), 400, 'err:db/BadRequest', 'at least 6 hex characters');
    await expectError(await fetch(`${srv.api}/show/h/ist?commit=t:3`), 404, 'err:db/LedgerNotFound', 'no commit at t 3 (head is t 2)');
    await expectError(await fetch(`${srv.api}/show/h/ist?commit=000000`), 404, 'err:db/LedgerNotFound', 'commit 000000 not found');
    await expectError(await fetch(`${srv.api}/show/other?commit=t:0`), 404, 'err:db/LedgerNotFound', 'ledger other:main not found');
  });
});

describe('GET /log', () => {
  it('lists every commit newest first with counts and messages', async () => {
    const log = await json<LogBody>(await fetch(`${srv.api}/log/h/ist`));
    expect(log).toEqual({
      ledger_id: 'h/ist:main', count: 3, truncated: false,
      commits: [
        { t: 2, commit_id: r[2]!.commit_id, time: r[2]!.timestamp, asserts: 2, retracts: 1, flake_count: 3, message: null },
        { t: 1, commit_id: r[1]!.commit_id, time: r[1]!.timestamp, asserts: 7, retracts: 0, flake_count: 7, message: 'first load' },
        { t: 0, commit_id: genesis, time: expect.any(String), asserts: 0, retracts: 0, flake_count: 0, message: null },
      ],
    });
  });

  it('caps the page at limit and reports truncation', async () => {
    const log = await json<LogBody>(await fetch(`${srv.api}/log/h/ist?limit=1`));
    expect(log.commits.map((c) => c.t)).toEqual([2]);
    expect([log.count, log.truncated]).toEqual([3, true]);
    const none = await json<LogBody>(await fetch(`${srv.api}/log/h/ist?limit=0`));
    expect([none.commits, none.count, none.truncated]).toEqual([[], 3, true]);
    // Above the hard maximum the limit is clamped, not refused.
    expect((await json<LogBody>(await fetch(`${srv.api}/log/h/ist?limit=999999`))).commits).toHaveLength(3);
  });

  it('answers 400 for a bad limit and 404 for a missing ledger', async () => {
    await expectError(await fetch(`${srv.api}/log/h/ist?limit=-1`), 400, 'err:db/BadRequest', 'limit must be a non-negative integer');
    await expectError(await fetch(`${srv.api}/log/h/ist?limit=ten`), 400, 'err:db/BadRequest', 'limit');
    await expectError(await fetch(`${srv.api}/log/missing:main`), 404, 'err:db/LedgerNotFound', 'ledger missing:main not found');
  });
});
