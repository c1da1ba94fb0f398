/**
 * The wire text of the nameservice event stream (replication.md §10): one Server-Sent Event per
 * `ns-record` / `ns-retracted`, and the `: keep-alive` comment.
 */
import type { NsRecord } from '../../core/store.js';

/** The kinds of resource the stream reports. Graph sources do not exist yet; their ids never match. */
export type ResourceKind = 'ledger' | 'graph-source';

/** One SSE frame: `event:`, `id:`, one `data:` line (JSON has no raw newlines), blank line. */
export function sseFrame(event: string, id: string, data: unknown): string {
  return `event: ${event}\nid: ${id}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The keep-alive comment; parsers ignore lines starting with `:`. */
export const KEEP_ALIVE = ': keep-alive\n\n';

/** The record as events carry it: the §5 fields, never `serving` (that belongs to `GET /storage/ns`). */
function eventRecord(r: NsRecord): NsRecord {
  const out: NsRecord = {
    ledger_id: r.ledger_id, name: r.name, branch: r.branch,
    commit_head_id: r.commit_head_id, commit_t: r.commit_t,
    index_head_id: r.index_head_id, index_t: r.index_t,
    default_context: r.default_context, config_id: r.config_id, retracted: r.retracted,
  };
  if (r.source_branch !== undefined) out.source_branch = r.source_branch;
  if (r.branches) out.branches = r.branches;
  return out;
}

/** `ns-record` of a ledger: id `ledger:<id>:<commit_t>:<index_t>`, data with the full current record. */
export function ledgerRecordEvent(r: NsRecord, now = new Date()): string {
  return sseFrame('ns-record', `ledger:${r.ledger_id}:${r.commit_t}:${r.index_t}`, {
    action: 'ns-record', kind: 'ledger', resource_id: r.ledger_id, record: eventRecord(r), emitted_at: now.toISOString(),
  });
}

/** `ns-retracted`: id `<kind>:<id>:retracted:<epoch ms>`. */
export function retractedEvent(kind: ResourceKind, id: string, now = new Date()): string {
  return sseFrame('ns-retracted', `${kind}:${id}:retracted:${now.getTime()}`, {
    action: 'ns-retracted', kind, resource_id: id, emitted_at: now.toISOString(),
  });
}
