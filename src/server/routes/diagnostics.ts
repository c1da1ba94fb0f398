/**
 * Diagnostics under api_base_url (http-api.md §4.1): server stats, ledger existence (nameservice
 * only), ledger info with its three query parameters, and the ledger list.
 */
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { parseCacheBytes } from '../../core/query/jsonld/service.js';
import type { Db } from '../../core/ledger/db.js';
import { ledgerInfo } from '../../core/ledger/info.js';
import { normalizeLedgerId } from '../../core/ledger/ledger-id.js';
import { isRootPolicy, policyView } from '../../core/policy/index.js';
import type { NsRecord } from '../../core/store.js';
import { boolQuery, pathLedger } from '../http-util.js';
import type { Registrar, ServerContext } from '../server-context.js';
import { route } from '../swagger.js';
import { memoryGuard } from '../memory-guard.js';
import { canReadLedger, showPolicyInputs } from '../auth/index.js';

/** One entry of `GET /ledgers` (the spec leaves the shape open; docs/http.md fixes it). */
export interface LedgerListEntry {
  ledger: string;
  name: string;
  branch: string;
  t: number;
  commit_id: string | null;
  index_t: number;
  index_id: string | null;
}

/** The `/ledgers` entry of a nameservice record. */
export function ledgerListEntry(r: NsRecord): LedgerListEntry {
  return {
    ledger: r.ledger_id, name: r.name, branch: r.branch, t: r.commit_t,
    commit_id: r.commit_head_id, index_t: r.index_t, index_id: r.index_head_id,
  };
}

/** Ledgers currently loaded in memory by the Connection. */
function cachedLedgers(ctx: ServerContext): number {
  return ctx.conn.loadedCount;
}

/** Registers /stats, /exists, /info and /ledgers. */
export const diagnosticsRoutes: Registrar = (api, ctx) => {
  route(api, ctx.table, {
    method: 'GET', path: '/stats', tag: 'diagnostics', summary: 'Server statistics',
    responses: { 200: 'Stats {uptime_secs, storage_type, indexing_enabled, cached_ledgers, version}' },
  }, (c) => c.json({
    uptime_secs: Math.floor((Date.now() - ctx.startedAt) / 1000),
    storage_type: ctx.storageType,
    indexing_enabled: ctx.config.indexingEnabled,
    cached_ledgers: cachedLedgers(ctx),
    version: ctx.version,
  }));

  route(api, ctx.table, {
    method: 'GET', path: '/stats/memory', tag: 'diagnostics', summary: 'Where memory goes: caches against their budgets, per-ledger structures, process totals',
    responses: { 200: 'Memory {limits, process, heap_spaces, caches, leaf_cache, ledgers} (bytes; see docs/memory.md)' },
  }, async (c) => {
    const m = process.memoryUsage();
    const report = await ctx.conn.memoryReport();
    const cfg = ctx.config;
    const heapSpaces: Record<string, { used: number; size: number }> = {};
    for (const sp of getHeapSpaceStatistics()) heapSpaces[sp.space_name] = { used: sp.space_used_size, size: sp.space_size };
    return c.json({
      // The configured total and what was derived from it (docs/memory.md "Sizing"); heap_size_limit
      // is V8's real limit: the launcher's, or the node flags the process was started with.
      limits: {
        memory_limit: cfg.memoryLimitBytes, heap_size_limit: getHeapStatistics().heap_size_limit,
        leaf_cache: cfg.leafCacheBytes, term_cache_per_ledger: cfg.termCacheBytes, commit_cache: cfg.commitCacheBytes,
        parse_cache: cfg.parseCacheBytes, idempotency_cache: cfg.idempotencyCacheBytes, loaded_ledgers: cfg.maxLoadedLedgers,
      },
      loaded_ledgers: { count: ctx.conn.loadedCount, unloaded_since_start: ctx.conn.unloadedCount },
      process: { rss: m.rss, heap_used: m.heapUsed, heap_total: m.heapTotal, external: m.external, array_buffers: m.arrayBuffers },
      heap_spaces: heapSpaces,
      caches: {
        parse_cache_bytes: parseCacheBytes(), parse_cache_limit_bytes: ctx.config.parseCacheBytes,
        idempotency_cache_limit_bytes: ctx.config.idempotencyCacheBytes, events_queue_limit_bytes_per_subscriber: ctx.config.eventsQueueBytes,
        queries_executing: ctx.queryGate.active, queries_queued: ctx.queryGate.queued,
        memory_pressure: memoryGuard.pressure, queries_stopped_for_memory: memoryGuard.stopped, memory_pressure_episodes: memoryGuard.episodes,
      },
      ...report,
    });
  });

  route(api, ctx.table, {
    method: 'GET', path: '/exists/{ledger}', tag: 'diagnostics', summary: 'Whether a ledger exists (nameservice only)',
    responses: { 200: 'Exists {ledger, exists}', 400: 'Invalid ledger id' },
  }, async (c) => {
    const id = normalizeLedgerId(pathLedger(c));
    return c.json({ ledger: id, exists: await ctx.conn.exists(id) });
  });

  route(api, ctx.table, {
    method: 'GET', path: '/info/{ledger}', tag: 'diagnostics', summary: 'Ledger info: heads and statistics',
    query: [
      { name: 'realtime_property_details', type: 'boolean', description: 'Class property lists and reference edges (default true; false is lighter)' },
      { name: 'include_property_datatypes', type: 'boolean', description: 'Per-property datatype counts (default true)' },
      { name: 'include_property_estimates', type: 'boolean', description: 'ndv-values, ndv-subjects and selectivity from the last index (default false)' },
    ],
    responses: { 200: 'Ledger info (§2.7)', 400: 'Invalid ledger id or parameter', 404: 'Ledger not found' },
  }, async (c) => {
    const opts = {
      realtimePropertyDetails: boolQuery(c, 'realtime_property_details', true),
      includePropertyDatatypes: boolQuery(c, 'include_property_datatypes', true),
      includePropertyEstimates: boolQuery(c, 'include_property_estimates', false),
    };
    const id = normalizeLedgerId(pathLedger(c));
    // Policy (policy.md §5), resolved as for /show: a restricted caller's counts are taken from
    // the facts it may view, never from the ledger's unrestricted statistics.
    const inputs = showPolicyInputs(c);
    if (isRootPolicy(inputs)) return c.json(await ctx.conn.info(id, opts));
    const restrict = async (db: Db) => (await policyView(ctx.conn, db, inputs)).view;
    return c.json(await ledgerInfo(await ctx.conn.ledger(id), opts, restrict));
  });

  route(api, ctx.table, {
    method: 'GET', path: '/ledgers', tag: 'diagnostics', summary: 'Every live ledger',
    responses: { 200: 'Array of {ledger, name, branch, t, commit_id, index_t, index_id}, sorted by ledger' },
  }, async (c) => {
    // A token lists only the ledgers it may read (no existence leak, auth.md §6).
    const records = (await ctx.conn.list()).filter((r) => canReadLedger(c, r.ledger_id));
    records.sort((a, b) => (a.ledger_id < b.ledger_id ? -1 : a.ledger_id > b.ledger_id ? 1 : 0));
    return c.json(records.map(ledgerListEntry));
  });
};
