/**
 * The HTTP client side of the branch endpoints (branches.md §§2–8), shared by the `ledgraph branch`,
 * `merge`, `rebase` and `revert` commands and by push/pull of a branch the other side lacks.
 */
import { remoteError, type RemoteTarget } from './remote-client.js';

function auth(r: RemoteTarget): Record<string, string> {
  return r.token ? { Authorization: `Bearer ${r.token}` } : {};
}

/** POST a branch command; the parsed success body, else an error naming remote, ledger and status. */
export async function branchCommand(r: RemoteTarget, path: string, body: Record<string, unknown>, what: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${r.api}${path}`, { method: 'POST', headers: { ...auth(r), 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw await remoteError(r, String(body.ledger), res, what);
  return (await res.json()) as Record<string, unknown>;
}

/** GET a branch read endpoint (list, previews). */
export async function branchRead(r: RemoteTarget, path: string, ledger: string, what: string): Promise<unknown> {
  const res = await fetch(`${r.api}${path}`, { headers: auth(r) });
  if (!res.ok) throw await remoteError(r, ledger, res, what);
  return res.json();
}

/** Where a remote branch forked: its source branch and the common ancestor with it (null for a root or unknown branch). */
export async function remoteForkPoint(r: RemoteTarget, name: string, branch: string): Promise<{ source: string; commitId: string } | null> {
  const list = await branchRead(r, `/branch/${encodeURIComponent(name)}`, name, 'listing branches of').catch(() => null) as { branch: string; source?: string }[] | null;
  const entry = list?.find((b) => b.branch === branch);
  if (!entry?.source) return null;
  const q = new URLSearchParams({ source: branch, target: entry.source, include_conflicts: 'false', max_commits: '0' });
  const p = await branchRead(r, `/merge-preview/${encodeURIComponent(name)}?${q}`, `${name}:${branch}`, 'previewing') as { ancestor: { commit_id: string } };
  return { source: entry.source, commitId: p.ancestor.commit_id };
}
