/**
 * A SELECT streamed on the browser peer as the records of `POST /stream/query` (http-api.md §2.12,
 * §4.6): `head`, `row`…, then exactly one `end` (rows, t, fuel, time) or `error` ({code, message},
 * rows), as NDJSON text in chunks of whole lines. What the server refuses before its first byte
 * (ASK, CONSTRUCT, DESCRIBE, selectOne, crawls, history) is thrown before the first chunk here. Rows
 * are pulled from the engine only as the consumer asks for the next chunk, so memory stays flat.
 * No heartbeats: the page sees the worker's progress through the rows themselves.
 */
import { badRequest } from '../core/errors.js';
import type { Connection } from '../core/ledger/connection.js';
import { streamJsonLdSelect } from '../core/query/jsonld/service.js';
import { formatMs, streamErrorCode } from '../core/query/results/ndjson.js';
import { bindingToSparqlJson } from '../core/query/results/sparql-json.js';
import type { Binding } from '../core/query/results/types.js';
import { runSparql } from '../core/query/sparql-service.js';
import type { LanguageQuery } from './languages.js';

/** A chunk is handed over at this many characters, or when this long has passed since the last one. */
const CHUNK_CHARS = 32 * 1024;
const CHUNK_MS = 50;

interface Source { vars: string[]; rows: AsyncIterable<Binding>; ledgers: Record<string, number>; fuel(): number | undefined }

async function start(conn: Connection, ledger: string, q: LanguageQuery, signal: AbortSignal): Promise<Source> {
  if (q.lang === 'sparql') {
    let fuel: number | undefined;
    const r = await runSparql(conn, q.text, { ledger, signal, onFinish: (s) => { fuel = s.fuel; } });
    if (r.result.type !== 'bindings') throw badRequest('streaming supports SELECT queries only; use query()');
    return { vars: r.result.variables, rows: r.result.rows, ledgers: r.ledgers, fuel: () => fuel };
  }
  if (q.lang === 'jsonld') {
    const s = await streamJsonLdSelect(conn, q.body, { ledger, signal });
    return { vars: s.vars, rows: s.rows, ledgers: s.ledgers, fuel: () => s.fuel() };
  }
  throw badRequest(`${q.lang === 'graphql' ? 'GraphQL' : 'Cypher'} does not stream (the server streams SPARQL SELECT and JSON-LD select only); use query()`);
}

/**
 * Start `q` against `ledger` (with its time specifier) and yield its NDJSON records. A failure
 * before the first row throws; after it, it becomes the `error` record. When `signal` aborts, the
 * engine stops and nothing more is yielded (there is nobody to tell).
 */
export async function* streamRecords(conn: Connection, ledger: string, q: LanguageQuery, signal: AbortSignal): AsyncGenerator<string> {
  const started = performance.now();
  const src = await start(conn, ledger, q, signal);
  let buf = JSON.stringify({ type: 'head', vars: src.vars }) + '\n';
  let rows = 0;
  let last = performance.now();
  const it = src.rows[Symbol.asyncIterator]();
  let exhausted = false;
  try {
    for (;;) {
      const r = await it.next();
      if (signal.aborted) return;
      if (r.done) { exhausted = true; break; }
      buf += '{"type":"row","row":' + JSON.stringify(bindingToSparqlJson(r.value, src.vars)) + '}\n';
      rows++;
      if (buf.length >= CHUNK_CHARS || performance.now() - last >= CHUNK_MS) {
        const out = buf;
        buf = '';
        yield out;
        last = performance.now();
        if (signal.aborted) return;
      }
    }
  } catch (e) {
    exhausted = true;
    if (signal.aborted) return;
    const code = streamErrorCode(e);
    yield buf + JSON.stringify({ type: 'error', error: { code, message: e instanceof Error ? e.message : String(e) }, rows }) + '\n';
    return;
  } finally {
    // Cancelled or abandoned by the consumer: end the engine's scans too.
    if (!exhausted) void it.return?.()?.catch(() => {});
  }
  const ts = Object.values(src.ledgers);
  const end: Record<string, unknown> = { type: 'end', rows };
  if (ts.length) end.t = Math.max(...ts);
  if (ts.length > 1) end.ledgers = src.ledgers;
  const fuel = src.fuel();
  if (fuel !== undefined) end.fuel = fuel;
  end.time = formatMs(performance.now() - started);
  yield buf + JSON.stringify(end) + '\n';
}
