/**
 * Streaming SELECT results: `POST /stream/query/<ledger>` answers NDJSON records (http-api.md §2.12:
 * `head`, `row`…, `heartbeat`, then exactly one `end` or `error`); rows are handed over as they
 * arrive, with the fuel and time the server reports. A stream without a terminal record failed.
 */
import { ApiError, call, ledgerPath } from './api.js';
import { termText, type ResultSet } from './results.js';

/** Progress of a stream: rows so far, and the fuel/time of the last heartbeat or the end. */
export interface StreamProgress {
  /** The rows kept (at most KEEP_ROWS) and the records as raw text (at most KEEP_RAW lines). */
  set: ResultSet;
  /** Every row received, kept or not. */
  count: number;
  done: boolean; fuel?: number; time?: string; elapsedMs: number;
}

/** Rows kept for the table; later rows are counted, not kept, so an endless stream cannot fill memory. */
export const KEEP_ROWS = 1_000_000;
/** NDJSON records kept for the raw view. */
export const KEEP_RAW = 10_000;

interface SparqlTerm { type: string; value: string; datatype?: string; 'xml:lang'?: string }
type StreamRecord =
  | { type: 'head'; vars: string[] }
  | { type: 'row'; row: Record<string, SparqlTerm> }
  | { type: 'heartbeat'; t_ms: number; fuel?: number }
  | { type: 'end'; rows: number; t: number; fuel?: number; time?: string }
  | { type: 'error'; error: { code: string; message: string }; rows: number };

/**
 * Stream `text` (SPARQL SELECT or a JSON-LD query) against `target`; `onProgress` is called at
 * most every `everyMs` (longer when redrawing is slow) and once at the end. Resolves with the final progress; rejects on an
 * `error` record (its code as the error type) or a cut stream.
 */
export async function streamQuery(lang: 'sparql' | 'jsonld', target: string, text: string, signal: AbortSignal,
  onProgress: (p: StreamProgress) => void, everyMs = 200): Promise<StreamProgress> {
  const started = performance.now();
  const r = await call(`/stream/query/${ledgerPath(target)}`, {
    method: 'POST', body: text, signal,
    headers: { 'Content-Type': lang === 'sparql' ? 'application/sparql-query' : 'application/json', Accept: 'application/x-ndjson' },
  });
  const columns: string[] = [];
  const rows: string[][] = [];
  const lines: string[] = [];
  let fuel: number | undefined;
  let time: string | undefined;
  let count = 0;
  let records = 0;
  let ended = false;
  let endLine = '';
  const progress = (done: boolean): StreamProgress => {
    const more = records > lines.length ? `\n… ${records - lines.length} more records not kept${endLine ? `\n${endLine}` : ''}` : '';
    return { set: { columns, rows, raw: lines.join('\n') + more, rawKind: 'text' }, count, done, fuel, time, elapsedMs: Math.round(performance.now() - started) };
  };
  const handle = (line: string) => {
    if (!line.trim()) return;
    records++;
    const rec = JSON.parse(line) as StreamRecord;
    if (lines.length < KEEP_RAW) lines.push(line);
    else if (rec.type === 'end') endLine = line;
    if (rec.type === 'head') columns.push(...rec.vars);
    else if (rec.type === 'row') { count++; if (rows.length < KEEP_ROWS) rows.push(columns.map((c) => termText(rec.row[c]))); }
    else if (rec.type === 'heartbeat') fuel = rec.fuel ?? fuel;
    else if (rec.type === 'end') { fuel = rec.fuel ?? fuel; time = rec.time; ended = true; }
    else if (rec.type === 'error') throw new ApiError(200, rec.error.code, `${rec.error.message} (after ${rec.rows} rows)`);
  };
  const reader = r.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  // Redrawing costs time in proportion to the rows: wait at least four times the last redraw, so
  // the page stays responsive (Cancel, scrolling) however many rows arrive.
  let last = 0;
  let gap = everyMs;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
    const parts = buf.split('\n');
    buf = parts.pop()!;
    for (const line of parts) handle(line);
    if (performance.now() - last >= gap) {
      const t0 = performance.now();
      onProgress(progress(false));
      last = performance.now();
      gap = Math.max(everyMs, 4 * (last - t0));
      // Let the page handle input between chunks.
      await new Promise((ok) => setTimeout(ok, 0));
    }
  }
  handle(buf);
  if (!ended) throw new ApiError(200, 'stream cut', `the stream ended without an end record after ${count} rows`);
  const final = progress(true);
  onProgress(final);
  return final;
}
