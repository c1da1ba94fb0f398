/**
 * e2e case: the W3C SPARQL 1.1 query suite that `npm test` runs in Node
 * (test/w3c/sparql-query.test.ts) runs inside Chromium against the browser build of the engine.
 * Node prepares each test (query text, the dataset's quads, via the same W3C runner modules,
 * loaded through Vite's SSR loader), the page evaluates it (e2e/w3c-entry.ts) and returns the
 * result in every result format, and Node judges it with test/w3c/query-judge.ts — the judge of the
 * Node suite — against the same known-failures list.
 */
import { join } from 'node:path';

const BATCH = 25;

function wireTerm(t) {
  switch (t.termType) {
    case 'NamedNode': return ['n', t.value];
    case 'BlankNode': return ['b', t.value];
    case 'DefaultGraph': return ['d', ''];
    case 'Literal': return ['l', t.value, t.language ? '@' + t.language : t.datatype.value];
    default: throw new Error(`unexpected term type ${t.termType}`);
  }
}

/** The text of a serialisation, or the writer's refusal as the error the Node judge would see. */
function written(w) {
  if (typeof w === 'string') return w;
  throw new Error(w.error);
}

export const w3cCase = {
  name: 'W3C SPARQL 1.1 query suite inside Chromium (browser build), judged as in Node',
  timeoutMs: 900_000,
  async run({ baseUrl, newPage, log, root }) {
    const { createServer } = await import('vite');
    const vite = await createServer({
      root, configFile: false, logLevel: 'error', appType: 'custom',
      server: { middlewareMode: true, hmr: false, watch: null }, optimizeDeps: { noDiscovery: true, include: [] },
    });
    try {
      const load = (p) => vite.ssrLoadModule(join(root, p));
      const manifest = await load('test/w3c/manifest.ts');
      if (!manifest.w3cAvailable()) throw new Error(`W3C data not found under ${manifest.W3C_DIR} (set LEDGRAPH_W3C_DIR)`);
      const judge = await load('test/w3c/query-judge.ts');
      const adapter = await load('test/w3c/engine-adapter.ts');
      const rdf = await load('test/w3c/rdf-files.ts');
      const harness = await load('test/w3c/harness.ts');
      const { parseSparqlJson } = await load('src/core/query/results/sparql-json.ts');
      const tests = judge.queryTests();
      const byId = new Map(tests.map((t) => [t.id, t]));
      const cases = [];
      for (const t of tests) {
        const text = manifest.readW3c(t.query);
        const q = await adapter.parseQuery(text, t.query);
        const fromIris = q.dataset ? [...q.dataset.defaultGraphs, ...q.dataset.namedGraphs].map((n) => n.value) : [];
        const quads = adapter.loadDataset(t.dataset, fromIris).map((x) => [wireTerm(x.subject), wireTerm(x.predicate), wireTerm(x.object), wireTerm(x.graph)]);
        cases.push({ id: t.id, queryIri: t.query, queryText: text, quads, graphNames: t.dataset.graphData.map((g) => g.name) });
      }

      const page = await newPage();
      await page.goto(`${baseUrl}/index.html`);
      await page.waitForFunction(() => typeof window.ledgraphW3cEval === 'function', null, { timeout: 15_000 });
      const answers = [];
      for (let i = 0; i < cases.length; i += BATCH) answers.push(...await page.evaluate((cs) => window.ledgraphW3cEval(cs), cases.slice(i, i + BATCH)));
      const ua = await page.evaluate(() => navigator.userAgent);

      const known = harness.loadKnownFailures();
      const tally = { pass: 0, fail: 0, known: 0, knownPassed: 0 };
      const failures = [];
      for (const a of answers) {
        const t = byId.get(a.id);
        let outcome;
        if (a.kind === 'error') {
          outcome = { status: 'fail', message: a.error };
        } else {
          const notGraph = () => { throw new Error('expected a graph, got solutions or a boolean'); };
          const notTable = () => { throw new Error('expected solutions or a boolean, got a graph'); };
          const actual = a.kind === 'quads'
            ? { kind: 'quads', quads: async () => rdf.parseRdfText(a.nquads, { format: 'N-Quads', baseIri: t.query }), text: notTable, table: notTable }
            : { kind: 'table', quads: notGraph, text: async (ext) => written(a[ext]), table: async () => parseSparqlJson(written(a.srj)) };
          try {
            outcome = await judge.judgeQuery(t, actual);
          } catch (e) {
            outcome = { status: 'fail', message: e instanceof Error ? e.message : String(e) };
          }
        }
        const isKnown = known.has(t.id);
        if (outcome.status === 'pass') { if (isKnown) tally.knownPassed++; else tally.pass++; }
        else if (isKnown) tally.known++;
        else { tally.fail++; failures.push(`${t.id}: ${outcome.message.split('\n')[0].slice(0, 200)}`); }
      }
      log(`Chromium: ${ua.replace(/^.*(Chrome\/\S+).*$/, '$1')}`);
      log(`chromium sparql-query: ${tally.pass + tally.knownPassed} passed of ${answers.length}, ${tally.fail} failed, ${tally.known} known failures` +
        (tally.knownPassed ? ` (${tally.knownPassed} known failures pass here)` : ''));
      for (const f of failures.slice(0, 15)) log(`FAILED ${f}`);
      if (answers.length !== tests.length) throw new Error(`ran ${answers.length} of ${tests.length} tests`);
      if (tally.fail > 0) throw new Error(`${tally.fail} W3C query tests failed in Chromium`);
    } finally {
      await vite.close();
    }
  },
};
