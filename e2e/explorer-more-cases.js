/**
 * More explorer cases (issue 15), run after explorer-cases.js on the same server and data:
 * GraphQL and Cypher editors, a JSON-LD graph crawl as a graph, streaming with fuel and cancel,
 * branches (create, merge preview with conflicts, abort, merge), comparing two commits and a
 * subject's timeline; then peer mode on its own server (storage proxy on): open a ledger locally,
 * follow a commit, travel in time, and answer again after a reload with the server gone.
 */
import { join } from 'node:path';
import { api, EX, explorerPage, explorerServer, expectText, gridRows, LEDGER, typeInto } from './explorer-helpers.js';

const eq = (actual, expected, what) => {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
};
const people = `${'#/l/'}${encodeURIComponent(LEDGER)}`;

export const explorerMoreCases = [
  {
    name: 'explorer: GraphQL and Cypher editors (examples, time travel, errors), JSON-LD crawl as a graph',
    async run(ctx) {
      const server = await explorerServer(ctx.root);
      await api(server.url, `/insert/${LEDGER}`, `@prefix ex: <${EX}> .\nex:alice ex:knows ex:bob .`, 'text/turtle'); // t 4
      const { page, shot, done, expectStatus } = await explorerPage(ctx);
      expectStatus(400);
      await page.goto(`${server.url}/${people}/query`);
      // This server has no storage proxy: opening a local replica says so and stays on the server.
      expectStatus(404);
      await page.selectOption('#q-source', 'local');
      await page.fill('#replica-token', 'not-a-storage-token');
      await page.click('button:text("Open locally")');
      await expectText(page.locator('#replica-state'), /^Cannot open the local replica: err:db\/\w+ .* — is the server started with --storage-proxy-enabled, and does the token carry ledgraph\.storage claims for this ledger\?$/, 'no storage proxy');
      if (await page.inputValue('#q-source') !== 'server') throw new Error('still set to the local replica');
      await page.selectOption('#q-lang', 'graphql');
      await page.waitForFunction(() => [...document.querySelectorAll('#q-example option')].some((o) => o.textContent === 'persons (GraphQL)'), null, { timeout: 15_000 });
      const examples = await page.$$eval('#q-example option', (o) => o.map((x) => x.textContent));
      if (!examples.includes('Instances of Person (Cypher)')) throw new Error(`examples: ${JSON.stringify(examples)}`);
      await typeInto(page, '.editor', '{ persons(orderBy: {field: id}) { id name age } }');
      await page.keyboard.press('Control+Enter');
      await expectText(page.locator('.result-meta'), /^3 rows at people:main ·/, 'GraphQL rows');
      eq(await gridRows(page), [[`${EX}alice`, 'Alicia', '41'], [`${EX}bob`, 'Bob', '29'], [`${EX}carol`, 'Carol', '35']], 'GraphQL table');
      // Time travel works for GraphQL too: two steps back is t 2, before Alice was renamed.
      await page.focus('#tt-slider');
      await page.keyboard.press('ArrowLeft');
      await expectText(page.locator('.result-meta'), /^3 rows at people:main@t:3 /, 'GraphQL at t 3');
      await page.keyboard.press('ArrowLeft');
      await expectText(page.locator('.result-meta'), /^3 rows at people:main@t:2 /, 'GraphQL at t 2');
      eq((await gridRows(page))[0], [`${EX}alice`, 'Alice', '41'], 'GraphQL at t 2');
      await shot('explorer-graphql');
      await page.click('button:text("Latest")');
      await expectText(page.locator('.result-meta'), /^3 rows at people:main ·/, 'back to latest');
      // A GraphQL error is a 200 with `errors`: its code and message are shown.
      await typeInto(page, '.editor', '{ nosuch { id } }');
      await page.keyboard.press('Control+Enter');
      await expectText(page.locator('.results .error'), /^SCHEMA_ERROR Cannot query field "nosuch" on type "Query"/, 'GraphQL error');

      await page.selectOption('#q-lang', 'cypher');
      await typeInto(page, '.editor', 'MATCH (p:Person)-[:knows]->(q:Person)\nRETURN p.name AS name, q.name AS friend, p.age');
      await page.keyboard.press('Control+Enter');
      await expectText(page.locator('.result-meta'), /^1 row at people:main ·/, 'Cypher rows');
      eq(await page.$$eval('.grid-head button', (b) => b.map((x) => x.textContent)), ['name', 'friend', 'p.age'], 'Cypher columns');
      eq(await gridRows(page), [['Alicia', 'Bob', '41']], 'Cypher table');
      await shot('explorer-cypher');
      await typeInto(page, '.editor', 'MATCH (p RETURN p');
      await page.keyboard.press('Control+Enter');
      await expectText(page.locator('.results .error'), /^err:db\/BadRequest /, 'Cypher syntax error');

      // A JSON-LD graph crawl: one row, and the same answer as a node-link graph.
      await page.selectOption('#q-lang', 'jsonld');
      await typeInto(page, '.editor', JSON.stringify({ '@context': { ex: EX }, select: { 'ex:alice': ['*', { 'ex:knows': ['*'] }] } }));
      await page.keyboard.press('Control+Enter');
      await expectText(page.locator('.result-meta'), /^1 row at people:main ·/, 'crawl rows');
      await page.click('.tabs button:text("Graph")');
      await expectText(page.locator('.results p.muted'), /^7 triples\./, 'crawl graph note');
      await page.waitForSelector('.graph-canvas canvas', { timeout: 15_000 });
      await page.waitForTimeout(300);
      await shot('explorer-jsonld-crawl-graph');
      const history = await page.$$eval('#q-history option', (o) => o.map((x) => x.textContent.split(' · ')[0]));
      if (!history.includes('GraphQL') || !history.includes('Cypher')) throw new Error(`history: ${JSON.stringify(history)}`);
      done();
    },
  },
  {
    name: 'explorer: streaming NDJSON results with fuel and time, cancel mid-stream',
    timeoutMs: 120_000,
    async run(ctx) {
      const server = await explorerServer(ctx.root);
      const { page, shot, done } = await explorerPage(ctx);
      await page.goto(`${server.url}/#/l/${encodeURIComponent('numbers:main')}/query`);
      await page.selectOption('#q-lang', 'sparql');
      await page.check('#q-stream');
      await typeInto(page, '.editor', `PREFIX ex: <${EX}>\nSELECT ?n ?v WHERE { ?n ex:value ?v } ORDER BY ?v`);
      await page.keyboard.press('Control+Enter');
      const meta = await expectText(page.locator('.result-meta'), /^10000 rows at numbers:main · streamed · \d+ ms · fuel \d+ · server [\d.]+ ?ms$/, 'streamed SELECT');
      ctx.log(`stream: ${meta}`);
      eq((await gridRows(page))[0], [`${EX}n0`, '0'], 'first streamed row');
      await page.click('.tabs button:text("NDJSON")');
      await expectText(page.locator('pre.raw'), /^\{"type":"head","vars":\["n","v"\]\}[\s\S]*\{"type":"end","rows":10000,/, 'raw NDJSON');
      // 100,000,000 rows: rows show while they arrive; Cancel stops it and keeps the count.
      await typeInto(page, '.editor', `PREFIX ex: <${EX}>\nSELECT ?a ?b WHERE { ?a ex:value ?x . ?b ex:value ?y }`);
      await page.keyboard.press('Control+Enter');
      await expectText(page.locator('.result-meta'), /^\d{4,} rows at numbers:main · streaming… · \d+ ms$/, 'rows while streaming');
      await shot('explorer-streaming');
      await page.click('button:text("Cancel")');
      const cancelled = await expectText(page.locator('.results'), /^Cancelled: \d+ rows(?: \(first \d+ kept\))? at numbers:main(?: · streaming… · \d+ ms)?\.$/, 'cancelled');
      ctx.log(cancelled);
      if (await page.locator('button:text("Run")').isDisabled()) throw new Error('Run stays disabled after cancel');
      done();
    },
  },
  {
    name: 'explorer: branches — create at a t, merge preview with conflicts, abort refused, merge, rebase, revert, drop',
    async run(ctx) {
      const server = await explorerServer(ctx.root);
      const { page, shot, done, expectStatus } = await explorerPage(ctx);
      expectStatus(409);
      await page.goto(`${server.url}/${people}/branches`);
      await expectText(page.locator('table.branches caption'), /^1 branch of people$/, 'one branch');
      await page.fill('#br-name', 'dev');
      await page.fill('#br-at', 't:2');
      await page.click('button:text("Create branch")');
      await expectText(page.locator('.receipt'), /^Created people:dev from main at t 2\.$/, 'branch created');
      await expectText(page.locator('table.branches'), /people:dev\s+2\s+main/, 'dev listed');
      await api(server.url, '/update/people:dev', `PREFIX ex: <${EX}>\nDELETE { ex:alice ex:name ?n } INSERT { ex:alice ex:name "Ally" } WHERE { ex:alice ex:name ?n }`, 'application/sparql-update');
      await expectText(page.locator('table.branches'), /people:dev\s+3\s+main/, 'dev at t 3, live');
      await page.selectOption('#mg-source', 'dev');
      await page.selectOption('#mg-strategy', 'abort');
      await page.click('button:text("Preview merge")');
      await expectText(page.locator('.receipt'), /Common ancestor\s+t 2\s+Ahead \(only on source\)\s+1\s+Behind \(only on target\)\s+2\s+Fast-forward\s+no\s+Strategy\s+abort\s+Mergeable\s+no/, 'abort preview');
      const keys = await page.$$eval('table.conflicts tbody tr', (r) => r.map((x) => [...x.children].map((c) => c.textContent)));
      eq(keys, [['ex:alice', 'ex:name', 'default']], 'conflict keys');
      await page.click('.inline-form button:text-is("Merge")');
      await expectText(page.locator('.receipt .error'), /^err:db\/CommitConflict Merge aborted: 1 conflict/, 'abort refused');
      await page.selectOption('#mg-strategy', 'take-source');
      await page.click('button:text("Preview merge")');
      await expectText(page.locator('.receipt'), /Strategy\s+take-source\s+Mergeable\s+yes/, 'take-source preview');
      await shot('explorer-merge-preview');
      await page.click('.inline-form button:text-is("Merge")');
      await expectText(page.locator('.receipt'), /Merged dev into main[\s\S]*Fast-forward\s+no\s+New head t\s+5\s+Commits copied\s+1\s+Conflicts\s+1\s+Strategy\s+take-source/, 'merge receipt');
      await expectText(page.locator('table.branches'), /people:main\s+5/, 'main at t 5');
      const names = await api(server.url, `/query/${LEDGER}`, JSON.stringify({ '@context': { ex: EX }, select: '?n', where: { '@id': 'ex:alice', 'ex:name': '?n' } }));
      eq(names, ['Ally'], 'alice after take-source merge');
      await shot('explorer-merged');
      // dev's head is now an ancestor of main's: a rebase fast-forwards it. The root is not offered.
      eq(await page.$$eval('#rb-branch option', (o) => o.map((x) => x.value)), ['dev'], 'branches that can be rebased');
      await page.click('button:text-is("Rebase")');
      await expectText(page.locator('.receipt'), /Rebased people:dev\s+Fast-forward\s+yes\s+Replayed\s+0\s+Skipped\s+0\s+Commits with conflicts\s+0\s+Own commits\s+0\s+Source head t\s+5\s+New head t\s+5/, 'rebase receipt');
      await expectText(page.locator('table.branches'), /people:dev\s+5\s+main/, 'dev fast-forwarded');
      // Revert t 4 (Alice knows Bob) on main: previewed, then one new commit that undoes it.
      await page.fill('#rv-commit', 't:4');
      await page.selectOption('#rv-branch', 'main');
      await page.click('button:text("Preview revert")');
      await expectText(page.locator('.receipt'), /Revert on main: preview\s+Commits to undo\s+1\s+At t\s+4\s+Revertable\s+yes\s+No conflicting keys\./, 'revert preview');
      await page.click('button:text-is("Revert")');
      await expectText(page.locator('.receipt'), /Reverted on people:main\s+Commits undone\s+1\s+Conflicts\s+0\s+Strategy\s+abort\s+New head t\s+6/, 'revert receipt');
      const knows = await api(server.url, `/query/${LEDGER}`, JSON.stringify({ '@context': { ex: EX }, select: '?o', where: { '@id': 'ex:alice', 'ex:knows': '?o' } }));
      eq(knows, [], 'alice knows nobody after the revert');
      await page.goto(`${server.url}/`);
      await expectText(page.locator('table.data'), /people:dev\s+5\s+2 branches/, 'branches in the ledger list');
      // A narrow window: the branches screen wraps instead of scrolling sideways.
      await page.goto(`${server.url}/${people}/branches`);
      await expectText(page.locator('table.branches caption'), /^2 branches of people$/, 'two branches');
      await page.setViewportSize({ width: 420, height: 800 });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      if (overflow > 0) throw new Error(`branches screen overflows a narrow window by ${overflow}px`);
      await shot('explorer-branches-narrow');
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.click('button[aria-label="Drop branch dev"]');
      await expectText(page.locator('.receipt'), /^Drop people:dev: dropped\.$/, 'drop branch');
      await expectText(page.locator('table.branches caption'), /^1 branch of people$/, 'one branch left');
      done();
    },
  },
  {
    name: 'explorer: compare two commits, a subject timeline of asserts and retracts',
    async run(ctx) {
      const server = await explorerServer(ctx.root);
      const { page, shot, done } = await explorerPage(ctx);
      await page.goto(`${server.url}/${people}/compare`);
      await page.fill('#cmp-a', '1');
      await page.fill('#cmp-b', '3');
      await page.click('button:text("Compare")');
      await expectText(page.locator('table.diff caption'), /^From t 1 to t 3: 4 added, 1 removed$/, 'compare 1..3');
      // Over 2..5 Alice → Alicia → Ally: "Alicia" came and went, so only Alice's removal and Ally remain.
      await page.fill('#cmp-a', '2');
      await page.fill('#cmp-b', '5');
      await page.click('button:text("Compare")');
      await expectText(page.locator('table.diff caption'), /^From t 2 to t 5: 2 added, 1 removed$/, 'compare 2..5');
      eq(await page.$$eval('tr.removed', (r) => r.map((x) => x.innerText.replace(/\s+/g, ' ').trim())), ['− ex:alice ex:name "Alice"'], 'removed');
      eq((await page.$$eval('tr.added', (r) => r.map((x) => x.innerText.replace(/\s+/g, ' ').trim()))).sort(), ['+ ex:alice ex:knows ex:bob', '+ ex:alice ex:name "Ally"'], 'added');
      await shot('explorer-compare');
      await page.click('tr.removed a:text("ex:alice")');
      await expectText(page.locator('.timeline-meta'), /^9 changes in 5 commits, newest first$/, 'timeline size');
      const items = await page.$$eval('.timeline > li', (l) => l.map((x) => x.innerText.replace(/\s+/g, ' ').trim().replace(/ \d{1,2}\/.*?(?= [+−])/, '')));
      eq(items.map((i) => i.split(' ').slice(0, 2).join(' ')), ['t 6', 't 5', 't 4', 't 3', 't 1'], 'timeline commits');
      if (!/^t 6 − http:\/\/example\.org\/knows http:\/\/example\.org\/bob$/.test(items[0])) throw new Error(`t 6 entry: ${items[0]}`);
      if (!/^t 5 − http:\/\/example\.org\/name "Alicia" \+ http:\/\/example\.org\/name "Ally"$/.test(items[1])) throw new Error(`t 5 entry: ${items[1]}`);
      // Newest first, and each commit's own time (not a merged-in commit's of the same t).
      const stamps = await page.$$eval('.timeline h3 .muted', (l) => l.map((x) => Date.parse(x.textContent)));
      if (stamps.some((v, i) => Number.isNaN(v) || (i > 0 && v > stamps[i - 1]))) throw new Error(`timeline times not newest first: ${JSON.stringify(stamps)}`);
      if (!/^t 3 − http:\/\/example\.org\/name "Alice" \+ http:\/\/example\.org\/name "Alicia"$/.test(items[3])) throw new Error(`t 3 entry: ${items[3]}`);
      await shot('explorer-subject-timeline');
      done();
    },
  },
  {
    name: 'explorer: peer mode — open locally, replication state, time travel, query offline after a reload',
    timeoutMs: 180_000,
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
        storageProxyEnabled: true, storageProxyTrustedIssuers: [signer.did] }, { version: 'e2e-peer', log: silentLogger });
      let closed = false;
      try {
        const insert = (name) => api(server.url, '/insert/local:main', JSON.stringify({ '@context': { ex: EX }, '@id': `ex:${name.toLowerCase()}`, 'ex:name': name }));
        await api(server.url, '/create', JSON.stringify({ ledger: 'local' }));
        await insert('Alice');
        await insert('Bob');
        const { page, shot, done, allowConsole } = await explorerPage(ctx);
        await page.goto(`${server.url}/#/l/local:main/query`);
        await page.waitForFunction(() => navigator.serviceWorker?.controller !== null, null, { timeout: 15_000 });
        await expectText(page.locator('#replica-state'), /^Queries run on the server\.$/, 'server mode');
        await page.selectOption('#q-source', 'local');
        await expectText(page.locator('#replica-state'), /^The replica reads through the storage proxy: paste a token with ledgraph\.storage claims, then Open locally\.$/, 'asks for a token');
        await page.fill('#replica-token', token);
        await page.click('button:text("Open locally")');
        await expectText(page.locator('#replica-state'), /^Local replica · local t 2 · server t 2 \(up to date\) · [\d.]+ (B|KiB|MiB) fetched · online$/, 'replica opened');
        await typeInto(page, '.editor', `SELECT ?name WHERE { ?s <${EX}name> ?name } ORDER BY ?name`);
        await page.keyboard.press('Control+Enter');
        await expectText(page.locator('.result-meta'), /^2 rows at local:main \(local replica\) · \d+ ms$/, 'local query');
        eq(await gridRows(page), [['Alice'], ['Bob']], 'local rows');
        await insert('Carol');
        await expectText(page.locator('#replica-state'), /^Local replica · local t 3 · server t 3 \(up to date\) · /, 'replica follows the server');
        await page.click('.cm-content');
        await page.keyboard.press('Control+Enter');
        await expectText(page.locator('.result-meta'), /^3 rows at local:main \(local replica\)/, 'local query after the commit');
        await page.focus('#tt-slider');
        await page.keyboard.press('ArrowLeft');
        await expectText(page.locator('.result-meta'), /^2 rows at local:main@t:2 \(local replica\)/, 'local time travel');
        eq(await gridRows(page), [['Alice'], ['Bob']], 'local rows at t 2');
        const state = await page.locator('#replica-state').innerText();
        ctx.log(`replica: ${state}`);
        await shot('explorer-peer-mode');

        // The server goes away; the page reloads from the service worker's cache and the replica answers.
        allowConsole(/ERR_CONNECTION_REFUSED|Failed to fetch|Failed to load resource/);
        await server.close(0);
        closed = true;
        await page.reload();
        await expectText(page.locator('#server-version'), /^server unreachable · offline$/, 'offline banner');
        await expectText(page.locator('#replica-state'), /^Local replica · local t 3 · server t unknown · [\d.]+ (B|KiB|MiB) fetched · offline$/, 'offline replica');
        await page.click('.cm-content');
        await page.keyboard.press('Control+Enter');
        await expectText(page.locator('.result-meta'), /^3 rows at local:main \(local replica\)/, 'offline query');
        eq(await gridRows(page), [['Alice'], ['Bob'], ['Carol']], 'offline rows');
        await shot('explorer-peer-offline');
        done();
      } finally {
        if (!closed) await server.close(0);
      }
    },
  },
];
