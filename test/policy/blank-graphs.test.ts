/**
 * Policy over graphs named by a blank node (docs/jsonld-transactions.md): facts in such a graph are
 * governed like any others, and a blank-named graph whose every fact is hidden leaves the dataset,
 * so `GRAPH ?g` cannot reveal it (policy.md §5).
 */
import { describe, expect, it } from 'vitest';
import { Connection } from '../../src/core/ledger/connection.js';
import { openMemoryStorage } from '../../src/storage/index.js';
import { insert, rows } from './fixtures.js';

const ME = 'https://example.com/id/me';

async function ledger(policies: Record<string, unknown>[]): Promise<Connection> {
  const conn = new Connection(openMemoryStorage());
  await conn.create('hr');
  await insert(conn, 'hr', [
    { '@id': 'ex:a', 'ex:name': 'A' },
    // A node with @graph and no @id: a graph named by a blank node.
    { '@graph': [{ '@id': 'ex:a', 'ex:salary': 10 }, { '@id': 'ex:b', 'ex:name': 'B' }] },
    { '@id': ME, 'f:policyClass': { '@id': 'ex:P' } },
    ...policies.map((p, i) => ({ '@id': `ex:pol${i}`, '@type': ['f:AccessPolicy', 'ex:P'], 'f:action': { '@id': 'f:view' }, ...p })),
  ]);
  return conn;
}

const GRAPHS = 'SELECT ?g ?s ?o WHERE { GRAPH ?g { ?s ?p ?o } } ORDER BY ?s';

describe('policy over blank-named graphs', () => {
  it('without policy GRAPH ?g binds the blank graph name', async () => {
    const conn = await ledger([]);
    expect(await rows(conn, GRAPHS)).toEqual([['_:lg1-b0', 'ex:a', 10], ['_:lg1-b0', 'ex:b', 'B']]);
  });

  it('facts in it are filtered by the rules; a fully hidden graph is not revealed', async () => {
    const names = await ledger([{ 'f:onProperty': { '@id': 'ex:name' }, 'f:allow': true }]);
    expect(await rows(names, GRAPHS, { policy: { identity: ME } })).toEqual([['_:lg1-b0', 'ex:b', 'B']]);
    const nick = await ledger([{ 'f:onProperty': { '@id': 'ex:nick' }, 'f:allow': true }]);
    expect(await rows(nick, 'SELECT ?g WHERE { GRAPH ?g { } }', { policy: { identity: ME } })).toEqual([]);
    expect(await rows(nick, 'SELECT ?g WHERE { GRAPH ?g { } }')).toEqual([['_:lg1-b0']]);
  });
});
