/** policy.md §6: an update's WHERE reads through the writer's view policies, so a permitted write cannot copy hidden values. */
import { describe, expect, it } from 'vitest';
import { ALICE, hrLedger, rows, update } from './fixtures.js';

describe('update WHERE under a write identity', () => {
  it("cannot copy bob's hidden salary into alice's own name", async () => {
    const conn = await hrLedger();
    const r = await update(conn, 'hr', {
      where: { '@id': 'ex:bob', 'ex:salary': '?s' },
      delete: { '@id': 'ex:alice', 'ex:name': 'Alice' },
      insert: { '@id': 'ex:alice', 'ex:name': '?s' },
      opts: { identity: ALICE },
    });
    // The WHERE sees no salary of bob, so the variable template writes nothing; the ground delete
    // (a permitted rename of herself) still applies.
    expect(r.flakes_added).toBe(0);
    expect(await rows(conn, 'SELECT ?n WHERE { ex:alice ex:name ?n }')).toEqual([]);
    expect(await rows(conn, 'SELECT ?o WHERE { ?s ?p ?o FILTER(?o = 95000) }')).toEqual([[95000]]);
  });

  it('sees what the identity may view', async () => {
    const conn = await hrLedger();
    const r = await update(conn, 'hr', {
      where: { '@id': 'ex:alice', 'ex:salary': '?s' },
      delete: { '@id': 'ex:alice', 'ex:name': 'Alice' },
      insert: { '@id': 'ex:alice', 'ex:name': '?s' },
      opts: { identity: ALICE },
    });
    expect(r).toMatchObject({ flakes_added: 1, flakes_retracted: 1 });
  });
});
