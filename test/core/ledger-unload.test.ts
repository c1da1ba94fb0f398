/**
 * Connection's bound on loaded ledgers (maxLoadedLedgers, `--max-loaded-ledgers`): past it the
 * least recently used idle ledgers are unloaded and read from storage again on their next use;
 * a ledger with a write holding its lock stays.
 */
import { describe, expect, it } from 'vitest';
import { Connection } from '../../src/core/ledger/connection.js';
import { runSparql } from '../../src/core/query/sparql-service.js';
import { collect } from '../../src/index.js';
import { defaultGraph, literal, namedNode } from '../../src/core/rdf/terms.js';
import type { TxnRequest } from '../../src/core/transact/txn-request.js';
import { openMemoryStorage } from '../../src/storage/index.js';

const insert = (v: string): TxnRequest => ({
  kind: 'insert', quads: [{ subject: namedNode('http://ex.org/s'), predicate: namedNode('http://ex.org/p'), object: literal(v), graph: defaultGraph }], meta: [], opts: {},
});

async function values(conn: Connection, ledger: string): Promise<string[]> {
  const { result } = await runSparql(conn, 'SELECT ?o WHERE { ?s <http://ex.org/p> ?o }', { ledger });
  if (result.type !== 'bindings') throw new Error('expected bindings');
  return (await collect(result.rows)).map((r) => r['o']!.value).sort();
}

describe('maxLoadedLedgers', () => {
  it('unloads the least recently used idle ledgers and reads them back on their next use', async () => {
    const conn = new Connection(openMemoryStorage(), { maxLoadedLedgers: 2, indexingEnabled: false });
    for (const name of ['a', 'b', 'c']) {
      await conn.create(name);
      await conn.transact(name, insert(`${name}1`));
    }
    expect(conn.loadedCount).toBe(2);
    expect(conn.loadedLedger('a:main')).toBeUndefined(); // the least recently used went
    expect(conn.unloadedCount).toBe(1);
    // b is used, so c (now the least recently used) goes when a is loaded again
    expect(await values(conn, 'b')).toEqual(['b1']);
    expect(await values(conn, 'a')).toEqual(['a1']);
    expect(conn.loadedLedger('c:main')).toBeUndefined();
    expect(conn.loadedLedger('b:main')).toBeDefined();
    // an unloaded ledger takes writes again from its stored head
    await conn.transact('c', insert('c2'));
    expect(await values(conn, 'c')).toEqual(['c1', 'c2']);
    expect(conn.loadedCount).toBe(2);
    expect(conn.unloadedCount).toBe(3);
  });

  it('a ledger used again and again stays the most recent; one used after another moves back to the end', async () => {
    const conn = new Connection(openMemoryStorage(), { maxLoadedLedgers: 2, indexingEnabled: false });
    for (const name of ['a', 'b']) {
      await conn.create(name);
      await conn.transact(name, insert(`${name}1`));
    }
    // a twice (the second use finds it last already), so b is the least recently used.
    expect(await values(conn, 'a')).toEqual(['a1']);
    expect(await values(conn, 'a')).toEqual(['a1']);
    await conn.create('c');
    expect(conn.loadedLedger('b:main')).toBeUndefined();
    expect(conn.loadedLedger('a:main')).toBeDefined();
    // a, then c (newly loaded after a's last move), then a again: a must move behind c.
    expect(await values(conn, 'a')).toEqual(['a1']);
    expect(await values(conn, 'c')).toEqual([]);
    expect(await values(conn, 'a')).toEqual(['a1']);
    expect(await values(conn, 'b')).toEqual(['b1']);
    expect(conn.loadedLedger('c:main')).toBeUndefined();
    expect(conn.loadedLedger('a:main')).toBeDefined();
  });

  it('keeps a ledger whose lock is held, passing the bound while it is', async () => {
    const conn = new Connection(openMemoryStorage(), { maxLoadedLedgers: 1, indexingEnabled: false });
    await conn.create('busy');
    const busy = await conn.ledger('busy');
    let release!: () => void;
    const held = busy.lock.run(() => new Promise<void>((ok) => { release = ok; }));
    await conn.create('other');
    expect(conn.loadedLedger('busy:main')).toBeDefined();
    expect(conn.loadedCount).toBe(2);
    release();
    await held;
    await conn.create('third');
    expect(conn.loadedLedger('busy:main')).toBeUndefined();
    expect(conn.loadedLedger('other:main')).toBeUndefined();
    expect(conn.loadedCount).toBe(1);
  });

  it('keeps every ledger without a bound', async () => {
    const conn = new Connection(openMemoryStorage(), { indexingEnabled: false });
    for (let i = 0; i < 5; i++) await conn.create(`l${i}`);
    expect(conn.loadedCount).toBe(5);
    expect(conn.unloadedCount).toBe(0);
  });
});
