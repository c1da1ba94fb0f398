/**
 * The storage proxy over real HTTP (http-api.md §4.10, replication.md §11, auth.md §§6–7): the
 * record with `serving`, verified objects with caching headers and ranges, blocks as raw bytes or
 * policy-filtered leaf flakes, and 404 for everything not served. Index objects are found the way a
 * peer finds them: root, then branch, then leaf, all through the proxy.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CID } from 'multiformats/cid';
import { cidOf, Codec, parseCid } from '../../src/core/commit/cid.js';
import { encodeCommit } from '../../src/core/commit/commit-codec.js';
import type { Connection } from '../../src/core/ledger/connection.js';
import { literal, namedNode } from '../../src/core/rdf/terms.js';
import { decodeFlakes, type WireFlake, type WireSid } from '../../src/core/proxy/flakes-codec.js';
import { DID_A, signerA, signerB, token } from '../auth/helpers.js';
import { postJson, postText, startTestServer, type TestServer } from '../support/server.js';
import { CTX, EX, expectError, json } from './helpers.js';

const PEER_ID = 'https://example.com/id/peer';
const XSD = 'http://www.w3.org/2001/XMLSchema#';
const FLAKES = 'application/x-ledgraph-flakes';
const FLAKES_JSON = 'application/x-ledgraph-flakes+json';

/** Ledger data: a peer identity allowed to view ex:name only, and three facts about two people. */
const DATA = {
  '@context': { ...CTX, f: 'https://ns.ledgraph.dev/' },
  '@graph': [
    { '@id': PEER_ID, 'f:policyClass': { '@id': 'ex:PeerPolicy' } },
    { '@id': 'ex:seeNames', '@type': ['f:AccessPolicy', 'ex:PeerPolicy'], 'f:action': { '@id': 'f:view' }, 'f:onProperty': { '@id': 'ex:name' }, 'f:allow': true },
    { '@id': 'ex:alice', 'ex:name': 'Alice', 'ex:age': 42 },
    { '@id': 'ex:bob', 'ex:name': 'Bob' },
  ],
};

interface Record5 { ledger_id: string; commit_head_id: string; commit_t: number; index_head_id: string | null; index_t: number; serving?: string[] }

describe('storage proxy', () => {
  let srv: TestServer;
  let bearer: (claims: Record<string, unknown>, signer?: 'A' | 'B') => Promise<Record<string, string>>;
  let p1: Record<string, string>; // storage scope on p1 only, no identity
  let both: Record<string, string>; // storage scope on p1 and p2

  beforeAll(async () => {
    srv = await startTestServer({ config: { storageProxyEnabled: true, storageProxyTrustedIssuers: [DID_A], storageProxyDebugHeaders: true } });
    bearer = async (claims, signer = 'A') => ({ Authorization: `Bearer ${await token(await (signer === 'A' ? signerA() : signerB()), claims)}` });
    p1 = await bearer({ 'ledgraph.storage.ledgers': ['p1'] });
    both = await bearer({ 'ledgraph.storage.ledgers': ['p1', 'p2:main'] });
    for (const l of ['p1', 'p2']) expect((await postJson(`${srv.api}/create`, { ledger: l })).status).toBe(201);
    await json(await postJson(`${srv.api}/insert/p1`, DATA));
    await json(await postJson(`${srv.api}/reindex`, { ledger: 'p1' }));
    await json(await postJson(`${srv.api}/upsert/p1`, { '@context': CTX, '@id': 'ex:bob', 'ex:name': 'Robert' }));
    await json(await postJson(`${srv.api}/reindex`, { ledger: 'p1' }));
    await json(await postJson(`${srv.api}/insert/p2`, { '@context': CTX, '@id': 'ex:carol', 'ex:name': 'Carol' }));
  });
  afterAll(() => srv.close());

  const record = async (ledger: string, headers: Record<string, string>) => json<Record5>(await fetch(`${srv.api}/storage/ns/${ledger}`, { headers }));
  const object = (cid: string, ledger: string, headers: Record<string, string>, extra: Record<string, string> = {}) =>
    fetch(`${srv.api}/storage/objects/${cid}?ledger=${ledger}`, { headers: { ...headers, ...extra } });
  const block = (cid: string, ledger: string, headers: Record<string, string>, accept?: string) =>
    postJson(`${srv.api}/storage/block`, { cid, ledger }, { ...headers, ...(accept ? { Accept: accept } : {}) });

  it('GET /storage/ns: the nameservice record with serving', async () => {
    const disk = JSON.parse(await readFile(join(srv.dir, 'ns', 'p1%3Amain.json'), 'utf8')) as Record5;
    const r = await record('p1', p1);
    expect(r).toEqual({ ...disk, serving: ['query', 'blocks'] });
    expect(r.commit_t).toBe(2);
    expect(r.index_t).toBe(2);
  });

  it('404 for every refusal: no token, bad token, untrusted issuer, no storage claim, other ledger, unknown ledger', async () => {
    const url = `${srv.api}/storage/ns/p1`;
    await expectError(await fetch(url), 404, 'err:db/LedgerNotFound');
    await expectError(await fetch(url, { headers: { Authorization: 'Bearer not.a.token' } }), 404, 'err:db/LedgerNotFound');
    await expectError(await fetch(url, { headers: await bearer({ 'ledgraph.storage.all': true }, 'B') }), 404, 'err:db/LedgerNotFound');
    await expectError(await fetch(url, { headers: await bearer({ 'ledgraph.ledger.read.all': true }) }), 404, 'err:db/LedgerNotFound');
    await expectError(await fetch(`${srv.api}/storage/ns/p2`, { headers: p1 }), 404, 'err:db/LedgerNotFound');
    await expectError(await fetch(`${srv.api}/storage/ns/nope`, { headers: await bearer({ 'ledgraph.storage.all': true }) }), 404, 'err:db/LedgerNotFound');
    await expectError(await fetch(`${srv.api}/storage/credentials?ledger=p1`, { headers: p1 }), 404, 'err:db/LedgerNotFound', 'object-store');
  });

  it('GET /storage/objects: verified bytes with immutable caching; a single Range gives 206', async () => {
    const r = await record('p1', p1);
    const res = await object(r.commit_head_id, 'p1', p1);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('etag')).toBe(`"${r.commit_head_id}"`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect((await cidOf(Codec.commit, bytes)).toString()).toBe(r.commit_head_id);
    expect(res.headers.get('content-length')).toBe(String(bytes.length));

    const part = await object(r.commit_head_id, 'p1', p1, { Range: 'bytes=5-14' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 5-14/${bytes.length}`);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(bytes.subarray(5, 15));
    const tail = await object(r.commit_head_id, 'p1', p1, { Range: 'bytes=-4' });
    expect(tail.status).toBe(206);
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(bytes.subarray(bytes.length - 4));
    const past = await object(r.commit_head_id, 'p1', p1, { Range: `bytes=${bytes.length}-` });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
  });

  it('GET /storage/objects: commits made after the first request are served too', async () => {
    const before = await record('p2', both);
    expect((await object(before.commit_head_id, 'p2', both)).status).toBe(200);
    const r = await json<{ commit_id: string }>(await postJson(`${srv.api}/insert/p2`, { '@context': CTX, '@id': 'ex:dan', 'ex:name': 'Dan' }));
    expect((await object(r.commit_id, 'p2', both)).status).toBe(200);
    expect((await object(before.commit_head_id, 'p2', both)).status).toBe(200);
  });

  it('GET /storage/objects: only objects of the named ledger; bad CIDs are 400', async () => {
    const r2 = await record('p2', both);
    expect((await object(r2.commit_head_id, 'p2', both)).status).toBe(200);
    await expectError(await object(r2.commit_head_id, 'p1', both), 404, 'err:db/LedgerNotFound', 'not found in ledger p1:main');
    await expectError(await object(r2.commit_head_id, 'p2', p1), 404, 'err:db/LedgerNotFound');
    await expectError(await object('bafkqaaa', 'p1', p1), 404, 'err:db/LedgerNotFound'); // a CID of no Ledgraph kind
    await expectError(await object('zQmNotBase32', 'p1', p1), 400, 'err:db/BadRequest', 'only base32');
    await expectError(await fetch(`${srv.api}/storage/objects/${r2.commit_head_id}`, { headers: both }), 400, 'err:db/BadRequest', 'missing ledger');
  });

  /** The index root, its SPOT branch and the first SPOT leaf, fetched through the proxy like a peer does. */
  async function spotLeaf(): Promise<{ leaf: string; branch: string; prefixes: Map<number, string> }> {
    const r = await record('p1', p1);
    const rootRes = await object(r.index_head_id!, 'p1', p1);
    const root = JSON.parse(await rootRes.text()) as { orders: { spot: string }; ns: [number, string][] };
    const branch = JSON.parse(await (await object(root.orders.spot, 'p1', p1)).text()) as { level: number; children: { cid: string }[] };
    expect(branch.level).toBe(1);
    const prefixes = new Map<number, string>([[0, ''], [1, XSD], [2, 'http://www.w3.org/1999/02/22-rdf-syntax-ns#'], [6, 'https://ns.ledgraph.dev/'], ...root.ns]);
    return { leaf: branch.children[0]!.cid, branch: root.orders.spot, prefixes };
  }

  const iri = (prefixes: Map<number, string>, s: WireSid) => prefixes.get(s.ns)! + s.name;

  it('POST /storage/block: a leaf as flakes filtered by the token identity, history included', async () => {
    const { leaf, prefixes } = await spotLeaf();
    const peer = await bearer({ 'ledgraph.storage.ledgers': ['p1'], 'ledgraph.identity': PEER_ID });
    const res = await block(leaf, 'p1', peer, FLAKES);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(FLAKES);
    expect(res.headers.get('ledgraph-block-type')).toBe('index-leaf');
    expect(res.headers.get('ledgraph-policy-applied')).toBe('filtered');
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.subarray(0, 8)]).toEqual([0x46, 0x4c, 0x4b, 0x42, 0x01, 0, 0, 0]);
    const flakes = decodeFlakes(bytes);
    const readable = flakes.map((f) => ({ ...f, s: iri(prefixes, f.s), p: iri(prefixes, f.p), dt: iri(prefixes, f.dt) }));
    expect(readable).toEqual([
      { s: EX + 'alice', p: EX + 'name', o: { type: 'string', value: 'Alice' }, dt: XSD + 'string', t: 1, op: true },
      { s: EX + 'bob', p: EX + 'name', o: { type: 'string', value: 'Robert' }, dt: XSD + 'string', t: 2, op: true },
      // History: the replaced value, newest event first.
      { s: EX + 'bob', p: EX + 'name', o: { type: 'string', value: 'Bob' }, dt: XSD + 'string', t: 2, op: false },
      { s: EX + 'bob', p: EX + 'name', o: { type: 'string', value: 'Bob' }, dt: XSD + 'string', t: 1, op: true },
    ]);
    // +json is the same array.
    const asJson = await block(leaf, 'p1', peer, FLAKES_JSON);
    expect(asJson.headers.get('content-type')).toBe(FLAKES_JSON);
    expect(await asJson.json()).toEqual(flakes);
  });

  it('POST /storage/block: without an identity the policy is root and every row comes back', async () => {
    const { leaf, prefixes } = await spotLeaf();
    const res = await block(leaf, 'p1', p1); // no Accept: the binary flake format
    expect(res.headers.get('content-type')).toBe(FLAKES);
    expect(res.headers.get('ledgraph-policy-applied')).toBe('root');
    const flakes: WireFlake[] = decodeFlakes(new Uint8Array(await res.arrayBuffer()));
    const age = flakes.find((f) => iri(prefixes, f.p) === EX + 'age')!;
    expect(age).toEqual({ s: age.s, p: age.p, o: { type: 'long', value: 42 }, dt: { ns: 1, name: 'integer' }, t: 1, op: true });
    expect(iri(prefixes, age.s)).toBe(EX + 'alice');
    // Every row of the raw leaf and of its history is there.
    const raw = new Uint8Array(await (await object(leaf, 'p1', p1)).arrayBuffer());
    const dv = new DataView(raw.buffer, raw.byteOffset);
    const cidLen = dv.getUint32(12, true);
    const history = (await import('multiformats/cid')).CID.decode(raw.subarray(16, 16 + cidLen)).toString();
    const hraw = new Uint8Array(await (await object(history, 'p1', p1)).arrayBuffer());
    const rows = dv.getUint32(8, true) + new DataView(hraw.buffer, hraw.byteOffset).getUint32(8, true);
    expect(flakes).toHaveLength(rows);
    // The history blob asked for by its own CID: its events alone, each with its op.
    const events = decodeFlakes(new Uint8Array(await (await block(history, 'p1', p1)).arrayBuffer()));
    expect(events).toEqual(flakes.slice(dv.getUint32(8, true)));
    expect(events.some((f) => !f.op)).toBe(true);
    // octet-stream for a leaf still answers flakes (http-api.md §4.10).
    expect((await block(leaf, 'p1', p1, 'application/octet-stream')).headers.get('content-type')).toBe(FLAKES);
  });

  it('POST /storage/block: other blocks are raw bytes; a flakes Accept is 406', async () => {
    const { branch } = await spotLeaf();
    const raw = await block(branch, 'p1', p1, 'application/octet-stream');
    expect(raw.status).toBe(200);
    expect(raw.headers.get('ledgraph-block-type')).toBe('index-branch');
    const bytes = new Uint8Array(await raw.arrayBuffer());
    expect((await cidOf(Codec.indexBranch, bytes)).toString()).toBe(branch);
    await expectError(await block(branch, 'p1', p1, FLAKES), 406, 'err:db/NotAcceptable', 'index leaves only');
    await expectError(await block(branch, 'p1', p1, FLAKES_JSON), 406, 'err:db/NotAcceptable');
    expect((await block(branch, 'p1', p1, `${FLAKES}, application/octet-stream;q=0.5`)).status).toBe(200);
    await expectError(await postJson(`${srv.api}/storage/block`, { ledger: 'p1' }, p1), 400, 'err:db/BadRequest', 'missing "cid"');
  });

  it('refuses to send an object whose stored bytes no longer match its CID (502, nothing sent)', async () => {
    const r2 = await record('p2', both);
    const path = join(srv.dir, 'objects', r2.commit_head_id.slice(-2), r2.commit_head_id);
    const good = await readFile(path);
    const bad = Buffer.from(good);
    bad[bad.length - 1] ^= 0xff;
    await writeFile(path, bad);
    try {
      const body = await expectError(await object(r2.commit_head_id, 'p2', both), 502, 'err:db/BadGateway', 'failed verification');
      expect(body.error as string).not.toContain(srv.dir);
      await expectError(await block(r2.commit_head_id, 'p2', both, 'application/octet-stream'), 502, 'err:db/BadGateway');
    } finally {
      await writeFile(path, good);
    }
    expect(parseCid(r2.commit_head_id).code).toBe(Codec.commit);
  });
});

/**
 * Append a commit asserting `<#ledger> f:<flag> false` in the config graph (g = 2), the way a pushed
 * commit or a future config write lands: blob stored, head compare-and-set on the nameservice.
 */
async function switchOff(conn: Connection, ledgerId: string, flag: 'serveBlocks' | 'serveQuery'): Promise<void> {
  const ledger = await conn.ledger(ledgerId);
  const rec = (await conn.ns.get(ledgerId))!;
  const { bytes } = encodeCommit({
    t: rec.commit_t + 1, parents: [CID.parse(rec.commit_head_id!)], time: new Date().toISOString(), txn: null, author: '',
    nsDelta: [], graphDelta: [], meta: [],
    flakes: [{ g: 2, s: namedNode('urn:ledgraph:ledger'), p: namedNode('https://ns.ledgraph.dev/' + flag), o: literal('false', namedNode(XSD + 'boolean')), op: true }],
  }, ledger.ns);
  const cid = await conn.content.put(Codec.commit, bytes);
  expect(await conn.ns.compareAndSet(ledgerId, rec, { ...rec, commit_head_id: cid.toString(), commit_t: rec.commit_t + 1 })).toBe(true);
}

describe('f:serveBlocks and f:serveQuery in the config graph', () => {
  it('serveBlocks false: raw-content endpoints answer 404; serveQuery false: query endpoints answer 403', async () => {
    const srv = await startTestServer({ config: { storageProxyEnabled: true, storageProxyTrustedIssuers: [DID_A] } });
    try {
      const h = { Authorization: `Bearer ${await token(await signerA(), { 'ledgraph.storage.all': true })}` };
      for (const l of ['closed', 'shy']) {
        expect((await postJson(`${srv.api}/create`, { ledger: l })).status).toBe(201);
        await json(await postJson(`${srv.api}/insert/${l}`, { '@context': CTX, '@id': 'ex:a', 'ex:name': 'A' }));
      }
      const before = await json<Record5>(await fetch(`${srv.api}/storage/ns/closed`, { headers: h }));
      expect(before.serving).toEqual(['query', 'blocks']);
      await switchOff(srv.conn, 'closed:main', 'serveBlocks');
      await switchOff(srv.conn, 'shy:main', 'serveQuery');
      const after = await json<Record5>(await fetch(`${srv.api}/storage/ns/closed`, { headers: h }));
      expect(after.commit_t).toBe(2);
      expect(after.serving).toEqual(['query']);
      expect((await json<Record5>(await fetch(`${srv.api}/storage/ns/shy`, { headers: h }))).serving).toEqual(['blocks']);
      await expectError(await fetch(`${srv.api}/storage/objects/${before.commit_head_id}?ledger=closed`, { headers: h }), 404, 'err:db/LedgerNotFound');
      await expectError(await postJson(`${srv.api}/storage/block`, { cid: before.commit_head_id, ledger: 'closed' }, h), 404, 'err:db/LedgerNotFound');
      await expectError(await fetch(`${srv.api}/commits/closed`, { headers: h }), 404, 'err:db/LedgerNotFound');
      await expectError(await fetch(`${srv.api}/commits/closed?lineage=true`, { headers: h }), 404, 'err:db/LedgerNotFound');
      const packReq = (cid: string) => ({ protocol: 'ledgraph-pack-v1', want: [cid], include_indexes: false });
      await expectError(await postJson(`${srv.api}/pack/closed`, packReq(before.commit_head_id!), h), 404, 'err:db/LedgerNotFound');
      // f:serveQuery false leaves the raw-content endpoints open.
      const shy = await json<Record5>(await fetch(`${srv.api}/storage/ns/shy`, { headers: h }));
      expect((await json<{ head_t: number }>(await fetch(`${srv.api}/commits/shy`, { headers: h }))).head_t).toBe(2);
      const shyPack = await postJson(`${srv.api}/pack/shy`, packReq(shy.commit_head_id!), h);
      expect(shyPack.status).toBe(200);
      expect((await shyPack.arrayBuffer()).byteLength).toBeGreaterThan(5);
      // f:serveQuery false: every query endpoint of this origin refuses the ledger; others still answer.
      const sparql = (ledger: string) => postText(`${srv.api}/query/${ledger}`, 'application/sparql-query', 'SELECT ?n WHERE { ?s <http://example.org/name> ?n }');
      await expectError(await sparql('shy'), 403, 'err:db/Forbidden', 'f:serveQuery false');
      await expectError(await postText(`${srv.api}/query`, 'application/sparql-query', 'SELECT ?n FROM <shy:main> WHERE { ?s ?p ?n }'), 403, 'err:db/Forbidden');
      await expectError(await postJson(`${srv.api}/query`, { '@context': CTX, from: 'shy', select: ['?n'], where: { '@id': '?s', 'ex:name': '?n' } }), 403, 'err:db/Forbidden');
      await expectError(await postJson(`${srv.api}/query`, { '@context': CTX, from: 'shy', select: ['?n'], where: { '@id': '?s', 'ex:name': '?n' } }, { Accept: 'application/sparql-results+json' }), 403, 'err:db/Forbidden');
      await expectError(await postText(`${srv.api}/stream/query/shy`, 'application/sparql-query', 'SELECT ?n WHERE { ?s ?p ?n }'), 403, 'err:db/Forbidden');
      await expectError(await postJson(`${srv.api}/multi-query`, { queries: { a: { language: 'sparql', query: 'SELECT ?n FROM <shy:main> WHERE { ?s ?p ?n }' } } }), 403, 'err:db/Forbidden');
      expect(await json(await sparql('closed'))).toEqual({ head: { vars: ['n'] }, results: { bindings: [{ n: { type: 'literal', value: 'A' } }] } });
    } finally {
      await srv.close();
    }
  });
});

describe('storage proxy defaults', () => {
  it('is off by default (404 even with a good token)', async () => {
    const srv = await startTestServer({ config: { storageProxyTrustedIssuers: [DID_A] } });
    try {
      expect((await postJson(`${srv.api}/create`, { ledger: 'x' })).status).toBe(201);
      const h = { Authorization: `Bearer ${await token(await signerA(), { 'ledgraph.storage.all': true })}` };
      await expectError(await fetch(`${srv.api}/storage/ns/x`, { headers: h }), 404, 'err:db/LedgerNotFound');
    } finally {
      await srv.close();
    }
  });

  it('refuses to start enabled with no issuer it could trust', async () => {
    await expect(startTestServer({ config: { storageProxyEnabled: true } })).rejects.toThrow('--storage-proxy-trusted-issuer');
  });

  it('filters leaves with --storage-proxy-default-identity when the token names none', async () => {
    const srv = await startTestServer({ config: { storageProxyEnabled: true, storageProxyTrustedIssuers: [DID_A], storageProxyDefaultIdentity: PEER_ID } });
    try {
      expect((await postJson(`${srv.api}/create`, { ledger: 'd' })).status).toBe(201);
      await json(await postJson(`${srv.api}/insert/d`, DATA));
      await json(await postJson(`${srv.api}/reindex`, { ledger: 'd' }));
      const h = { Authorization: `Bearer ${await token(await signerA(), { 'ledgraph.storage.all': true })}` };
      const rec = await json<Record5>(await fetch(`${srv.api}/storage/ns/d`, { headers: h }));
      const root = JSON.parse(await (await fetch(`${srv.api}/storage/objects/${rec.index_head_id}?ledger=d`, { headers: h })).text()) as { orders: { psot: string } };
      const branch = JSON.parse(await (await fetch(`${srv.api}/storage/objects/${root.orders.psot}?ledger=d`, { headers: h })).text()) as { children: { cid: string }[] };
      const res = await postJson(`${srv.api}/storage/block`, { cid: branch.children[0]!.cid, ledger: 'd' }, { ...h, Accept: FLAKES_JSON });
      const flakes = await json<WireFlake[]>(res);
      expect(flakes.map((f) => (f.o as { value: string }).value)).toEqual(['Alice', 'Bob']);
    } finally {
      await srv.close();
    }
  });
});
