/** Shared fixtures of the policy tests: the policy.md §7 ledger and small query helpers. */
import { Connection } from '../../src/core/ledger/connection.js';
import { runSparql, type SparqlRequest } from '../../src/core/query/sparql-service.js';
import { collect } from '../../src/core/query/results/types.js';
import type { Term } from '../../src/core/rdf/terms.js';
import { parseJsonLdTxn } from '../../src/core/transact/parse-jsonld.js';
import { openMemoryStorage } from '../../src/storage/index.js';

export const CTX = { ex: 'http://example.org/', f: 'https://ns.ledgraph.dev/' };
export const PREFIXES = 'PREFIX ex: <http://example.org/> PREFIX f: <https://ns.ledgraph.dev/> PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n';
export const ALICE = 'https://example.com/id/alice';
export const HANA = 'https://example.com/id/hana';
export const ZED = 'https://example.com/id/zed';

/** The ledger of policy.md §7, verbatim. */
export const HR_DATA = [
  { '@id': 'ex:alice', '@type': 'ex:Employee', 'ex:name': 'Alice', 'ex:salary': 120000 },
  { '@id': 'ex:bob', '@type': 'ex:Employee', 'ex:name': 'Bob', 'ex:salary': 95000 },
  { '@id': 'ex:carol', '@type': 'ex:Contractor', 'ex:name': 'Carol' },
  { '@id': 'https://example.com/id/alice', 'ex:person': { '@id': 'ex:alice' }, 'f:policyClass': { '@id': 'ex:StaffPolicy' } },
  { '@id': 'https://example.com/id/hana', 'f:policyClass': { '@id': 'ex:HrPolicy' } },

  { '@id': 'ex:staffView', '@type': ['f:AccessPolicy', 'ex:StaffPolicy'],
    'f:action': { '@id': 'f:view' }, 'f:onClass': { '@id': 'ex:Employee' }, 'f:allow': true },
  { '@id': 'ex:ownSalary', '@type': ['f:AccessPolicy', 'ex:StaffPolicy'],
    'f:action': { '@id': 'f:view' }, 'f:onProperty': { '@id': 'ex:salary' }, 'f:required': true,
    'f:query': { '@type': '@json', '@value': { '@context': { ex: 'http://example.org/' },
      where: { '@id': '?$identity', 'ex:person': { '@id': '?$this' } } } } },
  { '@id': 'ex:renameSelf', '@type': ['f:AccessPolicy', 'ex:StaffPolicy'],
    'f:action': { '@id': 'f:modify' }, 'f:onProperty': { '@id': 'ex:name' },
    'f:query': { '@type': '@json', '@value': { '@context': { ex: 'http://example.org/' },
      where: { '@id': '?$identity', 'ex:person': { '@id': '?$this' } } } },
    'f:exMessage': 'You may only rename yourself.' },
  { '@id': 'ex:hrAll', '@type': ['f:AccessPolicy', 'ex:HrPolicy'],
    'f:action': [{ '@id': 'f:view' }, { '@id': 'f:modify' }], 'f:allow': true },
];

/** A memory connection with ledger `hr:main` holding the §7 data. */
export async function hrLedger(): Promise<Connection> {
  const conn = new Connection(openMemoryStorage());
  await conn.create('hr');
  await insert(conn, 'hr', HR_DATA);
  return conn;
}

/** Insert JSON-LD nodes (context CTX) as one transaction. */
export async function insert(conn: Connection, ledger: string, graph: unknown[], opts?: Record<string, unknown>) {
  const body = { '@context': CTX, '@graph': graph, ...(opts ? { opts } : {}) };
  return conn.transact(ledger, await parseJsonLdTxn(body, 'insert'), { body, contentType: 'application/json' });
}

/** Run a JSON-LD update/insert body. */
export async function update(conn: Connection, ledger: string, body: Record<string, unknown>, mode: 'insert' | 'upsert' | 'update' = 'update') {
  const full = { '@context': CTX, ...body };
  return conn.transact(ledger, await parseJsonLdTxn(full, mode), { body: full, contentType: 'application/json' });
}

/** A term as a plain JSON value: IRIs compacted with ex:, numbers as numbers, strings as strings. */
export function plain(t: Term | undefined): unknown {
  if (!t) return null;
  if (t.termType === 'NamedNode') return t.value.replace('http://example.org/', 'ex:');
  if (t.termType === 'BlankNode') return '_:' + t.value;
  if (/#(integer|long|int|decimal|double)$/.test(t.datatype.value)) return Number(t.value);
  if (t.datatype.value.endsWith('#boolean')) return t.value === 'true';
  return t.value;
}

/** SELECT rows as arrays of plain values (variables in projection order). */
export async function rows(conn: Connection, text: string, req: SparqlRequest = {}): Promise<unknown[][]> {
  const r = await runSparql(conn, PREFIXES + text, { ledger: 'hr', ...req });
  if (r.result.type === 'boolean') return [[r.result.value]];
  if (r.result.type !== 'bindings') throw new Error('expected bindings');
  const vars = r.result.variables;
  return (await collect(r.result.rows)).map((row) => vars.map((v) => plain(row[v])));
}
