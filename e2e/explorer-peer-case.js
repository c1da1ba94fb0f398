/**
 * The explorer's peer mode (issue 15) on its own server (storage proxy on): open a ledger locally,
 * then SPARQL, JSON-LD, GraphQL and Cypher answer with exact rows from the browser peer's worker,
 * at the head, at a slider t and at a date picker `@time:`; a streamed SELECT shows its rows and
 * Cancel stops an endless one; the replica follows a commit; and after a reload with the server
 * gone all of it answers again from IndexedDB. No request reaches the server's query endpoints
 * (/query, /graphql, /graphql-schema, /stream) while the replica is in use.
 */
import { join } from 'node:path';
import { api, EX, explorerPage, explorerServer, expectText, gridRows, typeInto } from './explorer-helpers.js';

const eq = (actual, expected, what) => {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
};

const SPARQL = `SELECT ?name WHERE { ?s <${EX}name> ?name } ORDER BY ?name`;
const JSONLD = JSON.stringify({ '@context': { ex: EX }, select: ['?name', '?age'], where: { '@id': '?s', 'ex:name': '?name', 'ex:age': '?age' }, orderBy: ['?name'] });
const GRAPHQL = '{ persons(orderBy: {field: id}) { id name age } }';
const CYPHER = 'MATCH (p:Person) WHERE p.age > 30 RETURN p.name AS name, p.age AS age ORDER BY name';
const ENDLESS = `SELECT ?a ?b ?c WHERE { ?a <${EX}value> ?x . ?b <${EX}value> ?y . ?c <${EX}value> ?z }`; // 27,000,000 rows

/** Run `text` in `lang` with Ctrl-Enter and wait for the result line to match `meta`. */
async function run(page, lang, text, meta, what) {
  await page.selectOption('#q-lang', lang);
  await typeInto(page, '.editor', text);
  await page.keyboard.press('Control+Enter');
  return expectText(page.locator('.result-meta'), meta, what);
}

/** Every query language, the slider, the date picker and a stream, on the replica at local t 4. */
async function queryAll(page, label, atTime, shot) {
  const where = 'at local:main \\(local replica\\)';
  await page.click('button:text("Latest")');
  await run(page, 'sparql', SPARQL, new RegExp(`^3 rows ${where} · \\d+ ms$`), `${label}: SPARQL`);
  eq(await gridRows(page), [['Alice'], ['Bob'], ['Carol']], `${label}: SPARQL rows`);
  await run(page, 'jsonld', JSONLD, new RegExp(`^3 rows ${where} · \\d+ ms$`), `${label}: JSON-LD`);
  eq(await gridRows(page), [['Alice', '41'], ['Bob', '29'], ['Carol', '35']], `${label}: JSON-LD rows`);
  await run(page, 'graphql', GRAPHQL, new RegExp(`^3 rows ${where} · \\d+ ms$`), `${label}: GraphQL`);
  eq(await gridRows(page), [[`${EX}alice`, 'Alice', '41'], [`${EX}bob`, 'Bob', '29'], [`${EX}carol`, 'Carol', '35']], `${label}: GraphQL rows`);
  await run(page, 'cypher', CYPHER, new RegExp(`^2 rows ${where} · \\d+ ms$`), `${label}: Cypher`);
  eq(await gridRows(page), [['Alice', '41'], ['Carol', '35']], `${label}: Cypher rows`);
  // The slider one step back (t 3, before Carol) re-runs the Cypher query there.
  await page.focus('#tt-slider');
  await page.keyboard.press('ArrowLeft');
  await expectText(page.locator('.result-meta'), new RegExp(`^1 row at local:main@t:3 \\(local replica\\) · `), `${label}: Cypher at t 3`);
  eq(await gridRows(page), [['Alice', '41']], `${label}: Cypher rows at t 3`);
  // The date picker: a second after Alice's commit and before Bob's is the state of t 1.
  await page.fill('#tt-date', atTime);
  await expectText(page.locator('.result-meta'), /^1 row at local:main@time:\S+ \(local replica\) · \d+ ms$/, `${label}: Cypher at @time:`);
  await run(page, 'graphql', GRAPHQL, /^1 row at local:main@time:\S+ \(local replica\) · \d+ ms$/, `${label}: GraphQL at @time:`);
  eq(await gridRows(page), [[`${EX}alice`, 'Alice', '41']], `${label}: GraphQL rows at @time:`);
  await shot?.('explorer-peer-time');
  // Streaming on the replica: NDJSON records from the worker, with fuel and the worker's time.
  await page.click('button:text("Latest")');
  await page.selectOption('#q-lang', 'sparql');
  await page.check('#q-stream');
  await run(page, 'sparql', SPARQL, new RegExp(`^3 rows ${where} · streamed · \\d+ ms · fuel \\d+ · worker [\\d.]+ms$`), `${label}: streamed SELECT`);
  eq(await gridRows(page), [['Alice'], ['Bob'], ['Carol']], `${label}: streamed rows`);
  await page.click('.tabs button:text("NDJSON")');
  await expectText(page.locator('pre.raw'), /^\{"type":"head","vars":\["name"\]\}\n\{"type":"row","row":\{"name":\{"type":"literal","value":"Alice"\}\}\}[\s\S]*\{"type":"end","rows":3,"t":4,"fuel":\d+,"time":"[\d.]+ms"\}$/, `${label}: raw NDJSON`);
  // An endless stream shows rows as they arrive; Cancel stops it in the worker and keeps the count.
  await typeInto(page, '.editor', ENDLESS);
  await page.keyboard.press('Control+Enter');
  await expectText(page.locator('.result-meta'), new RegExp(`^\\d{4,} rows ${where} · streaming… · \\d+ ms$`), `${label}: rows while streaming`);
  await shot?.('explorer-peer-streaming');
  await page.click('button:text("Cancel")');
  await expectText(page.locator('.results'), new RegExp(`^Cancelled: \\d+ rows ${where}( · streaming… · \\d+ ms)?\\.$`), `${label}: cancelled`);
  await page.uncheck('#q-stream');
  await run(page, 'sparql', SPARQL, new RegExp(`^3 rows ${where} · \\d+ ms$`), `${label}: a query after the cancel`);
}

export const explorerPeerCase = {
  name: 'explorer: peer mode — every language, @t and @time:, streaming and cancel in the browser peer, online and offline after a reload',
  timeoutMs: 240_000,
  async run(ctx) {
    await explorerServer(ctx.root); // builds web/
    const dist = (p) => import(join(ctx.root, 'dist', p));
    const { startLedgraphServer } = await dist('server/main.js');
    const { defaultServerConfig } = await dist('server/config.js');
    const { silentLogger } = await dist('server/log.js');
    const { ed25519FromSeed, mintToken, hexBytes } = await dist('server/auth/jws.js');
    const signer = await ed25519FromSeed(hexBytes('0f0e0d0c0b0a09080706050403020100f0e0d0c0b0a090807060504030201000'));
    const now = Math.floor(Date.now() / 1000);
    const token = await mintToken(signer, { iss: signer.did, iat: now, exp: now + 3600, 'ledgraph.storage.all': true, 'ledgraph.events.all': true });
    const server = await startLedgraphServer({ ...defaultServerConfig(), memory: true, port: 0, eventsKeepAliveMs: 1000,
      // Indexed after every commit: the replica then holds index objects, not only commits.
      reindexMinBytes: 1, storageProxyEnabled: true, storageProxyTrustedIssuers: [signer.did] }, { version: 'e2e-peer', log: silentLogger });
    // Requests to the query endpoints, from the page, its workers and the service worker alike.
    const queried = [];
    const onRequest = (r) => {
      const path = new URL(r.url()).pathname;
      if (/^\/v1\/ledgraph\/(query|graphql|graphql-schema|stream)\b/.test(path)) queried.push(`${r.method()} ${path}`);
    };
    ctx.browser.on('request', onRequest);
    let closed = false;
    try {
      const person = (name, age) => api(server.url, '/insert/local:main', JSON.stringify({ '@context': { ex: EX }, '@id': `ex:${name.toLowerCase()}`, '@type': 'ex:Person', 'ex:name': name, 'ex:age': age }));
      await api(server.url, '/create', JSON.stringify({ ledger: 'local' }));
      const t1 = await person('Alice', 41);
      await new Promise((ok) => setTimeout(ok, 2100));
      await person('Bob', 29);
      const numbers = Array.from({ length: 300 }, (_, i) => `<${EX}n${i}> <${EX}value> ${i} .`).join('\n');
      await api(server.url, '/insert/local:main', numbers, 'text/turtle');
      // The date picker has whole seconds: a second after Alice's commit is before Bob's.
      const log = await (await fetch(`${server.url}/v1/ledgraph/log/local:main`)).json();
      const commits = Array.isArray(log) ? log : log.commits;
      const aliceAt = new Date(commits.find((c) => c.t === t1.t).time);
      const after = new Date(Math.floor(aliceAt.getTime() / 1000) * 1000 + 1000);
      const atTime = new Date(after.getTime() - after.getTimezoneOffset() * 60_000).toISOString().slice(0, 19);

      const { page, shot, done, allowConsole } = await explorerPage(ctx);
      await page.goto(`${server.url}/#/l/local:main/query`);
      await page.waitForFunction(() => navigator.serviceWorker?.controller !== null, null, { timeout: 15_000 });
      await expectText(page.locator('#replica-state'), /^Queries run on the server\.$/, 'server mode');
      // On the server first: the request counter sees it.
      await run(page, 'sparql', SPARQL, /^2 rows at local:main · \d+ ms$/, 'server query');
      if (!queried.some((q) => q === 'POST /v1/ledgraph/query/local:main')) throw new Error(`the server query was not seen: ${JSON.stringify(queried)}`);

      await page.selectOption('#q-source', 'local');
      await expectText(page.locator('#replica-state'), /^The replica reads through the storage proxy: paste a token with ledgraph\.storage claims, then Open locally\.$/, 'asks for a token');
      await page.fill('#replica-token', token);
      await page.click('button:text("Open locally")');
      await expectText(page.locator('#replica-state'), /^Local replica · local t 3 · server t 3 \(up to date\) · [\d.]+ (B|KiB|MiB) fetched · online$/, 'replica opened');
      queried.length = 0;
      await person('Carol', 35);
      await expectText(page.locator('#replica-state'), /^Local replica · local t 4 · server t 4 \(up to date\) · /, 'replica follows the server');
      // Examples come from the replica's own schema and statistics.
      await page.waitForFunction(() => [...document.querySelectorAll('#q-example option')].some((o) => o.textContent === 'persons (GraphQL)'), null, { timeout: 15_000 });
      await queryAll(page, 'online', atTime, shot);
      ctx.log(`replica: ${await page.locator('#replica-state').innerText()}`);
      await page.selectOption('#q-lang', 'graphql');
      await typeInto(page, '.editor', GRAPHQL);
      await page.keyboard.press('Control+Enter');
      await expectText(page.locator('.result-meta'), /^3 rows at local:main \(local replica\)/, 'GraphQL for the screenshot');
      await shot('explorer-peer-mode');
      // A write on the replica is refused, clearly.
      await page.selectOption('#q-lang', 'cypher');
      await typeInto(page, '.editor', 'CREATE (p:Person {name: "Zed"})');
      await page.keyboard.press('Control+Enter');
      await expectText(page.locator('.results .error'), /^err:db\/Forbidden the local replica is read-only: Cypher writes \(CREATE, MERGE, SET, REMOVE, DELETE\) run on the transaction server/, 'Cypher write refused');
      eq(queried, [], 'query requests to the server while the replica is in use (online)');

      // The server goes away; the page reloads from the service worker's cache and the replica answers.
      allowConsole(/ERR_CONNECTION_REFUSED|Failed to fetch|Failed to load resource/);
      await server.close(0);
      closed = true;
      await page.reload();
      await expectText(page.locator('#server-version'), /^server unreachable · offline$/, 'offline banner');
      await expectText(page.locator('#replica-state'), /^Local replica · local t 4 · server t unknown · [\d.]+ (B|KiB|MiB) fetched · offline$/, 'offline replica');
      await page.waitForFunction(() => [...document.querySelectorAll('#q-example option')].some((o) => o.textContent === 'persons (GraphQL)'), null, { timeout: 15_000 });
      await queryAll(page, 'offline', atTime);
      // A state no query read online (the replica holds the whole ledger): t 2, Alice and Bob.
      await run(page, 'sparql', SPARQL, /^3 rows at local:main \(local replica\)/, 'offline SPARQL at the head');
      await page.focus('#tt-slider');
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('ArrowLeft');
      await expectText(page.locator('.result-meta'), /^2 rows at local:main@t:2 \(local replica\) · \d+ ms$/, 'offline SPARQL at t 2');
      eq(await gridRows(page), [['Alice'], ['Bob']], 'offline rows at t 2');
      await page.click('button:text("Latest")');
      await run(page, 'cypher', CYPHER, /^2 rows at local:main \(local replica\)/, 'Cypher for the screenshot');
      await shot('explorer-peer-offline');
      eq(queried, [], 'query requests to the server while offline');
      done();
    } finally {
      ctx.browser.off('request', onRequest);
      if (!closed) await server.close(0);
    }
  },
};
