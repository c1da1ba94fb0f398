/** Child process of durability.test.ts: commits one fact per transaction and prints each acknowledged t. */
import { Connection } from '../../src/core/ledger/connection.js';
import { defaultGraph, literal, namedNode } from '../../src/core/rdf/terms.js';
import { xsd } from '../../src/core/rdf/vocab.js';
import { openFileStorage } from '../../src/storage/index.js';

const [dir] = process.argv.slice(2) as [string];
const conn = new Connection(await openFileStorage(dir), { reindexMinBytes: 1500 });
const ledger = await conn.ledger('dur');
for (let i = ledger.t + 1; ; i++) {
  const r = await conn.transact('dur', {
    kind: 'insert',
    quads: [{ subject: namedNode(`http://ex.org/s${i}`), predicate: namedNode('http://ex.org/n'), object: literal(String(i), namedNode(xsd.integer)), graph: defaultGraph }],
    meta: [], opts: {},
  });
  process.stdout.write(`ack ${r.t}\n`);
}
