/**
 * The top level of a JSON-LD query body (jsonld-query.md §2.1): the effective `@context`
 * (the query's own, else the ledger default), the query form, the dataset keys and `opts`.
 * Unknown top-level keys are ignored (decided).
 */
import { ByteLru } from '../../util/byte-lru.js';
import { badRequest } from '../../errors.js';
import { ActiveContext, COMPACT_CACHE_LIMIT, COMPACT_ENTRY_BYTES } from '../../rdf/jsonld-context.js';
import { ID_CELL_SLOT_BYTES, ID_CELL_SLOTS, LONG_CELL_CHARS } from './id-cells.js';
import { type QueryObject, readQueryObject } from './query.js';
import { type QueryOpts, parseQueryOpts } from './opts.js';
import { strictContext } from './strict-iri.js';
import { isObject, pick } from './util.js';
import { excerpt, quote } from '../../excerpt.js';
import { checkJsonValueDepth } from '../../json-depth.js';
import { inputLimits, shapeLimitError } from '../../limits.js';

export type QueryForm = 'select' | 'selectOne' | 'selectDistinct' | 'construct' | 'ask';

/** The dataset keys, from the body or (as the spec allows) from `opts`. */
export interface DatasetKeys { from?: unknown; fromNamed?: unknown; to?: unknown }

export interface ParsedQuery {
  form: QueryForm;
  ctx: ActiveContext;
  /** The effective context as JSON (a construct result's `@context`); null when none. */
  contextJson: unknown;
  /** Select-shaped queries (and the modifiers of construct / ask). */
  query: QueryObject;
  /** `construct` template (node object, array) or `true`. */
  template?: unknown;
  dataset: DatasetKeys;
  opts: QueryOpts;
}

const FORM_KEYS: [QueryForm, string[]][] = [
  ['select', ['select']], ['selectOne', ['selectOne', 'select-one']], ['selectDistinct', ['selectDistinct', 'select-distinct']],
  ['construct', ['construct']], ['ask', ['ask']],
];

/**
 * Processed contexts by their JSON text. Queries repeat their context (or the ledger default), and
 * an ActiveContext memoises IRI compaction, so reusing it makes shaping a result cheap.
 */
/** Default of --parse-cache-bytes: parsed JSON-LD queries and processed contexts (a third each). */
export const DEFAULT_PARSE_CACHE_BYTES = 24 * 1024 * 1024;
const contexts = new ByteLru<string, ActiveContext>(DEFAULT_PARSE_CACHE_BYTES / 3);
/**
 * Bytes a processed context is charged: its text, the parsed term table, a full compaction memo,
 * and a full cache of `json` result cells by term id (its formatter's, id-cells.ts).
 */
const contextBytes = (text: string): number => 6 * text.length + COMPACT_CACHE_LIMIT * COMPACT_ENTRY_BYTES + ID_CELL_SLOTS * ID_CELL_SLOT_BYTES + 2 * LONG_CELL_CHARS;

/** Set the byte budget of the processed-context cache. */
export function setContextCacheBytes(bytes: number): void { contexts.resize(bytes); }
/** Bytes held by the processed-context cache now. */
export function contextCacheBytes(): number { return contexts.bytes; }

/** The effective context of a body: its own `@context` (even `{}`/`null`), else the default. */
export function effectiveContext(body: Record<string, unknown>, defaultContext: unknown): { ctx: ActiveContext; json: unknown } {
  const key = '@context' in body ? '@context' : 'context' in body ? 'context' : undefined;
  const json = (key !== undefined ? body[key] : defaultContext) ?? null;
  const text = JSON.stringify(json);
  let ctx = contexts.get(text);
  if (!ctx) {
    ctx = ActiveContext.create(json);
    contexts.set(text, ctx, contextBytes(text));
  }
  return { ctx, json };
}

/** Parse a query body (already JSON-decoded). */
export function parseQuery(body: unknown, defaultContext?: unknown): ParsedQuery {
  if (!isObject(body)) throw badRequest(`a JSON-LD query must be a JSON object, got ${Array.isArray(body) ? 'an array' : excerpt(JSON.stringify(body))}`);
  checkJsonValueDepth(body, 'the JSON-LD query');
  const { ctx, json } = effectiveContext(body, defaultContext);
  const forms = FORM_KEYS.filter(([, keys]) => pick(body, ...keys) !== undefined);
  if (forms.length === 0) throw badRequest('a query needs one of select, selectOne, selectDistinct, construct or ask');
  if (forms.length > 1) throw badRequest(`a query takes exactly one of select, selectOne, selectDistinct, construct and ask (got ${forms.map((f) => f[0]).join(', ')})`);
  const form = forms[0]![0];
  const opts = parseQueryOpts(body['opts'], ctx);
  // Patterns, templates and expressions expand IRIs strictly: an undefined prefix is a 400.
  const qctx = strictContext(ctx);
  const fromOpts = isObject(body['opts']) ? body['opts'] : {};
  const dataset: DatasetKeys = {};
  const from = pick(body, 'from') ?? pick(fromOpts, 'from');
  const fromNamed = pick(body, 'fromNamed', 'from-named') ?? pick(fromOpts, 'fromNamed', 'from-named');
  const to = pick(body, 'to') ?? pick(fromOpts, 'to');
  if (from !== undefined) dataset.from = from;
  if (fromNamed !== undefined) dataset.fromNamed = fromNamed;
  if (to !== undefined) dataset.to = to;

  let query: QueryObject;
  let template: unknown;
  if (form === 'construct' || form === 'ask') {
    // Reuse the select reader for the modifiers; the select form itself is not used.
    const value = body[form];
    if (form === 'ask') {
      if (!isObject(value) && !Array.isArray(value)) throw badRequest(`ask takes the where clause (a pattern or an array of patterns), got ${quote(value)}`);
      if (body['where'] !== undefined) throw badRequest('ask takes the where clause as its value; do not also give where');
    } else {
      if (value !== true && !isObject(value) && !Array.isArray(value)) throw badRequest(`construct takes a node object, an array of node objects or true, got ${quote(value)}`);
      if (pick(body, 'groupBy', 'group-by') !== undefined) throw badRequest('groupBy is not allowed in a construct query');
      if (body['having'] !== undefined) throw badRequest('having is not allowed in a construct query');
      template = value;
    }
    query = readQueryObject({ ...body, select: '*', [form]: undefined, ...(form === 'ask' ? { where: value } : {}) }, qctx, 'query');
    if (query.where === undefined && query.values === undefined) throw badRequest(`a ${form} query needs a where clause`);
  } else {
    query = readQueryObject(body, qctx, 'query');
  }
  // The crawl nests the result one level per step, and writing it out (JSON.stringify) recurses.
  if (query.depth > inputLimits().maxJsonDepth) throw shapeLimitError('maxJsonDepth', `a crawl depth of ${query.depth} nests the result deeper than allowed`);
  const out: ParsedQuery = { form, ctx: qctx, contextJson: json, query, dataset, opts };
  if (template !== undefined) out.template = template;
  return out;
}

/** True when the body is a history query (it has `to`, in the body or in `opts`). */
export function isHistoryBody(body: unknown): boolean {
  if (!isObject(body)) return false;
  if (body['to'] !== undefined) return true;
  const o = body['opts'];
  return isObject(o) && o['to'] !== undefined;
}
