/** policy.md §2–§4 rule by rule: targets, decisions, selection, schema flakes, time, inline policies. */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Connection } from '../../src/core/ledger/connection.js';
import { policyView } from '../../src/core/policy/index.js';
import { policyInputsFromPragmas, parsePolicyValues, isRootPolicy } from '../../src/core/policy/inputs.js';
import { parseInlinePolicies } from '../../src/core/policy/model.js';
import { isLedgraphError } from '../../src/core/errors.js';
import { CTX, insert, rows } from './fixtures.js';
import { Connection as Conn } from '../../src/core/ledger/connection.js';
import { openMemoryStorage } from '../../src/storage/index.js';

const EX = 'http://example.org/';
const ME = 'https://example.com/id/me';

/** A fresh `hr` ledger with some people, the identity `me` in class ex:P, and the given policies (class ex:P). */
async function ledgerWith(policies: Record<string, unknown>[], extra: Record<string, unknown>[] = []): Promise<Connection> {
  const conn = new Conn(openMemoryStorage());
  await conn.create('hr');
  await insert(conn, 'hr', [
    { '@id': 'ex:a', '@type': 'ex:Manager', 'ex:name': 'A', 'ex:salary': 10, 'ex:nick': 'aa' },
    { '@id': 'ex:b', '@type': 'ex:Employee', 'ex:name': 'B', 'ex:salary': 20, 'ex:boss': { '@id': 'ex:a' } },
    { '@id': 'ex:c', '@type': 'ex:Other', 'ex:name': 'C' },
    { '@id': ME, 'ex:person': { '@id': 'ex:a' }, 'f:policyClass': { '@id': 'ex:P' } },
    ...policies.map((p, i) => ({ '@id': `ex:pol${i}`, '@type': ['f:AccessPolicy', 'ex:P'], ...p })),
    ...extra,
  ]);
  return conn;
}

const ALL = 'SELECT ?s ?p ?o WHERE { ?s ?p ?o FILTER(?p != rdf:type || isIRI(?o)) FILTER(STRSTARTS(STR(?s), "http://example.org/") && !STRSTARTS(STR(?s), "http://example.org/pol")) } ORDER BY ?s ?p ?o';
const as = (identity = ME, extra: Record<string, unknown> = {}) => ({ policy: { identity, ...extra } });

describe('targets (§2)', () => {
  it('f:onProperty targets flakes of that property (and its sub-properties)', async () => {
    const conn = await ledgerWith([{ 'f:onProperty': { '@id': 'ex:name' }, 'f:allow': true }],
      [{ '@id': 'ex:nick', 'rdfs:subPropertyOf': { '@id': 'ex:name' } }]);
    expect(await rows(conn, 'SELECT ?s ?n WHERE { ?s ex:name|ex:nick ?n } ORDER BY ?n', as())).toEqual([['ex:a', 'A'], ['ex:b', 'B'], ['ex:c', 'C'], ['ex:a', 'aa']]);
    expect(await rows(conn, 'SELECT ?s WHERE { ?s ex:salary ?x }', as())).toEqual([]);
  });

  it('f:onClass targets subjects of the class or a sub-class', async () => {
    const conn = await ledgerWith([{ 'f:onClass': { '@id': 'ex:Employee' }, 'f:allow': true }],
      [{ '@id': 'ex:Manager', 'rdfs:subClassOf': { '@id': 'ex:Employee' } }]);
    expect(await rows(conn, 'SELECT ?s ?n WHERE { ?s ex:name ?n } ORDER BY ?s', as())).toEqual([['ex:a', 'A'], ['ex:b', 'B']]);
  });

  it('f:onSubject targets named subjects only', async () => {
    const conn = await ledgerWith([{ 'f:onSubject': [{ '@id': 'ex:c' }], 'f:allow': true }]);
    expect(await rows(conn, 'SELECT ?s ?p ?o WHERE { ?s ?p ?o } ORDER BY ?p', as())).toEqual([
      ['ex:c', 'ex:name', 'C'], ['ex:c', 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type', 'ex:Other'],
    ]);
  });

  it('several target predicates intersect (salary of employees only)', async () => {
    const conn = await ledgerWith([{ 'f:onProperty': { '@id': 'ex:salary' }, 'f:onClass': { '@id': 'ex:Employee' }, 'f:allow': true }]);
    expect(await rows(conn, 'SELECT ?s ?x WHERE { ?s ?p ?x }', as())).toEqual([['ex:b', 20]]);
  });

  it('targets naming unknown IRIs match nothing', async () => {
    const conn = await ledgerWith([{ 'f:onProperty': { '@id': 'ex:nothingLikeThis' }, 'f:allow': true }]);
    expect(await rows(conn, 'SELECT (COUNT(*) AS ?n) WHERE { ?s ex:name ?o }', as())).toEqual([[0]]);
    expect(await rows(conn, 'SELECT (COUNT(*) AS ?n) WHERE { ?s ex:name ?o }', as(ME, { defaultAllow: true }))).toEqual([[3]]);
  });
});

describe('decisions (§4)', () => {
  it('a default policy (no targets) applies to every flake of its action', async () => {
    const conn = await ledgerWith([{ 'f:action': { '@id': 'f:view' }, 'f:allow': true }]);
    expect(await rows(conn, 'SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s ex:name ?o }', as())).toEqual([[3]]);
  });

  it('a policy for f:modify only does not apply to reads', async () => {
    const conn = await ledgerWith([{ 'f:action': { '@id': 'f:modify' }, 'f:allow': true }]);
    expect(await rows(conn, 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }', as())).toEqual([[0]]);
  });

  it('rule 1: neither f:allow nor a parseable f:query denies', async () => {
    const conn = await ledgerWith([
      { 'f:onProperty': { '@id': 'ex:name' }, 'f:query': 'not json' },
    ]);
    expect(await rows(conn, 'SELECT ?n WHERE { ?s ex:name ?n }', as(ME, { defaultAllow: true }))).toEqual([]);
    expect(await rows(conn, 'SELECT (COUNT(*) AS ?n) WHERE { ?s ex:salary ?x }', as(ME, { defaultAllow: true }))).toEqual([[2]]);
  });

  it('rule 4: required policies gate; non-required ones are not consulted', async () => {
    const conn = await ledgerWith([
      { 'f:onProperty': { '@id': 'ex:salary' }, 'f:allow': true },
      { 'f:onProperty': { '@id': 'ex:salary' }, 'f:required': true, 'f:query': { '@type': '@json', '@value': { where: { '@id': '?$identity', [EX + 'person']: { '@id': '?$this' } } } } },
    ]);
    expect(await rows(conn, 'SELECT ?s ?x WHERE { ?s ex:salary ?x }', as())).toEqual([['ex:a', 10]]);
  });

  it('rule 5: nothing applies -> default-allow', async () => {
    const conn = await ledgerWith([{ 'f:onProperty': { '@id': 'ex:salary' }, 'f:allow': false }]);
    expect(await rows(conn, 'SELECT ?n WHERE { ?s ex:name ?n } ORDER BY ?n', as(ME, { defaultAllow: true }))).toEqual([['A'], ['B'], ['C']]);
    expect(await rows(conn, 'SELECT ?n WHERE { ?s ex:name ?n } ORDER BY ?n', as(ME, { defaultAllow: false }))).toEqual([]);
  });

  it('rule 6: deny overrides an allow', async () => {
    const conn = await ledgerWith([
      { 'f:onProperty': { '@id': 'ex:name' }, 'f:allow': true },
      { 'f:onSubject': { '@id': 'ex:b' }, 'f:allow': false },
    ]);
    expect(await rows(conn, 'SELECT ?n WHERE { ?s ex:name ?n } ORDER BY ?n', as())).toEqual([['A'], ['C']]);
  });

  it('rule 7: a targeted policy wins over default policies', async () => {
    const conn = await ledgerWith([
      { 'f:allow': true },
      { 'f:onProperty': { '@id': 'ex:salary' }, 'f:query': { '@type': '@json', '@value': { where: { '@id': '?$this', [EX + 'name']: 'A' } } } },
    ]);
    expect(await rows(conn, 'SELECT ?s ?x WHERE { ?s ex:salary ?x }', as())).toEqual([['ex:a', 10]]);
    expect(await rows(conn, 'SELECT (COUNT(*) AS ?n) WHERE { ?s ex:name ?x }', as())).toEqual([[3]]);
  });

  it('rule 8: only default policies -> allow when one allows', async () => {
    const conn = await ledgerWith([
      { 'f:query': { '@type': '@json', '@value': { where: { '@id': '?$this', [EX + 'name']: 'C' } } } },
      { 'f:query': { '@type': '@json', '@value': { where: { '@id': '?$this', [EX + 'name']: 'B' } } } },
    ]);
    expect(await rows(conn, 'SELECT DISTINCT ?s WHERE { ?s ?p ?o } ORDER BY ?s', as())).toEqual([['ex:b'], ['ex:c']]);
  });

  it('an untargeted f:allow false vetoes every targeted allow (rule 6), as the spec warns', async () => {
    const conn = await ledgerWith([{ 'f:allow': false }, { 'f:onProperty': { '@id': 'ex:name' }, 'f:allow': true }]);
    expect(await rows(conn, 'SELECT (COUNT(*) AS ?n) WHERE { ?s ex:name ?x }', as())).toEqual([[0]]);
  });

  it('decisions do not depend on the order policies were written', async () => {
    const p1 = { 'f:onProperty': { '@id': 'ex:name' }, 'f:allow': true };
    const p2 = { 'f:onSubject': { '@id': 'ex:b' }, 'f:allow': false };
    const a = await ledgerWith([p1, p2]);
    const b = await ledgerWith([p2, p1]);
    const q = 'SELECT ?n WHERE { ?s ex:name ?n } ORDER BY ?n';
    expect(await rows(a, q, as())).toEqual(await rows(b, q, as()));
  });

  it('schema flakes are always visible (rule 2)', async () => {
    const conn = await ledgerWith([], [
      { '@id': 'ex:Manager', '@type': 'rdfs:Class', 'rdfs:subClassOf': { '@id': 'ex:Employee' } },
      { '@id': 'ex:salary', 'rdfs:domain': { '@id': 'ex:Employee' } },
    ]);
    expect(await rows(conn, 'SELECT ?s ?p ?o WHERE { ?s ?p ?o } ORDER BY ?s ?p', { policy: { defaultAllow: false } })).toEqual([
      ['ex:Manager', 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type', 'http://www.w3.org/2000/01/rdf-schema#Class'],
      ['ex:Manager', 'http://www.w3.org/2000/01/rdf-schema#subClassOf', 'ex:Employee'],
      ['ex:salary', 'http://www.w3.org/2000/01/rdf-schema#domain', 'ex:Employee'],
    ]);
  });

  it('?$identity with no identity binds an IRI that matches nothing', async () => {
    const conn = await ledgerWith([{ 'f:query': { '@type': '@json', '@value': { where: { '@id': '?$identity', [EX + 'person']: '?x' } } } }]);
    expect(await rows(conn, 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }', { policy: { policyClass: [EX + 'P'] } })).toEqual([[0]]);
    expect(await rows(conn, 'SELECT (COUNT(*) AS ?n) WHERE { ?s ex:name ?o }', as())).toEqual([[3]]);
  });

  it('policy-values pre-binds extra variables in f:query', async () => {
    const conn = await ledgerWith([{ 'f:query': { '@type': '@json', '@value': { where: { '@id': '?$this', [EX + 'boss']: { '@id': '?$boss' } } } } }]);
    expect(await rows(conn, 'SELECT ?s WHERE { ?s ex:name ?n }', as(ME, { policyValues: { '?$boss': { '@id': EX + 'a' } } }))).toEqual([['ex:b']]);
  });

  it('`ask` is accepted as a synonym of `where`, and f:query may be a JSON string', async () => {
    const conn = await ledgerWith([{ 'f:query': JSON.stringify({ '@context': { ex: EX }, ask: { '@id': '?$this', 'ex:name': 'C' } }) }]);
    expect(await rows(conn, 'SELECT DISTINCT ?s WHERE { ?s ?p ?o }', as())).toEqual([['ex:c']]);
  });
});

describe('selection (§3)', () => {
  it('nodes without @type f:AccessPolicy are never loaded, even with a policy class', async () => {
    const conn = await ledgerWith([], [{ '@id': 'ex:fake', '@type': 'ex:P', 'f:allow': true }]);
    expect(await rows(conn, 'SELECT (COUNT(*) AS ?n) WHERE { ?s ex:name ?o }', as())).toEqual([[0]]);
  });

  it('an identity without f:policyClass and nothing else: default-allow decides', async () => {
    const conn = await ledgerWith([], [{ '@id': 'https://example.com/id/plain', 'ex:name': 'P' }]);
    expect(await rows(conn, 'SELECT (COUNT(*) AS ?n) WHERE { ?s ex:name ?o }', as('https://example.com/id/plain'))).toEqual([[0]]);
    expect(await rows(conn, 'SELECT (COUNT(*) AS ?n) WHERE { ?s ex:name ?o }', as('https://example.com/id/plain', { defaultAllow: true }))).toEqual([[4]]);
  });

  it('inline policies are added to the set (own @context)', async () => {
    const conn = await ledgerWith([]);
    const inline = { '@context': { ex: EX, f: 'https://ns.ledgraph.dev/' }, '@id': 'ex:inline', 'f:onProperty': 'ex:name', 'f:allow': true };
    expect(await rows(conn, 'SELECT ?n WHERE { ?s ex:name ?n } ORDER BY ?n', { policy: { policy: inline } })).toEqual([['A'], ['B'], ['C']]);
    expect(await rows(conn, 'SELECT ?n WHERE { ?s ex:salary ?n }', { policy: { policy: [inline] } })).toEqual([]);
  });

  it('the policy set comes from the head: a revoked policy also hides the past', async () => {
    const conn = await ledgerWith([{ 'f:onProperty': { '@id': 'ex:name' }, 'f:allow': true }]);
    expect(await rows(conn, 'SELECT (COUNT(*) AS ?n) WHERE { ?s ex:name ?o }', { ledger: 'hr@t:1', ...as() })).toEqual([[3]]);
    const { update } = await import('./fixtures.js');
    await update(conn, 'hr', { delete: { '@id': 'ex:pol0', 'f:allow': true }, insert: { '@id': 'ex:pol0', 'f:allow': false } });
    expect(await rows(conn, 'SELECT (COUNT(*) AS ?n) WHERE { ?s ex:name ?o }', { ledger: 'hr@t:1', ...as() })).toEqual([[0]]);
  });

  it('conditions and class membership are evaluated at the snapshot being read', async () => {
    const conn = await ledgerWith([{ 'f:onClass': { '@id': 'ex:Visible' }, 'f:allow': true }], [{ '@id': 'ex:c', '@type': 'ex:Visible' }]);
    const { update } = await import('./fixtures.js');
    await update(conn, 'hr', { delete: { '@id': 'ex:c', '@type': 'ex:Visible' } });
    // t 1: ex:c was Visible; now it is not.
    expect(await rows(conn, 'SELECT ?n WHERE { ?s ex:name ?n }', { ledger: 'hr@t:1', ...as() })).toEqual([['C']]);
    expect(await rows(conn, 'SELECT ?n WHERE { ?s ex:name ?n }', as())).toEqual([]);
  });
});

describe('inputs', () => {
  it('root detection', () => {
    expect([isRootPolicy(undefined), isRootPolicy({}), isRootPolicy({ defaultAllow: true }), isRootPolicy({ defaultAllow: false }),
      isRootPolicy({ policyValues: { '?$x': 'urn:x' } }), isRootPolicy({ identity: 'urn:x' }), isRootPolicy({ policyClass: [] })])
      .toEqual([true, true, true, false, true, false, true]);
  });

  it('pragmas before the first non-comment line', () => {
    expect(policyInputsFromPragmas('# PRAGMA identity <urn:me>\n#PRAGMA policy-class <urn:a>, <urn:b>\n# pragma policy-class urn:c\n# PRAGMA default-allow true\n# PRAGMA policy-values {"?$x": "urn:x"}\nSELECT * {}\n# PRAGMA identity <urn:late>'))
      .toEqual({ identity: 'urn:me', policyClass: ['urn:a', 'urn:b', 'urn:c'], defaultAllow: true, policyValues: { '?$x': 'urn:x' } });
    const bad = (t: string) => { try { policyInputsFromPragmas(t); return null; } catch (e) { return isLedgraphError(e) ? [e.status, e.message] : String(e); } };
    expect(bad('# PRAGMA default-allow maybe\nASK {}')).toEqual([400, 'PRAGMA default-allow must be true or false, got "maybe"']);
    expect(bad('# PRAGMA policy-values [1]\nASK {}')).toEqual([400, 'policy-values must be a JSON object {"?$var": iri}']);
  });

  it('policy-values shapes', () => {
    expect([...parsePolicyValues({ '?$a': 'urn:a', '?$b': { '@id': 'urn:b' } })]).toEqual([['$a', 'urn:a'], ['$b', 'urn:b']]);
    expect(() => parsePolicyValues({ '?$a': 5 })).toThrow('policy-values: the value of "?$a" must be an IRI string or {"@id": iri}');
    expect(() => parsePolicyValues({ a: 'urn:a' })).toThrow('policy-values: "a" is not a variable (write "?$name")');
  });

  it('inline policy parsing: actions, booleans, query forms, message', () => {
    const [p] = parseInlinePolicies({
      '@context': CTX, '@id': 'ex:x', '@type': 'f:AccessPolicy', 'f:action': ['f:view'], 'f:required': true,
      'f:onClass': { '@id': 'ex:K' }, 'f:query': { '@type': '@json', '@value': { where: {} } }, 'f:exMessage': 'no',
    });
    expect({ ...p, actions: [...p!.actions] }).toEqual({
      id: EX + 'x', actions: ['view'], onProperty: [], onClass: [EX + 'K'], onSubject: [], required: true, query: { where: {} }, exMessage: 'no',
    });
    expect(() => parseInlinePolicies(['x'])).toThrow('policy must be a JSON-LD node object or an array of them, got "x"');
  });

  it('policyView of root inputs returns the very same view', async () => {
    const conn = await ledgerWith([]);
    const db = await conn.db('hr');
    expect((await policyView(conn, db, undefined)).view).toBe(db);
    expect((await policyView(conn, db, { defaultAllow: true })).view).toBe(db);
    expect((await policyView(conn, db, { identity: ME })).view).not.toBe(db);
  });
});

describe('writes (§6)', () => {
  let conn: Connection;
  beforeAll(async () => {
    conn = await ledgerWith([
      { 'f:action': { '@id': 'f:modify' }, 'f:onClass': { '@id': 'ex:Employee' }, 'f:allow': true },
      { 'f:action': { '@id': 'f:modify' }, 'f:onProperty': { '@id': 'ex:tag' }, 'f:allow': true },
    ]);
  });
  const { update } = { update: async (body: Record<string, unknown>) => (await import('./fixtures.js')).update(conn, 'hr', body) };
  const status = async (p: Promise<unknown>) => { try { await p; return 200; } catch (e) { if (isLedgraphError(e)) return `${e.status} ${e.message}`; throw e; } };

  it('a class target covers existing subjects of the class', async () => {
    expect(await status(update({ insert: { '@id': 'ex:b', 'ex:name': 'B2' }, opts: { identity: ME } }))).toBe(200);
  });

  it('class targets do not cover subjects created by the same transaction', async () => {
    expect(await status(update({ insert: { '@id': 'ex:new', '@type': 'ex:Employee', 'ex:name': 'N' }, opts: { identity: ME } })))
      .toBe('403 Policy enforcement prevents modification.');
  });

  it('retractions are checked too', async () => {
    expect(await status(update({ delete: { '@id': 'ex:c', 'ex:name': 'C' }, opts: { identity: ME } }))).toBe('403 Policy enforcement prevents modification.');
  });

  it('a property target matches new subjects; one denied flake refuses the whole transaction', async () => {
    const t = (await conn.ledger('hr')).t;
    expect(await status(update({ insert: [{ '@id': 'ex:z', 'ex:tag': 'ok' }, { '@id': 'ex:z', 'ex:other': 'no' }], opts: { identity: ME } })))
      .toBe('403 Policy enforcement prevents modification.');
    expect((await conn.ledger('hr')).t).toBe(t);
    expect(await status(update({ insert: { '@id': 'ex:z', 'ex:tag': 'ok' }, opts: { identity: ME } }))).toBe(200);
  });

  it('an unknown identity may write nothing; no identity is the root (anything goes)', async () => {
    expect(await status(update({ insert: { '@id': 'ex:b', 'ex:tag': 'x' }, opts: { identity: 'urn:nobody' } }))).toBe('403 Policy enforcement prevents modification.');
    expect(await status(update({ insert: { '@id': 'ex:c', 'ex:whatever': 'x' } }))).toBe(200);
  });
});

describe('whereView (for an update WHERE)', () => {
  it('restricts what a WHERE can read, so hidden values cannot be copied into visible facts', async () => {
    const { whereView } = await import('../../src/core/policy/index.js');
    const { executeQuery } = await import('../../src/core/query/engine.js');
    const { compileWhere } = await import('../../src/core/query/jsonld/where.js');
    const { ActiveContext } = await import('../../src/core/rdf/jsonld-context.js');
    const { hrLedger, ALICE } = await import('./fixtures.js');
    const conn = await hrLedger();
    const db = await conn.db('hr');
    const op = compileWhere({ '@id': 'ex:bob', 'ex:salary': '?s' }, ActiveContext.create({ ex: EX }));
    const solutions = async (view: Awaited<ReturnType<typeof whereView>>) => {
      const r = await executeQuery({ form: 'select', op, variables: ['s'] }, { view });
      if (r.type !== 'bindings') throw new Error('bindings expected');
      const out: string[] = [];
      for await (const row of r.rows) out.push(row['s']!.value);
      return out;
    };
    expect(await solutions(await whereView(db, undefined))).toEqual(['95000']);
    expect(await solutions(await whereView(db, { identity: ALICE }))).toEqual([]);
    expect(await whereView(db, {})).toBe(db);
  });
});

describe('datasets', () => {
  it('a union of one ledger at two times is filtered through the key-translating path', async () => {
    const { hrLedger, ALICE, update } = await import('./fixtures.js');
    const conn = await hrLedger();
    await update(conn, 'hr', { delete: { '@id': 'ex:bob', 'ex:salary': 95000 }, insert: { '@id': 'ex:bob', 'ex:salary': 99000 } });
    const q = 'SELECT ?p ?s FROM <hr:main@t:1> FROM <hr:main@t:2> WHERE { ?p ex:salary ?s } ORDER BY ?s';
    expect(await rows(conn, q)).toEqual([['ex:bob', 95000], ['ex:bob', 99000], ['ex:alice', 120000]]);
    expect(await rows(conn, q, { policy: { identity: ALICE } })).toEqual([['ex:alice', 120000]]);
  });

  it('a policy-restricted query over several ledgers is refused (400), never answered unfiltered', async () => {
    const { hrLedger, ALICE } = await import('./fixtures.js');
    const conn = await hrLedger();
    await conn.create('other');
    const err = await rows(conn, 'SELECT * FROM <hr:main> FROM <other:main> WHERE { ?s ?p ?o }', { policy: { identity: ALICE } }).catch((e: unknown) => e);
    expect(isLedgraphError(err) ? [err.status, err.message] : err).toEqual([400, 'a query under a policy (identity, policy-class, policy or default-allow) must read exactly one ledger']);
  });
});
