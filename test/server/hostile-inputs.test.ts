/**
 * Hostile inputs over real HTTP (issue 20, docs/limits.md): deep nesting is refused with a 400
 * before any recursive parser runs, size limits answer 413, error messages quote only a short
 * excerpt of the input, and no error exposes a file-system path. Each case uses the input shape the
 * issue reported, and each server is checked to still answer a point query afterwards.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_INPUT_LIMITS, MAX_SAFE_DEPTH } from '../../src/core/limits.js';
import { encodeLedgerId } from '../../src/storage/file-ns.js';
import { createLedger, postJson, postText, startTestServer, type TestServer } from '../support/server.js';
import { EX, expectError, json } from './helpers.js';

const CTX = { ex: EX };
const sparql = (srv: TestServer, ledger: string, text: string) => postText(`${srv.api}/query/${ledger}`, 'application/sparql-query', text);
const update = (srv: TestServer, ledger: string, text: string) => postText(`${srv.api}/update/${ledger}`, 'application/sparql-update', text);

/** `n` nested `{ }` groups around one triple pattern. */
const nestedGroups = (n: number) => `SELECT ?o WHERE ${'{ '.repeat(n)}<${EX}s> <${EX}p> ?o ${'} '.repeat(n)}`;
/** `n` nested OPTIONAL groups. */
const nestedOptionals = (n: number) => `SELECT ?o WHERE { <${EX}s> <${EX}p> ?o ${`OPTIONAL { <${EX}s> <${EX}p> ?o `.repeat(n)}${'} '.repeat(n)}}`;
/** A JSON-LD node nested `n` levels deep through ex:child. */
function nestedNode(n: number, leaf: unknown = 1): Record<string, unknown> {
  let o: Record<string, unknown> = { '@id': 'ex:leaf', 'ex:v': leaf };
  for (let i = n - 1; i >= 0; i--) o = { '@id': `ex:n${i}`, 'ex:child': o };
  return o;
}

/** The point query the issue used to see the server frozen: it must still be answered, exactly. */
async function pointQuery(srv: TestServer, ledger: string): Promise<void> {
  const body = await json<{ results: { bindings: { o: { value: string } }[] } }>(await sparql(srv, ledger, `SELECT ?o WHERE { <${EX}s> <${EX}p> ?o }`));
  expect(body.results.bindings.map((b) => b.o.value)).toEqual(['1']);
}

async function seed(srv: TestServer, ledger: string): Promise<void> {
  await createLedger(srv, ledger);
  expect((await postText(`${srv.api}/insert/${ledger}`, 'text/turtle', `<${EX}s> <${EX}p> 1 .`)).status).toBe(200);
}

describe('nesting depth, default limits', () => {
  let srv: TestServer;
  beforeAll(async () => { srv = await startTestServer(); await seed(srv, 'deep'); });
  afterAll(async () => { await srv.close(); });

  it('refuses 5,000 and 10,000 nested { } groups with 400 before parsing', async () => {
    for (const n of [5000, 10_000]) {
      await expectError(await sparql(srv, 'deep', nestedGroups(n)), 400, 'err:db/BadRequest',
        'the SPARQL query is nested too deeply in { }, ( ) or [ ] (limit: 128, set by --max-nesting-depth)');
    }
    await pointQuery(srv, 'deep');
  });

  it('refuses 5,000 nested OPTIONAL groups, on /query, /stream/query and /update', async () => {
    await expectError(await sparql(srv, 'deep', nestedOptionals(5000)), 400, 'err:db/BadRequest', 'nested too deeply');
    const stream = await postText(`${srv.api}/stream/query/deep`, 'application/sparql-query', nestedOptionals(5000));
    await expectError(stream, 400, 'err:db/BadRequest', 'nested too deeply');
    const upd = `DELETE { ?s ?p ?o } WHERE ${'{ '.repeat(5000)}?s ?p ?o ${'} '.repeat(5000)}`;
    await expectError(await update(srv, 'deep', upd), 400, 'err:db/BadRequest', 'the SPARQL update is nested too deeply');
    await pointQuery(srv, 'deep');
  });

  it('counts nesting of ( ) and [ ] too, but not brackets inside strings, IRIs or comments', async () => {
    const parens = `SELECT ?o WHERE { <${EX}s> <${EX}p> ?o FILTER(${'('.repeat(200)}?o = 1${')'.repeat(200)}) }`;
    await expectError(await sparql(srv, 'deep', parens), 400, 'err:db/BadRequest', 'nested too deeply');
    const hidden = `SELECT ?o WHERE { <${EX}s> <${EX}p> ?o # ${'{'.repeat(500)}\n FILTER(STR(?o) != "${'{(['.repeat(500)}") }`;
    const body = await json<{ results: { bindings: unknown[] } }>(await sparql(srv, 'deep', hidden));
    expect(body.results.bindings).toHaveLength(1);
  });

  it('accepts nesting at the limit and refuses one level more', async () => {
    const at = await json<{ results: { bindings: { o: { value: string } }[] } }>(await sparql(srv, 'deep', nestedGroups(DEFAULT_INPUT_LIMITS.maxNestingDepth)));
    expect(at.results.bindings.map((b) => b.o.value)).toEqual(['1']);
    await expectError(await sparql(srv, 'deep', nestedGroups(DEFAULT_INPUT_LIMITS.maxNestingDepth + 1)), 400, 'err:db/BadRequest', 'nested too deeply');
  });

  it('refuses long flat chains that build too deep a tree with 400, and runs 900-long ones', async () => {
    const or = (n: number) => `SELECT ?o WHERE { <${EX}s> <${EX}p> ?o FILTER(${Array.from({ length: n }, (_, i) => `?o = ${i + 1}`).join(' || ')}) }`;
    const optionals = (n: number) => `SELECT ?o WHERE { <${EX}s> <${EX}p> ?o ${`OPTIONAL { <${EX}s> <${EX}q> ?o } `.repeat(n)}}`;
    for (const q of [or(900), optionals(900)]) {
      const body = await json<{ results: { bindings: { o: { value: string } }[] } }>(await sparql(srv, 'deep', q));
      expect(body.results.bindings.map((b) => b.o.value)).toEqual(['1']);
    }
    for (const q of [or(5000), optionals(5000), or(20_000)]) {
      await expectError(await sparql(srv, 'deep', q), 400, 'err:db/BadRequest', 'deeply');
    }
    const orUpdate = `DELETE { ?s ?p ?o } WHERE { ?s ?p ?o FILTER(${Array.from({ length: 5000 }, (_, i) => `?o = ${i + 5}`).join(' || ')}) }`;
    await expectError(await update(srv, 'deep', orUpdate), 400, 'err:db/BadRequest', 'deeply');
    // The same shapes in JSON-LD: a 5,000-way (or ...) and 5,000 optionals, in a query and an update.
    const pattern = { '@id': 'ex:s', 'ex:p': '?v' };
    const orFilter = ['filter', `(or ${Array.from({ length: 5000 }, (_, i) => `(= ?v ${i + 5})`).join(' ')})`];
    await expectError(await postJson(`${srv.api}/query/deep`, { '@context': CTX, select: '?v', where: [pattern, orFilter] }), 400, 'err:db/BadRequest', 'deeply');
    const optional = ['optional', { '@id': 'ex:s', 'ex:q': '?w' }];
    await expectError(await postJson(`${srv.api}/query/deep`, { '@context': CTX, select: '?v', where: [pattern, ...Array(5000).fill(optional)] }), 400, 'err:db/BadRequest', 'deeply');
    await expectError(await postJson(`${srv.api}/update/deep`, { '@context': CTX, where: [pattern, orFilter], delete: pattern }), 400, 'err:db/BadRequest', 'deeply');
    const notNot = ['filter', `${'(not '.repeat(5000)}(= ?v 2)${')'.repeat(5000)}`];
    await expectError(await postJson(`${srv.api}/query/deep`, { '@context': CTX, select: '?v', where: [pattern, notNot] }), 400, 'err:db/BadRequest',
      'the expression is nested too deeply in ( ) or [ ] (limit: 128, set by --max-nesting-depth)');
    expect((await json<{ t: number }>(await fetch(`${srv.api}/info/deep`))).t).toBe(1);
    await pointQuery(srv, 'deep');
  });

  it('refuses 1,000-level JSON-LD in /insert and /query with 400', async () => {
    await expectError(await postJson(`${srv.api}/insert/deep`, { '@context': CTX, ...nestedNode(1000) }), 400, 'err:db/BadRequest',
      'the JSON body is nested too deeply in arrays and objects (limit: 128, set by --max-json-depth)');
    await expectError(await postJson(`${srv.api}/query/deep`, { '@context': CTX, select: ['?s'], where: nestedNode(1000) }), 400, 'err:db/BadRequest', 'nested too deeply');
    await expectError(await postJson(`${srv.api}/update/deep`, { '@context': CTX, insert: nestedNode(1000) }), 400, 'err:db/BadRequest', 'nested too deeply');
    expect((await json<{ t: number }>(await fetch(`${srv.api}/info/deep`))).t).toBe(1);
    await pointQuery(srv, 'deep');
  });

  it('refuses deep JSON in policy headers too', async () => {
    const deep = '['.repeat(2000) + ']'.repeat(2000);
    for (const header of ['Ledgraph-Policy', 'Ledgraph-Policy-Values']) {
      const r = await fetch(`${srv.api}/query/deep`, { method: 'POST', headers: { 'Content-Type': 'application/sparql-query', [header]: deep }, body: 'SELECT * { ?s ?p ?o }' });
      await expectError(r, 400, 'err:db/BadRequest', `${header} is nested too deeply in arrays and objects`);
    }
  });

  it('refuses a graph crawl deeper than --max-json-depth, which would nest the result past it', async () => {
    const r = await postJson(`${srv.api}/query/deep`, { '@context': CTX, select: { 'ex:s': ['*'] }, depth: 5000 });
    await expectError(r, 400, 'err:db/BadRequest', 'a crawl depth of 5000 nests the result deeper than allowed (limit: 128, set by --max-json-depth)');
    expect(await json(await postJson(`${srv.api}/query/deep`, { '@context': CTX, select: { 'ex:s': ['*'] }, depth: 128 }))).toEqual([{ '@id': 'ex:s', 'ex:p': 1 }]);
  });

  it('accepts JSON-LD nested within the limit', async () => {
    const r = await json<{ t: number }>(await postJson(`${srv.api}/insert/deep`, { '@context': CTX, ...nestedNode(100) }));
    expect(r.t).toBe(2);
    const q = await json<unknown[]>(await postJson(`${srv.api}/query/deep`, { '@context': CTX, select: '?v', where: { '@id': 'ex:leaf', 'ex:v': '?v' } }));
    expect(q).toEqual([1]);
  });

  it('refuses RDF/XML nested 10,000 elements deep before parsing it, and reads it within the limit', async () => {
    const rdfxml = (n: number) => `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="${EX}">`
      + '<rdf:Description><ex:x>'.repeat(n) + `<rdf:Description rdf:about="${EX}end"/>` + '</ex:x></rdf:Description>'.repeat(n) + '</rdf:RDF>';
    await expectError(await postText(`${srv.api}/data/deep?graph=${encodeURIComponent(EX + 'g')}`, 'application/rdf+xml', rdfxml(10_000)), 400, 'err:db/BadRequest',
      'the RDF/XML document nests elements too deeply (limit: 128, set by --max-nesting-depth)');
    expect((await postText(`${srv.api}/data/deep?graph=${encodeURIComponent(EX + 'g')}`, 'application/rdf+xml', rdfxml(63))).status).toBe(201);
    const n = await json<{ results: { bindings: { n: { value: string } }[] } }>(await sparql(srv, 'deep', `SELECT (COUNT(*) AS ?n) WHERE { GRAPH <${EX}g> { ?s <${EX}x> ?o } }`));
    expect(n.results.bindings[0]!.n.value).toBe('63');
    await pointQuery(srv, 'deep');
  });

  it('reads Turtle nested 100,000 levels deep in [ ] and ( ) without recursion (n3 keeps its own stack)', async () => {
    // Refused only by the novelty limit (the document is megabytes of blank nodes), never by the stack.
    const bnodes = `<${EX}s> <${EX}q> ${`[ <${EX}q> `.repeat(100_000)}1 ${'] '.repeat(100_000)}.`;
    await expectError(await postText(`${srv.api}/insert/deep`, 'text/turtle', bnodes), 413, 'err:db/NoveltyDeltaTooLarge');
    const lists = `<${EX}s> <${EX}q> ${'( '.repeat(100_000)}1 ${') '.repeat(100_000)}.`;
    await expectError(await postText(`${srv.api}/insert/deep`, 'application/trig', lists), 413, 'err:db/NoveltyDeltaTooLarge');
    await pointQuery(srv, 'deep');
  });
});

describe('nesting depth at the highest allowed limits', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ config: { maxNestingDepth: MAX_SAFE_DEPTH, maxJsonDepth: MAX_SAFE_DEPTH } });
    await seed(srv, 'max');
  });
  afterAll(async () => { await srv.close(); });

  it(`parses, plans and runs SPARQL nested ${MAX_SAFE_DEPTH} levels deep`, async () => {
    for (const q of [nestedGroups(MAX_SAFE_DEPTH), nestedOptionals(MAX_SAFE_DEPTH - 1)]) {
      const body = await json<{ results: { bindings: { o: { value: string } }[] } }>(await sparql(srv, 'max', q));
      expect(body.results.bindings.map((b) => b.o.value)).toEqual(['1']);
    }
    const upd = `INSERT { <${EX}s> <${EX}r> ?o } WHERE ${'{ '.repeat(MAX_SAFE_DEPTH)}<${EX}s> <${EX}p> ?o ${'} '.repeat(MAX_SAFE_DEPTH)}`;
    expect((await json<{ t: number }>(await update(srv, 'max', upd))).t).toBe(2);
    await expectError(await sparql(srv, 'max', nestedGroups(MAX_SAFE_DEPTH + 1)), 400, 'err:db/BadRequest', `(limit: ${MAX_SAFE_DEPTH}, set by --max-nesting-depth)`);
  });

  it(`inserts and queries JSON-LD nested ${MAX_SAFE_DEPTH} levels deep`, async () => {
    const n = MAX_SAFE_DEPTH - 2;
    expect((await json<{ t: number }>(await postJson(`${srv.api}/insert/max`, { '@context': CTX, ...nestedNode(n) }))).t).toBe(3);
    const q = await json<unknown[]>(await postJson(`${srv.api}/query/max`, { '@context': CTX, select: '?v', where: nestedNode(n, '?v') }));
    expect(q).toEqual([1]);
  });

  it(`crawls a chain ${MAX_SAFE_DEPTH} levels deep and writes the result`, async () => {
    const ttl = Array.from({ length: MAX_SAFE_DEPTH + 10 }, (_, i) => `<${EX}c${i}> <${EX}next> <${EX}c${i + 1}> .`).join('\n');
    expect((await postText(`${srv.api}/insert/max`, 'text/turtle', ttl)).status).toBe(200);
    const [root] = await json<Record<string, unknown>[]>(await postJson(`${srv.api}/query/max`, { '@context': CTX, select: { 'ex:c0': ['*'] }, depth: MAX_SAFE_DEPTH }));
    let levels = 0;
    for (let n = root; n && typeof n['ex:next'] === 'object'; n = n['ex:next'] as Record<string, unknown>) levels++;
    expect(levels).toBe(MAX_SAFE_DEPTH + 1);
  });
});

describe('size and count limits', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ config: { maxLiteralBytes: 1000, maxTriplePatterns: 50, maxQueryBytes: 64 * 1024 } });
    await seed(srv, 'lim');
  });
  afterAll(async () => { await srv.close(); });

  it('answers a query longer than --max-query-bytes with 413', async () => {
    const long = `SELECT ?o WHERE { <${EX}s> <${EX}p> ?o } # ${'x'.repeat(64 * 1024)}`;
    await expectError(await sparql(srv, 'lim', long), 413, 'err:db/PayloadTooLarge', 'the SPARQL query is longer than allowed (limit: 65536 bytes, set by --max-query-bytes)');
    await expectError(await postJson(`${srv.api}/query/lim`, { select: '?o', where: { '@id': `${EX}s`, [`${EX}p`]: '?o' }, pad: 'x'.repeat(64 * 1024) }),
      413, 'err:db/PayloadTooLarge', 'the JSON-LD query is longer than allowed');
    await pointQuery(srv, 'lim');
  });

  it('answers a query with more triple patterns than --max-triple-patterns with 400', async () => {
    const patterns = (n: number) => `SELECT * WHERE { ${Array.from({ length: n }, (_, i) => `<${EX}s> <${EX}p> ?o${i} .`).join(' ')} }`;
    expect((await sparql(srv, 'lim', patterns(50))).status).toBe(200);
    await expectError(await sparql(srv, 'lim', patterns(51)), 400, 'err:db/BadRequest', 'the query has 51 triple patterns, more than allowed (limit: 50, set by --max-triple-patterns)');
    const upd = `DELETE { ?s ?p ?o } WHERE { ${Array.from({ length: 51 }, (_, i) => `?s ?p ?o${i} .`).join(' ')} ?s ?p ?o }`;
    await expectError(await update(srv, 'lim', upd), 400, 'err:db/BadRequest', 'triple patterns, more than allowed');
  });

  it('answers a literal larger than --max-literal-bytes with 413, counting UTF-8 bytes, and stages nothing', async () => {
    expect((await postText(`${srv.api}/insert/lim`, 'text/turtle', `<${EX}a> <${EX}p> "${'x'.repeat(1000)}" .`)).status).toBe(200);
    await expectError(await postText(`${srv.api}/insert/lim`, 'text/turtle', `<${EX}b> <${EX}p> "${'x'.repeat(1001)}" .`), 413, 'err:db/PayloadTooLarge',
      'larger than allowed ("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…") (limit: 1000 bytes, set by --max-literal-bytes)');
    await expectError(await postJson(`${srv.api}/insert/lim`, { '@context': CTX, '@id': 'ex:c', 'ex:p': '€'.repeat(334) }), 413, 'err:db/PayloadTooLarge');
    await expectError(await update(srv, 'lim', `INSERT DATA { <${EX}d> <${EX}p> "${'y'.repeat(2000)}" }`), 413, 'err:db/PayloadTooLarge');
    expect((await json<{ t: number }>(await fetch(`${srv.api}/info/lim`))).t).toBe(2);
  });
});

describe('ledger names and error messages', () => {
  let srv: TestServer;
  beforeAll(async () => { srv = await startTestServer(); await seed(srv, 'msg'); });
  afterAll(async () => { await srv.close(); });

  it('answers a 300-character ledger name with 400 and no storage path, wherever it appears', async () => {
    const name = 'a'.repeat(300);
    const checks = [
      await postJson(`${srv.api}/create`, { ledger: name }),
      await fetch(`${srv.api}/info/${name}`),
      await postText(`${srv.api}/insert/${name}`, 'text/turtle', `<${EX}s> <${EX}p> 1 .`),
      await sparql(srv, name, 'SELECT * WHERE { ?s ?p ?o }'),
    ];
    for (const r of checks) {
      const body = await expectError(r, 400, 'err:db/BadRequest', 'is 300 characters long, longer than allowed (limit: 100, set by --max-ledger-name-length)');
      expect(JSON.stringify(body)).not.toContain(srv.dir);
      expect((body.error as string).length).toBeLessThan(300);
    }
  });

  it('answers a name within the limit that file storage cannot hold with 400, not 502', async () => {
    const name = 'a' + '/.'.repeat(49); // 99 characters; '/' and '.' take 3 bytes each in a file name
    const body = await expectError(await postJson(`${srv.api}/create`, { ledger: name }), 400, 'err:db/BadRequest', 'ledger id is too long for file storage');
    expect(JSON.stringify(body)).not.toContain(srv.dir);
  });

  it('answers a 20 MB invalid Turtle body with a small 400 quoting a short excerpt', async () => {
    for (const body of [`<${EX}s> <${EX}p> "${'x'.repeat(20e6)}`, `<${EX}s> <${EX}p> ${'x'.repeat(20e6)} .`]) {
      const r = await postText(`${srv.api}/insert/msg`, 'text/turtle', body);
      const text = await r.clone().text();
      expect(text.length).toBeLessThan(1000);
      const err = await expectError(r, 400, 'err:db/BadRequest', 'invalid Turtle: Unexpected "');
      expect(err.error as string).toMatch(/x…" \(line 1/);
    }
    await pointQuery(srv, 'msg');
  });

  it('caps parse errors of SPARQL, SPARQL UPDATE and JSON quoting large input', async () => {
    const big = 'x'.repeat(1e6);
    const cases = [
      await update(srv, 'msg', `INSERT DATA { ${big}:a <${EX}p> 1 }`),
      await update(srv, 'msg', `INSERT DATA { <${EX}a> <${EX}p> "unterminated ${big} }`),
      await sparql(srv, 'msg', `SELECT * WHERE { ?s ?p ${big}:x }`),
      await postText(`${srv.api}/insert/msg`, 'application/json', `{"a": ${big}}`),
      await postText(`${srv.api}/data/msg?default`, 'application/rdf+xml', `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><${big}:x/></rdf:RDF>`),
    ];
    for (const [i, r] of cases.entries()) {
      const text = await r.text();
      expect(r.status, `case ${i}: ${text.slice(0, 300)}`).toBe(400);
      expect(text.length, text.slice(0, 300)).toBeLessThan(1500);
    }
  });

  it('never sends a file-system path or stack in a 5xx; the log keeps it', async () => {
    const logged = await startTestServer({ captureLogs: true });
    try {
      await createLedger(logged, 'broken');
      // A corrupt nameservice record: the storage layer names the file it could not read.
      await writeFile(join(logged.dir, 'ns', encodeLedgerId('broken:main') + '.json'), '{not json');
      const r = await fetch(`${logged.api}/info/broken`);
      const body = await expectError(r, 502, 'err:db/BadGateway', 'nameservice record <path> is not valid JSON');
      expect(JSON.stringify(body)).not.toContain(logged.dir);
      const line = logged.logs.find((l) => l.msg === 'request failed' && l.status === 502);
      expect(String(line?.error)).toContain(logged.dir);
    } finally {
      await logged.close();
    }
  });
});
