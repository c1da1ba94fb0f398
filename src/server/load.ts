/**
 * SPARQL UPDATE `LOAD <url> [INTO GRAPH <g>]`, behind the same allow-list as SERVICE
 * (`--federation-allow`): before the update is staged, each LOAD is fetched (Turtle, N-Triples,
 * TriG, N-Quads, JSON-LD or RDF/XML by the answer's Content-Type), parsed, and replaced by the
 * INSERT DATA of its triples: into `<g>`, or as the document places them. The download obeys the
 * body limit and the query timeout. LOAD SILENT drops an operation that fails.
 */
import { badRequest, isLedgraphError, LedgraphError } from '../core/errors.js';
import { checkAllowed, type FederationOptions } from '../core/query/federation/service.js';
import { blankNode, type BlankNode, type Term } from '../core/rdf/terms.js';
import { parseJsonLdTxn } from '../core/transact/parse-jsonld.js';
import { parseRdfTxn, type RdfContentType } from '../core/transact/parse-rdf.js';
import type { TxnQuad, TxnRequest, UpdateOperation } from '../core/transact/txn-request.js';
import { parseJsonWithinLimits } from '../core/json-depth.js';
import { parseRdfXmlTxn, RDF_XML } from './rdfxml.js';

const ACCEPT = 'text/turtle, application/n-triples;q=0.9, application/trig;q=0.9, application/n-quads;q=0.9, application/ld+json;q=0.8, application/rdf+xml;q=0.8';
const RDF_TYPES: Record<string, RdfContentType> = {
  'text/turtle': 'text/turtle', 'application/x-turtle': 'text/turtle', 'application/n-triples': 'application/n-triples',
  'text/plain': 'application/n-triples', 'application/trig': 'application/trig', 'application/n-quads': 'application/n-quads',
};

/** Limits of one LOAD download. */
export interface LoadLimits { maxBytes: number; timeoutMs: number; signal?: AbortSignal }

/** The request with every LOAD replaced by the data it names (or dropped, for a failed LOAD SILENT). */
export async function resolveLoads(req: TxnRequest, fed: FederationOptions | undefined, limits: LoadLimits): Promise<TxnRequest> {
  if (req.kind !== 'sparql-update' || !req.ops.some((op) => op.type === 'load')) return req;
  const ops: UpdateOperation[] = [];
  let n = 0;
  for (const op of req.ops) {
    if (op.type !== 'load') { ops.push(op); continue; }
    try {
      const quads = await loadQuads(op.source.value, fed, limits, `load${n++}_`);
      ops.push({ type: 'insertData', quads: op.into ? quads.map((q) => ({ ...q, graph: op.into! })) : quads });
    } catch (e) {
      if (!op.silent || limits.signal?.aborted) throw e;
    }
  }
  return { ...req, ops };
}

/** Fetch and parse one document; its blank nodes get `prefix` so two LOADs never share one. */
async function loadQuads(url: string, fed: FederationOptions | undefined, limits: LoadLimits, prefix: string): Promise<TxnQuad[]> {
  checkAllowed(url, fed, 'LOAD');
  const fail = (detail: string) => new LedgraphError(502, 'err:db/BadGateway', `LOAD <${url}> failed: ${detail}`);
  const signals = [AbortSignal.timeout(limits.timeoutMs), ...(limits.signal ? [limits.signal] : [])];
  let res: Response;
  try {
    res = await (fed!.fetch ?? fetch)(url, { headers: { Accept: ACCEPT }, signal: AbortSignal.any(signals) });
  } catch (e) {
    throw fail(e instanceof Error ? e.message : String(e));
  }
  if (res.status !== 200) { await res.body?.cancel(); throw fail(`status ${res.status}`); }
  const declared = Number(res.headers.get('content-length'));
  if (declared > limits.maxBytes) { await res.body?.cancel(); throw fail(`the document is larger than the body limit (${limits.maxBytes} bytes)`); }
  const text = await readText(res, limits.maxBytes, fail);
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  let parsed: TxnRequest;
  try {
    if (type === RDF_XML) parsed = await parseRdfXmlTxn(text, 'insert', url);
    else if (type === 'application/ld+json' || type === 'application/json') parsed = await parseJsonLdTxn(parseJsonWithinLimits(text, 'the loaded document'), 'insert', { base: url });
    else if (RDF_TYPES[type]) parsed = parseRdfTxn(text, RDF_TYPES[type], 'insert', url);
    else throw badRequest(`LOAD <${url}>: unsupported Content-Type ${type || '(none)'}; expected Turtle, N-Triples, TriG, N-Quads, JSON-LD or RDF/XML`);
  } catch (e) {
    if (isLedgraphError(e) && e.message.startsWith('nothing to write')) return [];
    if (isLedgraphError(e) && e.message.startsWith('LOAD <')) throw e;
    throw badRequest(`LOAD <${url}>: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (parsed.kind !== 'insert') return [];
  const labels = new Map<string, BlankNode>();
  const relabel = <T extends Term>(t: T): T => {
    if (t.termType !== 'BlankNode') return t;
    let b = labels.get(t.value);
    if (!b) labels.set(t.value, b = blankNode(prefix + t.value));
    return b as T;
  };
  return parsed.quads.map((q) => ({ ...q, subject: relabel(q.subject), object: relabel(q.object) }));
}

/** The body as text, refusing more than `max` bytes. */
async function readText(res: Response, max: number, fail: (d: string) => Error): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const dec = new TextDecoder('utf-8', { fatal: true });
  let size = 0;
  let out = '';
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      size += r.value.byteLength;
      if (size > max) { await reader.cancel(); throw fail(`the document is larger than the body limit (${max} bytes)`); }
      out += dec.decode(r.value, { stream: true });
    }
    return out + dec.decode();
  } catch (e) {
    if (e instanceof TypeError) throw fail('the document is not valid UTF-8');
    throw e;
  }
}
