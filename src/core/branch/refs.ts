/**
 * Commit references on a branch (branches.md §2): `t:N` (position N of the first-parent chain), a
 * lowercase hex digest prefix of at least 6 characters, or a full CID. A reference may name a commit
 * on the first-parent chain or one reachable only through a merge; callers decide which they accept.
 */
import { CID } from 'multiformats/cid';
import { digestHex } from '../commit/cid.js';
import { badRequest, notFound } from '../errors.js';
import { isCidRef, type Ledger } from '../ledger/ledger.js';
import type { CommitGraph, Node } from './dag.js';

/** A resolved reference: the commit, and whether it lies on the branch's first-parent chain. */
export interface ResolvedRef extends Node { onChain: boolean }

/** Resolve a commit reference against a branch's head (404 unknown, 400 malformed or ambiguous). */
export async function resolveRef(graph: CommitGraph, ledger: Ledger, ref: unknown): Promise<ResolvedRef> {
  if (typeof ref !== 'string' || ref === '') throw badRequest('a commit reference must be a non-empty string (t:N, a hex digest prefix or a CID)');
  const chain = await ledger.chainEntries();
  const tm = /^t:(\d+)$/.exec(ref);
  if (tm) {
    const t = Number(tm[1]);
    const e = t <= ledger.t ? chain[t] : undefined;
    if (!e) throw notFound(`${ledger.id} has no commit at t ${t} (head is t ${ledger.t})`);
    return { ...(await graph.node(e.cid)), onChain: true };
  }
  let match: (cid: string) => boolean;
  if (isCidRef(ref)) {
    try { CID.parse(ref); } catch { throw badRequest(`invalid commit CID "${ref}"`); }
    match = (c) => c === ref;
  } else if (/^[0-9a-f]{6,64}$/.test(ref)) {
    match = (c) => digestHex(CID.parse(c)).startsWith(ref);
  } else if (/^[0-9a-f]{1,5}$/.test(ref)) {
    throw badRequest(`a commit prefix must be at least 6 hex characters, not "${ref}"`);
  } else {
    throw badRequest(`invalid commit reference "${ref}": use t:<N>, a lowercase hex digest prefix (at least 6 characters) or a full commit CID`);
  }
  const onChain = chain.slice(0, ledger.t + 1).filter((e) => e && match(e.cid));
  if (onChain.length === 1) {
    // A prefix is ambiguous if it also matches a merged-in commit.
    const all = [...(await graph.ancestors(ledger.head.cid))].filter(match);
    if (all.length > 1) throw badRequest(`ambiguous commit prefix "${ref}" (${all.length} commits match)`);
    return { ...(await graph.node(onChain[0]!.cid)), onChain: true };
  }
  const all = [...(await graph.ancestors(ledger.head.cid))].filter(match);
  if (all.length === 0) throw notFound(`commit ${ref} not found in ${ledger.id}`);
  if (all.length > 1) throw badRequest(`ambiguous commit prefix "${ref}" (${all.length} commits match)`);
  return { ...(await graph.node(all[0]!)), onChain: false };
}
