/**
 * What a program using the `ledgraph` package does, written once against its public API: shared
 * by test/package/exports.test.ts (Node, and a Vite bundle run as a module) and the e2e case that
 * runs a Vite app in Chromium. `lib` is the imported package, `storage` a fresh storage.
 */
export const EXPECTED = { result: [['Ana', 34], ['Ben', 27]], names: ['Ana'], quads: 4, error: '409 err:db/LedgerExists' };

const ctx = { ex: 'http://example.org/', schema: 'http://schema.org/' };

export async function demo(lib, storage) {
  const { Connection, parseJsonLdTxn, runJsonLdQuery, runSparql, collect, LedgerStore, isLedgraphError } = lib;
  const conn = new Connection(storage);
  await conn.create('demo:main');
  await conn.transact('demo:main', await parseJsonLdTxn({ '@context': ctx, '@graph': [
    { '@id': 'ex:ana', 'schema:name': 'Ana', 'schema:age': 34 },
    { '@id': 'ex:ben', 'schema:name': 'Ben', 'schema:age': 27 }] }, 'insert'));
  const { result } = await runJsonLdQuery(conn, {
    '@context': ctx, select: ['?name', '?age'], where: { '@id': '?p', 'schema:name': '?name', 'schema:age': '?age' }, orderBy: '?name',
  }, { ledger: 'demo:main' });
  const sparql = await runSparql(conn, 'SELECT ?n WHERE { ?p <http://schema.org/age> ?a ; <http://schema.org/name> ?n FILTER(?a > 30) }', { ledger: 'demo:main' });
  const names = (await collect(sparql.result.rows)).map((r) => r.n.value);
  const quads = await new LedgerStore(conn, 'demo:main').countQuads();
  let error = null;
  try { await conn.create('demo:main'); } catch (e) { error = isLedgraphError(e) ? `${e.status} ${e.type}` : String(e); }
  return { result, names, quads, error };
}
