/** The pipeline side of SPARQL Update: operations in order, one commit, each seeing the earlier ones. */
import { describe, expect, it } from 'vitest';
import { Connection } from '../../src/core/ledger/connection.js';
import { querySparql } from '../../src/core/query/engine.js';
import { collect } from '../../src/core/query/results/types.js';
import { defaultGraph, literal, namedNode, variable } from '../../src/core/rdf/terms.js';
import type { TxnQuad, UpdateOperation } from '../../src/core/transact/txn-request.js';
import { openMemoryStorage } from '../../src/storage/index.js';

const ex = (s: string) => namedNode('http://ex.org/' + s);
const quad = (s: string, o: string, g?: string): TxnQuad => ({ subject: ex(s), predicate: ex('p'), object: literal(o), graph: g ? ex(g) : defaultGraph });
const run = (conn: Connection, ...ops: UpdateOperation[]) => conn.transact('u', { kind: 'sparql-update', ops, meta: [], opts: {} });

async function rows(conn: Connection, q: string): Promise<string[]> {
  const res = await querySparql(q, { view: await conn.db('u') });
  if (res.type !== 'bindings') throw new Error('bindings');
  return (await collect(res.rows)).map((r) => res.variables.map((v) => r[v]?.value ?? '-').join(' ')).sort();
}

describe('sparql-update requests', () => {
  it('each operation sees the previous ones; the request is one commit', async () => {
    const conn = new Connection(openMemoryStorage());
    await conn.create('u');
    const r = await run(conn,
      { type: 'insertData', quads: [quad('a', '1'), quad('b', '2')] },
      // DELETE WHERE { ?s ex:p "1" } sees the insert above.
      { type: 'modify', where: { type: 'bgp', patterns: [{ s: variable('s'), p: ex('p'), o: literal('1') }] }, delete: [{ subject: variable('s'), predicate: ex('p'), object: literal('1'), graph: defaultGraph }], insert: [] },
      { type: 'copy', from: defaultGraph, to: ex('g'), silent: false },
    );
    expect(r).toMatchObject({ t: 1, flakes_added: 2, flakes_retracted: 0 });
    expect(await rows(conn, 'SELECT ?s ?o { ?s ?p ?o }')).toEqual(['http://ex.org/b 2']);
    expect(await rows(conn, 'SELECT ?s ?o { GRAPH <http://ex.org/g> { ?s ?p ?o } }')).toEqual(['http://ex.org/b 2']);
  });

  it('MOVE, CLEAR and DROP with SILENT; a failing operation commits nothing', async () => {
    const conn = new Connection(openMemoryStorage());
    await conn.create('u');
    await run(conn, { type: 'insertData', quads: [quad('a', '1', 'g1'), quad('b', '2', 'g2'), quad('c', '3')] });
    const size = (await conn.ledger('u')).dict.size;
    await expect(run(conn, { type: 'insertData', quads: [quad('new', 'unseen term')] }, { type: 'drop', target: ex('nope'), silent: false }))
      .rejects.toMatchObject({ status: 400 });
    expect((await conn.ledger('u')).t).toBe(1);
    expect((await conn.ledger('u')).dict.size).toBe(size);
    const r = await run(conn, { type: 'move', from: ex('g1'), to: ex('g2'), silent: false }, { type: 'drop', target: ex('nope'), silent: true }, { type: 'clear', target: 'default', silent: false });
    expect(r).toMatchObject({ t: 2 });
    expect(await rows(conn, 'SELECT ?g ?s { GRAPH ?g { ?s ?p ?o } }')).toEqual(['http://ex.org/g2 http://ex.org/a']);
    expect(await rows(conn, 'SELECT ?s { ?s ?p ?o }')).toEqual([]);
  });

  it('refuses LOAD (no network) but skips LOAD SILENT', async () => {
    const conn = new Connection(openMemoryStorage());
    await conn.create('u');
    await expect(run(conn, { type: 'load', source: ex('data.ttl'), silent: false })).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/LOAD <http:\/\/ex.org\/data.ttl> is not supported/) });
    expect(await run(conn, { type: 'load', source: ex('data.ttl'), silent: true }, { type: 'insertData', quads: [quad('a', '1')] })).toMatchObject({ t: 1, flakes_added: 1 });
  });
});
