/**
 * SPARQL against a connection: parse, resolve the dataset (query FROM / FROM NAMED, or the
 * protocol's default-graph-uri / named-graph-uri, which override it), execute. Parsed queries
 * are kept in a small LRU keyed by text and base IRI, since clients repeat the same query text.
 */
import type { Connection } from '../ledger/connection.js';
import type { TimeSpec } from '../ledger/ledger-id.js';
import { executeQuery, parseSparql, type QueryContext } from './engine.js';
import { parseSparqlSliced } from './sparql/parse.js';
import { bindShape, sameAlgebra, sparqlShape } from './sparql/shape.js';
import { ByteLru } from '../util/byte-lru.js';
import { resolveDataset, type DatasetOptions, type DatasetSpec } from './dataset.js';
import type { QueryResult } from './results/types.js';
import type { Query } from './algebra/algebra.js';
import { isRootPolicy, restrictDataset, type PolicyInputs, type PolicyStats } from '../policy/index.js';

export interface SparqlRequest {
  /** Ledger of a ledger-scoped call. */
  ledger?: string | undefined;
  /** Protocol dataset (overrides the query's FROM / FROM NAMED when either is given). */
  defaultGraphUris?: string[] | undefined;
  namedGraphUris?: string[] | undefined;
  /** Time for ledger references without their own specifier. */
  at?: TimeSpec | undefined;
  maxFuel?: number | undefined;
  timeoutMs?: number | undefined;
  /** A deadline polled without a timer (see QueryContext.deadline). */
  deadline?: number | undefined;
  signal?: AbortSignal | undefined;
  onFinish?: QueryContext['onFinish'];
  baseIri?: string | undefined;
  /** Policy inputs (policy.md §3); absent or empty = the root view. */
  policy?: PolicyInputs | undefined;
}

export interface SparqlResponse { query: Query; result: QueryResult; ledgers: Record<string, number>; policy: () => PolicyStats }

const NO_POLICY_STATS = (): PolicyStats => ({ executed: 0, allowed: 0 });

/** Parsed queries by base IRI and text, least recently used first. */
const parsed = new Map<string, Query>();
/**
 * At most this many entries and this many characters of query text (the algebra is of the order of
 * its text): enough for an application's queries times the values it fills in (a point query on a
 * few thousand subjects), at a few MB.
 */
const PARSED_MAX = 8192;
const PARSED_MAX_TOTAL_CHARS = 2 * 1024 * 1024;
let parsedChars = 0;
/** Longer texts are parsed every time (they are rarely repeated and would pin memory). */
const PARSED_MAX_CHARS = 16 * 1024;

/**
 * Parse SPARQL query text, reusing the algebra of an identical earlier text and base. The algebra
 * is never modified after parsing (planning rewrites into new objects), so one Query can serve
 * every run; syntax errors are not remembered.
 */
export function parseSparqlCached(text: string, baseIri?: string): Query {
  if (text.length > PARSED_MAX_CHARS) return parseSparql(text, baseIri !== undefined ? { baseIri } : {});
  const key = baseIri === undefined ? text : `${baseIri}\u0000${text}`;
  let q = parsed.get(key);
  if (q) {
    parsed.delete(key);
  } else {
    q = parseByShape(text, baseIri);
    parsedChars += key.length;
    while (parsed.size >= PARSED_MAX || parsedChars > PARSED_MAX_TOTAL_CHARS) {
      const oldest = parsed.keys().next().value!;
      parsed.delete(oldest);
      parsedChars -= oldest.length;
    }
  }
  parsed.set(key, q);
  return q;
}

/**
 * Parsed shapes (sparql/shape.ts: the text with its absolute IRIs lifted out) by base IRI and
 * shape text; SEEN marks a shape met once, null one whose placeholder parse differs from its text's own parse.
 * Charged four bytes per character of the shape (its algebra is of the order of its text).
 */
const shapes = new ByteLru<string, Query | null | typeof SEEN>(1024 * 1024);
const SEEN = 'seen';
let shapeHits = 0;

/** Texts parsed through an earlier text's shape in this process (for tests). */
export function sparqlShapeHits(): number { return shapeHits; }

/**
 * Parse text through its shape: the algebra of an earlier text of the same shape with this text's
 * IRIs put in (BSBM-style workloads vary a query's IRIs on every request). The second text of a
 * shape is parsed twice, as it is and with placeholders, and the shape is used only when both agree.
 */
function parseByShape(text: string, baseIri: string | undefined): Query {
  const opts = baseIri !== undefined ? { baseIri } : {};
  const shape = sparqlShape(text);
  if (!shape) return parseSparql(text, opts);
  const key = baseIri === undefined ? shape.text : `${baseIri}\u0000${shape.text}`;
  const template = shapes.get(key);
  if (template && template !== SEEN) {
    shapeHits++;
    return bindShape(template, shape.iris);
  }
  const q = parseSparql(text, opts);
  if (template === undefined) {
    // Seen once: a shape is parsed with placeholders only when it comes again (one-off texts pay one parse).
    shapes.set(key, SEEN, key.length * 2);
  } else if (template === SEEN) {
    let t: Query | null = null;
    try { t = parseSparql(shape.text, opts); } catch { /* a shape that does not parse is never used */ }
    shapes.set(key, t && sameAlgebra(bindShape(t, shape.iris), q) ? t : null, key.length * 4);
  }
  return q;
}

/** Parse and run SPARQL query text against the connection. */
export async function runSparql(conn: Connection, text: string, req: SparqlRequest = {}): Promise<SparqlResponse> {
  // A long text is parsed in slices (and never cached): docs/isolation.md.
  const query = text.length > PARSED_MAX_CHARS ? await parseSparqlSliced(text, req.baseIri !== undefined ? { baseIri: req.baseIri } : {}) : parseSparqlCached(text, req.baseIri);
  const protocol = (req.defaultGraphUris?.length ?? 0) + (req.namedGraphUris?.length ?? 0) > 0;
  const spec: DatasetSpec = protocol
    ? { defaultGraphs: req.defaultGraphUris ?? [], namedGraphs: req.namedGraphUris ?? [] }
    : query.dataset
      ? { defaultGraphs: query.dataset.defaultGraphs.map((g) => g.value), namedGraphs: query.dataset.namedGraphs.map((g) => g.value) }
      : {};
  const opts: DatasetOptions = {};
  if (req.ledger !== undefined) opts.defaultLedger = req.ledger;
  if (req.at) opts.at = req.at;
  const resolved = await resolveDataset(conn, spec, opts);
  // Policy filters inside the scans of the dataset's view (policy.md §5).
  const { ds, stats } = isRootPolicy(req.policy) ? { ds: resolved, stats: NO_POLICY_STATS } : await restrictDataset(conn, resolved, req.policy);
  const result = await executeQuery(query.dataset ? { ...query, dataset: undefined } as Query : query, {
    view: ds.view, defaultGraphs: ds.defaultGraphs, namedGraphs: ds.namedGraphs, resolveGraph: ds.resolveGraph,
    maxFuel: req.maxFuel, timeoutMs: req.timeoutMs, deadline: req.deadline, signal: req.signal, onFinish: req.onFinish, baseIri: req.baseIri,
    ...(conn.federation ? { federation: conn.federation } : {}),
  });
  return { query, result, ledgers: ds.ledgers, policy: stats };
}
