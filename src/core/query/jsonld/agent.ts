/**
 * Agent JSON (`Accept: application/vnd.ledgraph.agent+json`, `Ledgraph-Max-Bytes`): the JSON-LD
 * result in an envelope an LLM agent can use without guessing — the prefixes its compact IRIs
 * use, row counts, and a hard byte budget. Rows that do not fit are dropped from the end and the
 * envelope says so, with the offset to continue from; the budget always holds.
 *
 * `{"@context": {...}?, "result": R, "rows": n, "returned": k, "truncated": bool, "next_offset"?: k, "bytes": b}`
 */
const enc = new TextEncoder();
const size = (v: unknown): number => enc.encode(JSON.stringify(v)).length;

/** Default budget when the caller gives none (64 KiB). */
export const AGENT_DEFAULT_MAX_BYTES = 65_536;

export interface AgentEnvelope {
  '@context'?: Record<string, string>;
  result: unknown;
  rows?: number;
  returned?: number;
  truncated: boolean;
  next_offset?: number;
  bytes: number;
}

/**
 * Wrap `result` (a select array, a selectOne value, a boolean, or a construct document) into an
 * agent envelope of at most `maxBytes` UTF-8 bytes. `context` is the query's effective context;
 * its string-valued (prefix) entries are included so compact IRIs can be expanded.
 */
export function agentJson(result: unknown, context: unknown, maxBytes = AGENT_DEFAULT_MAX_BYTES, offset = 0): AgentEnvelope {
  const prefixes = prefixesOf(context);
  const env: AgentEnvelope = { ...(prefixes ? { '@context': prefixes } : {}), result, truncated: false, bytes: 0 };
  const doc = isGraphDoc(result) ? result : undefined;
  const rows = Array.isArray(result) ? result : doc ? doc['@graph'] : undefined;
  if (rows) { env.rows = rows.length; env.returned = rows.length; }
  if (fits(env, maxBytes)) return env;
  if (!rows) {
    // A single value that does not fit: say so rather than send a broken fragment.
    const cut: AgentEnvelope = { ...(prefixes && fitsWith(prefixes, maxBytes) ? { '@context': prefixes } : {}), result: null, truncated: true, bytes: 0 };
    return finish(cut, maxBytes);
  }
  // The most rows that fit, with the prefixes if that costs no rows, else without them.
  const wrap = (k: number, ctx: boolean): AgentEnvelope => {
    const part = rows.slice(0, k);
    const r = doc ? { ...doc, '@graph': part } : part;
    const cut = k < rows.length;
    return { ...(ctx && prefixes ? { '@context': prefixes } : {}), result: r, rows: rows.length, returned: k, truncated: cut, ...(cut ? { next_offset: offset + k } : {}), bytes: 0 };
  };
  const most = (ctx: boolean): AgentEnvelope | undefined => {
    // Sum row sizes against the budget, then confirm on the real text.
    let budget = maxBytes - size(wrap(0, ctx));
    let k = 0;
    while (k < rows.length) {
      const cost = size(rows[k]) + 1;
      if (cost > budget) break;
      budget -= cost;
      k++;
    }
    let e = wrap(k, ctx);
    while (k > 0 && !fits(e, maxBytes)) e = wrap(--k, ctx);
    return fits(e, maxBytes) ? e : undefined;
  };
  const withCtx = prefixes ? most(true) : undefined;
  const without = most(false);
  if (withCtx && (!without || withCtx.returned! >= without.returned!)) return withCtx;
  return finish(without ?? { result: null, truncated: true, bytes: 0 }, maxBytes);
}

function finish(env: AgentEnvelope, maxBytes: number): AgentEnvelope {
  fits(env, maxBytes);
  return env;
}

/** Set env.bytes to its own serialised size (which includes the digits of `bytes`) and test it. */
function fits(env: AgentEnvelope, maxBytes: number): boolean {
  env.bytes = 0;
  let n = size(env);
  for (let i = 0; i < 3; i++) {
    env.bytes = n;
    const m = size(env);
    if (m === n) break;
    n = m;
  }
  return env.bytes <= maxBytes;
}

function fitsWith(prefixes: Record<string, string>, maxBytes: number): boolean {
  return size({ '@context': prefixes, result: null, truncated: true, bytes: maxBytes }) <= maxBytes;
}

function prefixesOf(context: unknown): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const c of Array.isArray(context) ? context : [context]) {
    if (typeof c !== 'object' || c === null) continue;
    for (const [k, v] of Object.entries(c as Record<string, unknown>)) if (typeof v === 'string' && !k.startsWith('@')) out[k] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function isGraphDoc(v: unknown): v is Record<string, unknown> & { '@graph': unknown[] } {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Array.isArray((v as Record<string, unknown>)['@graph']);
}
