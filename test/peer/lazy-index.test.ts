/**
 * A cold peer in proxy mode fetches what a query touches, not the ledger (replication.md §14.3,
 * DESIGN.md "Index"): opening a ledger reads the root, the dictionary's page filters and the branch nodes; a
 * point query then reads one leaf of the index order it scans. Counted on the peer's
 * storage-proxy client and asserted against the number of leaves the ledger has.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CID } from 'multiformats/cid';
import { Codec } from '../../src/core/commit/cid.js';
import { indexArtifacts } from '../../src/core/index/artifacts.js';
import { runSparql } from '../../src/core/query/sparql-service.js';
import { openPeer, type Peer } from '../../src/peer/open-peer.js';
import { MemoryContentStore } from '../../src/storage/memory-store.js';
import { startTx, storageToken, tempDir, type Node } from './helpers.js';

const SUBJECTS = 20_000;

async function* ntriples(): AsyncGenerator<string> {
  for (let i = 0; i < SUBJECTS; i += 1000) {
    let chunk = '';
    for (let j = i; j < i + 1000; j++) {
      chunk += `<http://example.org/p${j}> <http://example.org/name> "Person ${j}" .\n`;
      chunk += `<http://example.org/p${j}> <http://example.org/age> "${j % 90}"^^<http://www.w3.org/2001/XMLSchema#integer> .\n`;
      chunk += `<http://example.org/p${j}> <http://example.org/knows> <http://example.org/p${(j * 7 + 1) % SUBJECTS}> .\n`;
    }
    yield chunk;
  }
}

describe('cold proxy peer: lazy index', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let tx: Node;
  let peer: Peer;
  let leaves = 0;
  let ledgerBytes = 0;
  let dictObjects = 0;
  let dictBytes = 0;

  beforeAll(async () => {
    dir = await tempDir();
    tx = await startTx(dir.dir);
    const conn = tx.server.state.conn;
    await conn.create('big');
    await conn.bulkLoad('big', ntriples());
    const rec = (await conn.ns.get('big:main'))!;
    const art = (await indexArtifacts(conn.content, rec.index_head_id!))!;
    for (const o of art.objects) {
      const cid = CID.parse(o);
      if (cid.code === Codec.indexLeaf) leaves++;
      const n = (await conn.content.get(cid)).length;
      ledgerBytes += n;
      if (cid.code === Codec.dict) { dictObjects++; dictBytes += n; }
    }
    peer = openPeer({ api: tx.api, cache: new MemoryContentStore(), storageToken: await storageToken(), ledgers: ['big'], eventsUrl: false });
  }, 120_000);
  afterAll(async () => {
    await peer?.close();
    await tx?.close();
    await dir?.remove();
  });

  it('a point query fetches one leaf per scanned order, not the ledger', async () => {
    expect(leaves).toBeGreaterThanOrEqual(12); // several leaves per order, so fetching all would show
    const stats = peer.client!.stats;
    await peer.conn.ledger('big');
    const opened = { ...stats, byKind: { ...stats.byKind }, bytesByKind: { ...stats.bytesByKind } };
    // Opening reads the root, one branch node per order, and of the dictionary only the page
    // filters and the page holding rdf:type; no leaf, and not the commit the index covers.
    expect(opened.byKind.indexLeaf ?? 0).toBe(0);
    expect(opened.byKind.commit ?? 0).toBe(0);
    expect(opened.byKind.indexRoot).toBe(1);
    expect(opened.byKind.indexBranch).toBe(4);
    expect(dictObjects).toBeGreaterThan(20);
    expect(opened.byKind.dict).toBeLessThanOrEqual(4);
    const r = await runSparql(peer.conn, 'SELECT ?name ?age WHERE { <http://example.org/p12345> <http://example.org/name> ?name ; <http://example.org/age> ?age }', { ledger: 'big' });
    if (r.result.type !== 'bindings') throw new Error('bindings expected');
    const rows: unknown[] = [];
    for await (const b of r.result.rows) rows.push([b['name']?.value, b['age']?.value]);
    expect(rows).toEqual([['Person 12345', '15']]);
    const leafFetches = (stats.byKind.indexLeaf ?? 0) - (opened.byKind.indexLeaf ?? 0);
    expect(leafFetches).toBeGreaterThanOrEqual(1);
    expect(leafFetches).toBeLessThanOrEqual(2);
    console.log(JSON.stringify({ ledger_index_bytes: ledgerBytes, leaves, dict_objects: dictObjects, dict_bytes: dictBytes, fetched: stats, leaf_fetches: leafFetches }));
    // The dictionary pages fetched are those of the query's constants and results (plus filter
    // false positives), not the dictionary; the index nodes are the root, a branch per order, a leaf.
    expect(stats.byKind.dict!).toBeLessThanOrEqual(10);
    expect(stats.bytesByKind.dict!).toBeLessThan(dictBytes / 3);
    expect(stats.bytes).toBeLessThan(ledgerBytes / 4);
    expect(stats.bytesByKind.indexLeaf! + stats.bytesByKind.indexBranch! + stats.bytesByKind.indexRoot!).toBeLessThan(ledgerBytes / 8);
  });
});
