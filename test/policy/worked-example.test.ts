/** policy.md §7, the worked example: every caller of the read table and every write of the write table. */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Connection } from '../../src/core/ledger/connection.js';
import { isLedgraphError } from '../../src/core/errors.js';
import { runSparql } from '../../src/core/query/sparql-service.js';
import { ALICE, HANA, PREFIXES, ZED, hrLedger, rows, update } from './fixtures.js';

const QUERY = 'SELECT ?name ?salary WHERE { ?p ex:name ?name OPTIONAL { ?p ex:salary ?salary } } ORDER BY ?name';

async function refusal(p: Promise<unknown>): Promise<{ status: number; type: string; message: string }> {
  try {
    await p;
  } catch (e) {
    if (isLedgraphError(e)) return { status: e.status, type: e.type, message: e.message };
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('policy.md §7 reads', () => {
  let conn: Connection;
  beforeAll(async () => { conn = await hrLedger(); });

  it('alice sees employee names and only her own salary', async () => {
    expect(await rows(conn, QUERY, { policy: { identity: ALICE } })).toEqual([['Alice', 120000], ['Bob', null]]);
  });

  it('hana (default policy ex:hrAll) sees everything', async () => {
    expect(await rows(conn, QUERY, { policy: { identity: HANA } })).toEqual([['Alice', 120000], ['Bob', 95000], ['Carol', null]]);
  });

  it('an identity not in the ledger sees nothing (fail closed)', async () => {
    expect(await rows(conn, QUERY, { policy: { identity: ZED } })).toEqual([]);
    expect(await rows(conn, QUERY, { policy: { identity: ZED, defaultAllow: true } })).toEqual([]);
  });

  it('no inputs: root view, salaries included', async () => {
    expect(await rows(conn, QUERY)).toEqual([['Alice', 120000], ['Bob', 95000], ['Carol', null]]);
    expect(await rows(conn, QUERY, { policy: {} })).toEqual([['Alice', 120000], ['Bob', 95000], ['Carol', null]]);
  });

  it('SPARQL pragma identity feeds the same input as opts', async () => {
    const { policyInputsFromPragmas } = await import('../../src/core/policy/index.js');
    const text = `# PRAGMA identity <${ALICE}>\n${PREFIXES}${QUERY}`;
    const r = await runSparql(conn, text, { ledger: 'hr', policy: policyInputsFromPragmas(text) });
    if (r.result.type !== 'bindings') throw new Error('bindings expected');
    const out: unknown[][] = [];
    for await (const row of r.result.rows) out.push([row['name']?.value ?? null, row['salary']?.value ?? null]);
    expect(out).toEqual([['Alice', '120000'], ['Bob', null]]);
    expect(r.policy()).toMatchObject({ executed: 2, allowed: 1 });
    expect(r.policy().policies).toEqual({
      'http://example.org/ownSalary': { executed: 2, allowed: 1 },
      'http://example.org/staffView': { executed: 0, allowed: 0 },
    });
  });

  it('alice sees neither Carol, the identity nodes nor the policies', async () => {
    expect(await rows(conn, 'SELECT DISTINCT ?s WHERE { ?s ?p ?o } ORDER BY ?s', { policy: { identity: ALICE } })).toEqual([['ex:alice'], ['ex:bob']]);
  });

  it('only default-allow false: everything denied except schema flakes', async () => {
    expect(await rows(conn, 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }', { policy: { defaultAllow: false } })).toEqual([[0]]);
  });

  it('a policy class without an identity loads that class', async () => {
    expect(await rows(conn, QUERY, { policy: { policyClass: ['http://example.org/HrPolicy'] } })).toEqual([['Alice', 120000], ['Bob', 95000], ['Carol', null]]);
  });

  it('policy-values binds ?$identity when no identity is given', async () => {
    expect(await rows(conn, QUERY, {
      policy: { policyClass: ['http://example.org/StaffPolicy'], policyValues: { '?$identity': ALICE } },
    })).toEqual([['Alice', 120000], ['Bob', null]]);
    // Without the binding, ?$identity matches nothing: no salary at all.
    expect(await rows(conn, QUERY, { policy: { policyClass: ['http://example.org/StaffPolicy'] } })).toEqual([['Alice', null], ['Bob', null]]);
  });
});

describe('policy.md §7 writes as alice (opts.identity, no credential)', () => {
  let conn: Connection;
  beforeAll(async () => { conn = await hrLedger(); });

  it('renaming herself commits', async () => {
    const r = await update(conn, 'hr', {
      delete: { '@id': 'ex:alice', 'ex:name': 'Alice' }, insert: { '@id': 'ex:alice', 'ex:name': 'Ali' },
      opts: { identity: ALICE },
    });
    expect(r).toMatchObject({ t: 2, flakes_added: 1, flakes_retracted: 1 });
  });

  it('renaming bob is refused with the policy message; nothing commits', async () => {
    const before = (await conn.ledger('hr')).t;
    expect(await refusal(update(conn, 'hr', {
      delete: { '@id': 'ex:bob', 'ex:name': 'Bob' }, insert: { '@id': 'ex:bob', 'ex:name': 'Ali' },
      opts: { identity: ALICE },
    }))).toEqual({ status: 403, type: 'err:db/Forbidden', message: 'You may only rename yourself.' });
    expect((await conn.ledger('hr')).t).toBe(before);
    expect(await rows(conn, 'SELECT ?n WHERE { ex:bob ex:name ?n }')).toEqual([['Bob']]);
  });

  it('raising her own salary is refused with the default message', async () => {
    expect(await refusal(update(conn, 'hr', { insert: { '@id': 'ex:alice', 'ex:salary': 130000 }, opts: { identity: ALICE } })))
      .toEqual({ status: 403, type: 'err:db/Forbidden', message: 'Policy enforcement prevents modification.' });
  });

  it('the same as hana commits', async () => {
    const r = await update(conn, 'hr', { insert: { '@id': 'ex:alice', 'ex:salary': 130000 }, opts: { identity: HANA } });
    expect(r).toMatchObject({ t: 3, flakes_added: 1, flakes_retracted: 0 });
  });
});
