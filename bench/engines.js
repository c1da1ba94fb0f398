/**
 * The engines the benchmarks compare, behind one small shape:
 *
 *   const e = await openEngine(name, { storageDir })
 *   await e.load(ntPath, { onProgress })   // the timed section: read the file until queryable
 *   await e.reopen()                       // ledgraph only: attach to a ledger loaded earlier
 *   await e.size()                         // triples now held (after timing)
 *   await e.query(text)                    // { kind, count }, results fully consumed
 *   await e.close()
 *
 * oxigraph: npm `oxigraph` in-memory Store, `load()` fed the file in 4 MiB chunks (sync iterable).
 * n3: N3.StreamParser piped into an N3.Store; SPARQL only when a Comunica engine is installed.
 * ledgraph: the project's engine from dist/ (built by run.js with tsc -p tsconfig.build.json) on
 * file storage. A missing build is an EngineUnavailable error, never a made-up number.
 */
import { closeSync, createReadStream, existsSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT_DIR, packageVersion, errorMessage, ledgraphVersion } from './measure.js';

export const LEDGER_ID = 'bench:main';
const CHUNK = 4 * 1024 * 1024;

export class EngineUnavailable extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** The file as a synchronous iterable of byte chunks (read as consumed, never held whole). */
function* fileChunks(path, size = CHUNK) {
  const fd = openSync(path, 'r');
  try {
    for (;;) {
      const buf = Buffer.allocUnsafe(size);
      const n = readSync(fd, buf, 0, size, null);
      if (n === 0) return;
      yield n === size ? buf : buf.subarray(0, n);
    }
  } finally {
    closeSync(fd);
  }
}

/** Read every result term (so lazily built strings are really built) and count rows/quads. */
function consumeTerm(t) {
  if (t == null) return 0;
  if (typeof t === 'string') return t.length;
  if (typeof t === 'object' && 'value' in t) return (t.value?.length ?? 0) + (t.language?.length ?? 0);
  return 0;
}
function consumeRow(row) {
  let n = 0;
  if (row == null) return n;
  if (row instanceof Map || typeof row.values === 'function' && typeof row.get === 'function') {
    for (const v of row.values()) n += consumeTerm(v);
  } else if (Array.isArray(row)) {
    for (const v of row) n += consumeTerm(v);
  } else if (typeof row === 'object') {
    if (row.termType === 'Quad' || 'subject' in row) {
      n += consumeTerm(row.subject) + consumeTerm(row.predicate) + consumeTerm(row.object) + consumeTerm(row.graph);
    } else for (const k in row) n += consumeTerm(row[k]);
  }
  return n;
}

/** One term, comparable across engines: numbers to 6 significant digits (lexical forms differ). */
function termKey(t) {
  if (t == null) return '';
  if (t.termType === 'Literal' && t.value !== '' && Number.isFinite(Number(t.value))) return Number(Number(t.value).toPrecision(6)).toString();
  return `${t.termType?.[0] ?? '?'}:${t.value}`;
}

/** One solution, comparable across engines: its bound variables as sorted name=value pairs. */
export function rowKey(row) {
  const pairs = [];
  const entries = row instanceof Map || (typeof row.entries === 'function' && typeof row.get === 'function') ? row.entries() : Object.entries(row);
  for (const [k, v] of entries) if (v != null) pairs.push(`${k}=${termKey(v)}`);
  return pairs.sort().join(' ');
}

// ---------------------------------------------------------------------------------------------
async function openOxigraph() {
  const ox = await import('oxigraph');
  let store = null;
  return {
    name: 'oxigraph',
    version: packageVersion('oxigraph'),
    description: 'oxigraph npm (WASM), in-memory Store, load() from 4 MiB file chunks',
    async load(path) {
      store = new ox.Store();
      store.load(fileChunks(path), { format: 'application/n-triples' });
    },
    async size() {
      return store.size;
    },
    async query(text, { rows = false } = {}) {
      const r = store.query(text);
      if (typeof r === 'boolean') return { kind: 'boolean', count: 1, value: r };
      let sink = 0;
      for (const row of r) sink += consumeRow(row);
      const form = queryForm(text);
      const out = { kind: form === 'CONSTRUCT' || form === 'DESCRIBE' ? 'quads' : 'bindings', count: r.length, sink };
      if (rows) out.rows = r.map(rowKey);
      return out;
    },
    async close() {
      store = null;
    },
  };
}

/** SELECT, ASK, CONSTRUCT or DESCRIBE: the first keyword after the PREFIX/BASE prologue. */
export function queryForm(text) {
  const body = text.replace(/^\s*(PREFIX|BASE)\b[^\n]*\n/gim, '');
  return /^\s*(SELECT|ASK|CONSTRUCT|DESCRIBE)\b/im.exec(body)?.[1]?.toUpperCase() ?? 'SELECT';
}

// ---------------------------------------------------------------------------------------------
/** A Comunica engine for N3.Store, if one is installed (none is by default). */
async function findComunica() {
  for (const pkg of ['@comunica/query-sparql-rdfjs', '@comunica/query-sparql']) {
    if (!existsSync(join(ROOT_DIR, 'node_modules', ...pkg.split('/')))) continue;
    try {
      const mod = await import(pkg);
      if (mod.QueryEngine) return { pkg, version: packageVersion(pkg), engine: new mod.QueryEngine() };
    } catch { /* not usable */ }
  }
  return null;
}

async function openN3() {
  const N3 = await import('n3');
  let store = null;
  let comunica;
  return {
    name: 'n3',
    version: packageVersion('n3'),
    description: 'n3 StreamParser piped into N3.Store (in-memory)',
    async load(path) {
      store = new N3.Store();
      const parser = new N3.StreamParser({ format: 'application/n-triples' });
      const input = createReadStream(path, { highWaterMark: 1 << 20 });
      await new Promise((resolve, reject) => {
        input.on('error', reject);
        parser.on('error', reject);
        parser.on('data', (quad) => store.addQuad(quad));
        parser.on('end', resolve);
        input.pipe(parser);
      });
    },
    async size() {
      return store.size;
    },
    /** null when no SPARQL engine is installed for n3. */
    async sparqlEngine() {
      if (comunica === undefined) comunica = await findComunica();
      return comunica;
    },
    async query(text) {
      const c = await this.sparqlEngine();
      if (!c) throw new EngineUnavailable('no sparql engine', 'n3 has no SPARQL engine installed (e.g. @comunica/query-sparql-rdfjs)');
      const form = queryForm(text);
      const ctx = { sources: [store] };
      if (form === 'ASK') return { kind: 'boolean', count: 1, value: await c.engine.queryBoolean(text, ctx) };
      const stream = form === 'SELECT' ? await c.engine.queryBindings(text, ctx) : await c.engine.queryQuads(text, ctx);
      let count = 0;
      let sink = 0;
      await new Promise((resolve, reject) => {
        stream.on('data', (item) => {
          count++;
          if (form === 'SELECT') for (const [, term] of item) sink += consumeTerm(term);
          else sink += consumeRow(item);
        });
        stream.on('error', reject);
        stream.on('end', resolve);
      });
      return { kind: form === 'SELECT' ? 'bindings' : 'quads', count, sink };
    },
    async close() {
      store = null;
    },
  };
}

// ---------------------------------------------------------------------------------------------
async function importDist(rel) {
  const file = join(ROOT_DIR, 'dist', rel);
  if (!existsSync(file)) throw new EngineUnavailable('ledgraph engine not built', `ledgraph engine not built: ${file} is missing (run npx tsc -p tsconfig.build.json)`);
  try {
    return await import(pathToFileURL(file).href);
  } catch (err) {
    throw new EngineUnavailable('ledgraph engine not built', `ledgraph engine not built: importing dist/${rel} failed: ${errorMessage(err)}`);
  }
}

async function openLedgraph({ storageDir }) {
  if (!storageDir) throw new Error('ledgraph needs --storage <dir>');
  const { Connection } = await importDist('core/ledger/connection.js');
  const { openFileStorage } = await importDist('storage/index.js');
  if (typeof Connection !== 'function' || typeof openFileStorage !== 'function') {
    throw new EngineUnavailable('ledgraph engine not built', 'ledgraph engine not built: Connection or openFileStorage not exported');
  }
  let querySparql = null;
  let storage = null;
  let conn = null;
  let db = null;
  let receipt = null;
  const attach = async () => {
    storage = await openFileStorage(storageDir);
    // The references hold the whole dataset in memory; a 1 GiB leaf cache (the default before
    // --leaf-cache-bytes existed) lets Ledgraph do the same, so earlier figures stay comparable.
    conn = new Connection(storage, { leafCacheBytes: 1024 * 1024 * 1024 });
  };
  const ensureQuery = async () => {
    if (!querySparql) {
      const mod = await importDist('core/query/engine.js');
      querySparql = mod.querySparql;
      if (typeof querySparql !== 'function') throw new EngineUnavailable('ledgraph engine not built', 'ledgraph engine not built: querySparql not exported from dist/core/query/engine.js');
    }
    if (!db) db = await conn.db(LEDGER_ID);
  };
  return {
    name: 'ledgraph',
    version: ledgraphVersion(),
    description: 'ledgraph bulk load on file storage',
    get receipt() {
      return receipt;
    },
    async load(path, { onProgress } = {}) {
      await attach();
      await conn.create(LEDGER_ID);
      if (typeof conn.bulkLoadNTriples === 'function') {
        receipt = await conn.bulkLoadNTriples(LEDGER_ID, path, { onProgress });
      } else if (typeof conn.bulkLoad === 'function') {
        receipt = await conn.bulkLoad(LEDGER_ID, createReadStream(path, { highWaterMark: 1 << 20 }), { format: 'n-triples', onProgress });
      } else {
        throw new EngineUnavailable('ledgraph engine not built', 'ledgraph engine not built: Connection has no bulkLoadNTriples/bulkLoad');
      }
      if (typeof conn.idle === 'function') await conn.idle();
    },
    async reopen() {
      await attach();
      if (typeof conn.exists === 'function' && !(await conn.exists(LEDGER_ID))) throw new Error(`no ledger ${LEDGER_ID} in ${storageDir}`);
      await ensureQuery();
    },
    async size() {
      if (receipt && typeof receipt.triples === 'number') return receipt.triples;
      try {
        await ensureQuery();
        const r = await this.query('SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }', { raw: true });
        return r.value ?? null;
      } catch {
        return null;
      }
    },
    async query(text, { raw = false, rows = false } = {}) {
      await ensureQuery();
      const res = await querySparql(text, { view: db });
      if (res.type === 'boolean') return { kind: 'boolean', count: 1, value: res.value ?? res.boolean };
      let count = 0;
      let sink = 0;
      let first = null;
      const keys = rows ? [] : null;
      const iter = res.type === 'quads' ? res.quads : res.rows;
      for await (const row of iter) {
        if (count === 0) first = row;
        count++;
        sink += consumeRow(row);
        if (keys) keys.push(rowKey(row));
      }
      if (keys) return { kind: res.type, count, sink, rows: keys };
      if (raw && first) {
        const v = first instanceof Map ? first.get('n') : first.n ?? first[0];
        return { kind: res.type, count, value: v && typeof v === 'object' ? Number(v.value) : Number(v) };
      }
      return { kind: res.type, count, sink };
    },
    async close() {
      try {
        if (conn && typeof conn.close === 'function') await conn.close();
      } finally {
        // Closing twice is harmless for the file stores; make sure handles are released.
        if (storage) await Promise.allSettled([storage.content?.close?.(), storage.ns?.close?.()]);
      }
      conn = null;
      storage = null;
      db = null;
    },
  };
}

export const ENGINES = ['oxigraph', 'n3', 'ledgraph'];

export async function openEngine(name, opts = {}) {
  switch (name) {
    case 'oxigraph':
      return openOxigraph();
    case 'n3':
      return openN3();
    case 'ledgraph':
      return openLedgraph(opts);
    default:
      throw new Error(`unknown engine ${name} (expected one of ${ENGINES.join(', ')})`);
  }
}
