/** Write endpoints over real HTTP: update, insert, upsert, sync (http-api.md §4.2, jsonld-transactions.md §1, §10–11). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger, postJson, postText, startTestServer, type TestServer } from '../support/server.js';
import { CTX, EX, expectError, iri, json, lit, triples } from './helpers.js';

interface Receipt {
  ledger_id: string; t: number; timestamp: string; commit_id: string; previous_commit_id: string;
  flakes_added: number; flakes_retracted: number; 'tx-id': string; commit: { hash: string };
}

let srv: TestServer;
beforeAll(async () => { srv = await startTestServer(); });
afterAll(async () => { await srv.close(); });

async function head(ledger: string): Promise<{ t: number; commit_id: string }> {
  const info = await json<{ t: number; commitId: string }>(await fetch(`${srv.api}/info/${ledger}`));
  return { t: info.t, commit_id: info.commitId };
}

describe('insert', () => {
  beforeAll(async () => { await createLedger(srv, 'ins'); });

  it('takes JSON-LD with the ledger in the path and returns the full receipt', async () => {
    const before = await head('ins');
    const body = { '@context': CTX, '@id': 'ex:ana', 'schema:name': 'Ana', 'schema:age': 34 };
    const r = await json<Receipt>(await postJson(`${srv.api}/insert/ins`, body));
    expect(Object.keys(r).sort()).toEqual(['commit', 'commit_id', 'flakes_added', 'flakes_retracted', 'ledger_id', 'previous_commit_id', 't', 'timestamp', 'tx-id']);
    expect(r).toMatchObject({ ledger_id: 'ins:main', t: before.t + 1, previous_commit_id: before.commit_id, flakes_added: 2, flakes_retracted: 0 });
    expect(r.commit).toEqual({ hash: r.commit_id });
    expect(r.commit_id).toMatch(/^bag[a-z2-7]+$/);
    expect(r.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // tx-id is the SHA-256 of the body bytes as sent.
    const digest = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(JSON.stringify(body)))).toString('hex');
    expect(r['tx-id']).toBe(`ledgraph:tx:sha256:${digest}`);
    expect(await head('ins')).toEqual({ t: r.t, commit_id: r.commit_id });
  });

  it('finds the ledger in ?ledger=, the Ledgraph-Ledger header, or a body "ledger" key, in that order', async () => {
    await createLedger(srv, 'ins-q');
    await createLedger(srv, 'ins-h');
    await createLedger(srv, 'ins-b');
    const node = (id: string) => ({ '@context': CTX, '@id': `ex:${id}`, 'ex:v': 1 });
    expect((await json<Receipt>(await postJson(`${srv.api}/insert?ledger=ins-q`, node('q'), { 'Ledgraph-Ledger': 'ins-h' }))).ledger_id).toBe('ins-q:main');
    expect((await json<Receipt>(await postJson(`${srv.api}/insert`, { ...node('h'), ledger: 'ins-b' }, { 'Ledgraph-Ledger': 'ins-h' }))).ledger_id).toBe('ins-h:main');
    expect((await json<Receipt>(await postJson(`${srv.api}/insert`, { ...node('b'), ledger: 'ins-b' }))).ledger_id).toBe('ins-b:main');
    expect(await triples(srv, 'ins-b')).toEqual([`${iri('b')} ${iri('v')} ${lit('1', 'integer')} .`]);
    await expectError(await postJson(`${srv.api}/insert`, node('x')), 400, 'err:db/BadRequest', 'missing ledger');
  });

  it('takes Turtle, N-Triples, N-Quads and TriG (named graphs and txn-meta)', async () => {
    await createLedger(srv, 'rdf');
    await json(await postText(`${srv.api}/insert/rdf`, 'text/turtle', `@prefix ex: <${EX}> . ex:a ex:p "x" ; ex:q ex:b .`));
    await json(await postText(`${srv.api}/insert/rdf`, 'application/n-triples; charset=utf-8', `<${EX}c> <${EX}p> "y"@en .\n`));
    await json(await postText(`${srv.api}/insert/rdf`, 'application/n-quads', `<${EX}d> <${EX}p> "z" <${EX}g2> .\n`));
    const trig = `@prefix ex: <${EX}> . @prefix f: <https://ns.ledgraph.dev/> .
      ex:e ex:p 1 . GRAPH ex:g { ex:f ex:p 2 } <#txn-meta> { <#txn-meta> f:message "loaded" }`;
    const r = await json<Receipt>(await postText(`${srv.api}/insert/rdf`, 'application/trig', trig));
    expect(r.flakes_added).toBe(2);
    expect(await triples(srv, 'rdf')).toEqual([
      `${iri('a')} ${iri('p')} "x" .`, `${iri('a')} ${iri('q')} ${iri('b')} .`, `${iri('c')} ${iri('p')} "y"@en .`, `${iri('e')} ${iri('p')} ${lit('1', 'integer')} .`,
    ]);
    expect(await triples(srv, 'rdf', `${EX}g`)).toEqual([`${iri('f')} ${iri('p')} ${lit('2', 'integer')} .`]);
    expect(await triples(srv, 'rdf', `${EX}g2`)).toEqual([`${iri('d')} ${iri('p')} "z" .`]);
    const log = await json<{ commits: { t: number; message: string | null }[] }>(await fetch(`${srv.api}/log/rdf?limit=1`));
    expect(log.commits).toEqual([expect.objectContaining({ t: r.t, message: 'loaded' })]);
  });

  it('returns the head for a write that changes nothing', async () => {
    const body = { '@context': CTX, '@id': 'ex:ana', 'schema:name': 'Ana' };
    const before = await head('ins');
    const r = await json<Receipt>(await postJson(`${srv.api}/insert/ins`, body));
    expect(r).toMatchObject({ t: before.t, commit_id: before.commit_id, flakes_added: 0, flakes_retracted: 0 });
  });

  it('refuses bad requests with the §7 statuses', async () => {
    await expectError(await postText(`${srv.api}/insert/ins`, 'application/sparql-update', 'INSERT DATA {}'), 415, 'err:db/UnsupportedMediaType', 'unsupported Content-Type application/sparql-update for insert');
    await expectError(await fetch(`${srv.api}/insert/ins`, { method: 'POST', body: new Uint8Array([1]) }), 415, 'err:db/UnsupportedMediaType', 'missing Content-Type');
    await expectError(await postText(`${srv.api}/insert/ins`, 'text/turtle; charset=latin1', '<a> <b> <c> .'), 415, 'err:db/UnsupportedMediaType', 'charset');
    await expectError(await postText(`${srv.api}/insert/ins`, 'application/json', '{"@id": '), 400, 'err:db/JsonParse', 'invalid JSON');
    await expectError(await postText(`${srv.api}/insert/ins`, 'text/turtle', '<a> <b> .'), 400, 'err:db/BadRequest');
    await expectError(await postJson(`${srv.api}/insert/ins`, { '@context': CTX, '@id': 'ex:x' }), 400, 'err:db/BadRequest', 'nothing to write');
    await expectError(await postJson(`${srv.api}/insert/nope`, { '@context': CTX, '@id': 'ex:x', 'ex:p': 1 }), 404, 'err:db/LedgerNotFound', 'ledger nope:main not found');
    await expectError(await postJson(`${srv.api}/insert/ins?using-graph-uri=${EX}g`, { '@id': `${EX}x`, [`${EX}p`]: 1 }), 400, 'err:db/BadRequest', 'using-graph-uri');
    await expectError(await postJson(`${srv.api}/insert/bad name`, { '@id': `${EX}x`, [`${EX}p`]: 1 }), 400, 'err:db/BadRequest', 'invalid ledger name');
    await expectError(await fetch(`${srv.api}/insert/ins`, {
      method: 'POST', headers: { 'Content-Type': 'text/turtle' }, body: new Uint8Array([0x3c, 0xff, 0xfe]),
    }), 400, 'err:db/BadRequest', 'not valid UTF-8');
  });
});

describe('upsert', () => {
  it('replaces the values of each supplied (subject, predicate)', async () => {
    await createLedger(srv, 'ups');
    await json(await postJson(`${srv.api}/insert/ups`, { '@context': CTX, '@id': 'ex:a', 'ex:name': 'A', 'ex:n': [1, 2] }));
    const r = await json<Receipt>(await postText(`${srv.api}/upsert?ledger=ups`, 'text/turtle', `<${EX}a> <${EX}n> 3 .`));
    expect(r).toMatchObject({ t: 2, flakes_added: 1, flakes_retracted: 2 });
    expect(await triples(srv, 'ups')).toEqual([`${iri('a')} ${iri('n')} ${lit('3', 'integer')} .`, `${iri('a')} ${iri('name')} "A" .`]);
    const j = await json<Receipt>(await postJson(`${srv.api}/upsert/ups`, { '@context': CTX, '@id': 'ex:a', 'ex:name': 'B' }));
    expect(j).toMatchObject({ t: 3, flakes_added: 1, flakes_retracted: 1 });
    await expectError(await postJson(`${srv.api}/upsert/ups?using-named-graph-uri=${EX}g`, { '@id': `${EX}a`, [`${EX}n`]: 1 }), 400, 'err:db/BadRequest', 'using-named-graph-uri');
  });
});

describe('update', () => {
  beforeAll(async () => {
    await createLedger(srv, 'upd');
    await json(await postJson(`${srv.api}/insert/upd`, {
      '@context': CTX, '@graph': [{ '@id': 'ex:a', 'ex:age': 30 }, { '@id': 'ex:b', 'ex:age': 40 }],
    }));
  });

  it('runs a JSON-LD where/delete/insert update and reports previous_commit_id', async () => {
    const before = await head('upd');
    const r = await json<Receipt>(await postJson(`${srv.api}/update/upd`, {
      '@context': CTX, where: { '@id': '?s', 'ex:age': '?a' }, delete: { '@id': '?s', 'ex:age': '?a' }, insert: { '@id': '?s', 'ex:seen': true },
    }));
    expect(r).toMatchObject({ ledger_id: 'upd:main', t: before.t + 1, previous_commit_id: before.commit_id, flakes_added: 2, flakes_retracted: 2 });
    expect(await triples(srv, 'upd')).toEqual([`${iri('a')} ${iri('seen')} ${lit('true', 'boolean')} .`, `${iri('b')} ${iri('seen')} ${lit('true', 'boolean')} .`]);
  });

  it('treats a JSON-LD body without where/delete/insert as an insert, and honours ?context=', async () => {
    const r = await json<Receipt>(await postJson(`${srv.api}/update?ledger=upd&context=${encodeURIComponent(JSON.stringify(CTX))}`, { '@id': 'ex:c', 'ex:age': 5 }));
    expect(r.flakes_added).toBe(1);
    expect(await triples(srv, 'upd')).toContain(`${iri('c')} ${iri('age')} ${lit('5', 'integer')} .`);
    await expectError(await postJson(`${srv.api}/update/upd?context=https://example.org/ctx.jsonld`, { '@id': 'ex:c', 'ex:age': 5 }), 400, 'err:db/BadRequest', 'remote JSON-LD contexts are not fetched');
  });

  it('runs SPARQL UPDATE sent raw and form-encoded', async () => {
    const raw = await json<Receipt>(await postText(`${srv.api}/update/upd`, 'application/sparql-update', `PREFIX ex: <${EX}> INSERT DATA { ex:d ex:age 7 }`));
    expect(raw.flakes_added).toBe(1);
    const form = new URLSearchParams({ update: `PREFIX ex: <${EX}> DELETE DATA { ex:d ex:age 7 }` });
    const r = await json<Receipt>(await postText(`${srv.api}/update/upd`, 'application/x-www-form-urlencoded', form.toString()));
    expect(r).toMatchObject({ t: raw.t + 1, flakes_added: 0, flakes_retracted: 1 });
    await expectError(await postText(`${srv.api}/update/upd`, 'application/x-www-form-urlencoded', 'query=x'), 400, 'err:db/BadRequest', 'missing "update" form field');
  });

  it('routes INSERT DATA GRAPH blocks into named graphs and rejects a variable graph', async () => {
    await json(await postText(`${srv.api}/update/upd`, 'application/sparql-update', `PREFIX ex: <${EX}> INSERT DATA { GRAPH ex:g { ex:x ex:p 1 } }`));
    expect(await triples(srv, 'upd', `${EX}g`)).toEqual([`${iri('x')} ${iri('p')} ${lit('1', 'integer')} .`]);
    await expectError(await postText(`${srv.api}/update/upd`, 'application/sparql-update', `PREFIX ex: <${EX}> INSERT DATA { GRAPH ?g { ex:x ex:p 1 } }`), 400, 'err:db/BadRequest');
  });

  it('applies using-graph-uri to every DELETE/INSERT ... WHERE (rule 1)', async () => {
    await createLedger(srv, 'using');
    await json(await postText(`${srv.api}/insert/using`, 'application/trig', `@prefix ex: <${EX}> . ex:a ex:v 1 . GRAPH ex:g { ex:b ex:v 2 }`));
    const update = `PREFIX ex: <${EX}> INSERT { ?s ex:hit true } WHERE { ?s ex:v ?v }`;
    const r = await json<Receipt>(await postText(`${srv.api}/update/using?using-graph-uri=${encodeURIComponent(`${EX}g`)}`, 'application/sparql-update', update));
    expect(r.flakes_added).toBe(1);
    expect(await triples(srv, 'using')).toContain(`${iri('b')} ${iri('hit')} ${lit('true', 'boolean')} .`);
    expect(await triples(srv, 'using')).not.toContain(`${iri('a')} ${iri('hit')} ${lit('true', 'boolean')} .`);
    // The form-encoded body may carry the using-* parameters too.
    const form = new URLSearchParams({ update: `PREFIX ex: <${EX}> INSERT { ?s ex:hit2 true } WHERE { ?s ex:v ?v }`, 'using-graph-uri': `${EX}g` });
    expect((await json<Receipt>(await postText(`${srv.api}/update/using`, 'application/x-www-form-urlencoded', form.toString()))).flakes_added).toBe(1);
    expect(await triples(srv, 'using')).toContain(`${iri('b')} ${iri('hit2')} ${lit('true', 'boolean')} .`);
  });

  it('refuses using-* with USING, WITH or DELETE WHERE, and on JSON-LD (rules 2-3)', async () => {
    const u = `?using-graph-uri=${encodeURIComponent(`${EX}g`)}`;
    await expectError(await postText(`${srv.api}/update/using${u}`, 'application/sparql-update', `PREFIX ex: <${EX}> INSERT { ?s ex:z 1 } USING ex:g WHERE { ?s ex:v ?v }`), 400, 'err:db/BadRequest');
    await expectError(await postText(`${srv.api}/update/using${u}`, 'application/sparql-update', `PREFIX ex: <${EX}> WITH ex:g INSERT { ?s ex:z 1 } WHERE { ?s ex:v ?v }`), 400, 'err:db/BadRequest');
    await expectError(await postText(`${srv.api}/update/using${u}`, 'application/sparql-update', `PREFIX ex: <${EX}> DELETE WHERE { ?s ex:v ?v }`), 400, 'err:db/BadRequest', 'DELETE WHERE');
    await expectError(await postJson(`${srv.api}/update/using${u}`, { '@context': CTX, insert: { '@id': 'ex:a', 'ex:z': 1 } }), 400, 'err:db/BadRequest', 'SPARQL UPDATE only');
  });

  it('refuses Turtle, a Cypher read, bad SPARQL, bad eventTime, and a missing or unknown ledger', async () => {
    await expectError(await postText(`${srv.api}/update/upd`, 'text/turtle', '<a> <b> <c> .'), 415, 'err:db/UnsupportedMediaType', 'unsupported Content-Type text/turtle for update');
    await expectError(await postText(`${srv.api}/update/upd`, 'application/cypher', 'MATCH (n) RETURN n'), 400, 'err:db/BadRequest', 'without writing clauses');
    await expectError(await postText(`${srv.api}/update/upd`, 'application/sparql-update', 'INSERT DATA { <http://a> <http://b> }'), 400, 'err:db/BadRequest', 'line 1');
    await expectError(await postText(`${srv.api}/update`, 'application/sparql-update', 'INSERT DATA { <http://a> <http://b> 1 }'), 400, 'err:db/BadRequest', 'missing ledger');
    await expectError(await postText(`${srv.api}/update/none`, 'application/sparql-update', 'INSERT DATA { <http://a> <http://b> 1 }'), 404, 'err:db/LedgerNotFound');
    await expectError(await postJson(`${srv.api}/update/upd`, { '@context': CTX, '@graph': [{ '@id': 'ex:q', 'ex:p': 1 }], opts: { eventTime: '2999-01-01T00:00:00Z' } }), 422, 'err:db/ConstraintViolation', 'in the future');
    await expectError(await postJson(`${srv.api}/update/upd`, { '@context': CTX, '@graph': [{ '@id': 'ex:q', 'ex:p': 1 }], opts: { eventTime: 'yesterday' } }), 400, 'err:db/BadRequest', 'eventTime');
  });

  it('stamps the commit with opts.eventTime, which may not go back before the previous commit', async () => {
    await createLedger(srv, 'evt');
    await new Promise((ok) => setTimeout(ok, 5));
    const at = new Date().toISOString();
    const r = await json<Receipt>(await postJson(`${srv.api}/update/evt`, { '@context': CTX, '@graph': [{ '@id': 'ex:q', 'ex:p': 1 }], opts: { eventTime: at } }));
    expect(r.timestamp).toBe(at);
    await expectError(await postJson(`${srv.api}/update/evt`, { '@context': CTX, '@graph': [{ '@id': 'ex:q', 'ex:p': 2 }], opts: { eventTime: '2000-01-01T00:00:00Z' } }), 422, 'err:db/ConstraintViolation', 'before the previous commit');
  });
});

describe('sync', () => {
  beforeAll(async () => { await createLedger(srv, 'syn'); });

  it('makes the default graph exactly the payload, committing only the delta', async () => {
    await json(await postText(`${srv.api}/insert/syn`, 'text/turtle', `<${EX}a> <${EX}p> 1, 2 . <${EX}b> <${EX}p> 3 .`));
    const r = await json<Receipt>(await postText(`${srv.api}/sync/syn`, 'text/turtle', `<${EX}a> <${EX}p> 1 . <${EX}c> <${EX}p> 4 .`));
    expect(r).toMatchObject({ ledger_id: 'syn:main', t: 2, flakes_added: 1, flakes_retracted: 2 });
    expect(await triples(srv, 'syn')).toEqual([`${iri('a')} ${iri('p')} ${lit('1', 'integer')} .`, `${iri('c')} ${iri('p')} ${lit('4', 'integer')} .`]);
    // An identical payload commits nothing.
    const same = await json<Receipt>(await postText(`${srv.api}/sync?ledger=syn&graph=default`, 'application/n-triples', `<${EX}c> <${EX}p> "4"^^<http://www.w3.org/2001/XMLSchema#integer> .\n<${EX}a> <${EX}p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .\n`));
    expect(same).toMatchObject({ t: 2, commit_id: r.commit_id, flakes_added: 0, flakes_retracted: 0 });
  });

  it('targets a named graph; TriG blocks must name it and may not sit beside default triples', async () => {
    const g = encodeURIComponent(`${EX}g`);
    await json(await postText(`${srv.api}/sync/syn?graph=${g}`, 'application/json', JSON.stringify({ '@context': CTX, '@id': 'ex:x', 'ex:p': 1 })));
    expect(await triples(srv, 'syn', `${EX}g`)).toEqual([`${iri('x')} ${iri('p')} ${lit('1', 'integer')} .`]);
    await json(await postText(`${srv.api}/sync/syn?graph=${g}`, 'application/trig', `GRAPH <${EX}g> { <${EX}y> <${EX}p> 2 }`));
    expect(await triples(srv, 'syn', `${EX}g`)).toEqual([`${iri('y')} ${iri('p')} ${lit('2', 'integer')} .`]);
    expect((await triples(srv, 'syn')).length).toBe(2);
    await expectError(await postText(`${srv.api}/sync/syn?graph=${g}`, 'application/trig', `GRAPH <${EX}h> { <${EX}y> <${EX}p> 2 }`), 400, 'err:db/BadRequest', `does not name the target graph <${EX}g>`);
    await expectError(await postText(`${srv.api}/sync/syn?graph=${g}`, 'application/trig', `<${EX}z> <${EX}p> 1 . GRAPH <${EX}g> { <${EX}y> <${EX}p> 2 }`), 400, 'err:db/BadRequest', 'may not sit beside default-graph triples');
    await expectError(await postText(`${srv.api}/sync/syn`, 'application/trig', `GRAPH <${EX}g> { <${EX}y> <${EX}p> 2 }`), 400, 'err:db/BadRequest', 'the target is the default graph');
    await expectError(await postText(`${srv.api}/sync/syn?graph=relative`, 'text/turtle', `<${EX}y> <${EX}p> 2 .`), 400, 'err:db/BadRequest', 'absolute IRI');
  });

  it('reports the delta without committing on dryRun', async () => {
    const before = await head('syn');
    const d = await json(await postText(`${srv.api}/sync/syn?dryRun=true`, 'text/turtle', `<${EX}a> <${EX}p> 1 . <${EX}a> <${EX}name> "A"@en .`));
    expect(d).toEqual({
      ledger_id: 'syn:main', graph: 'default', dry_run: true, t: before.t, flakes_added: 1, flakes_retracted: 1,
      '@context': { xsd: 'http://www.w3.org/2001/XMLSchema#', rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#', ex: EX },
      // Staging order: retractions of current facts first, then the payload's new facts.
      flakes: [['ex:c', 'ex:p', 4, 'xsd:integer', false], ['ex:a', 'ex:name', 'A', 'rdf:langString', true, { lang: 'en' }]],
    });
    expect(await head('syn')).toEqual(before);
  });

  it('needs allowEmpty to clear a graph', async () => {
    const g = encodeURIComponent(`${EX}g`);
    await expectError(await postText(`${srv.api}/sync/syn?graph=${g}`, 'text/turtle', ''), 400, 'err:db/BadRequest', 'allowEmpty=true');
    const r = await json<Receipt>(await postText(`${srv.api}/sync/syn?graph=${g}&allowEmpty=true`, 'text/turtle', '# nothing\n'));
    expect(r).toMatchObject({ flakes_added: 0, flakes_retracted: 1 });
    const gone = await fetch(`${srv.api}/data/syn?graph=${g}`);
    await expectError(gone, 404, 'err:db/LedgerNotFound', `graph <${EX}g> not found`);
    await expectError(await postText(`${srv.api}/sync/syn?allowEmpty=maybe`, 'text/turtle', ''), 400, 'err:db/BadRequest', 'allowEmpty must be true or false');
    await expectError(await postText(`${srv.api}/sync/syn?using-graph-uri=x`, 'text/turtle', ''), 400, 'err:db/BadRequest', 'not to sync');
    await expectError(await postText(`${srv.api}/sync/syn`, 'application/sparql-update', ''), 415, 'err:db/UnsupportedMediaType');
  });
});
