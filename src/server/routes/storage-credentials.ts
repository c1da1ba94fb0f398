/**
 * `GET /storage/credentials?ledger=<id>` (http-api.md §4.10, replication.md §11): short-lived
 * read-only object-store credentials, so a peer reads content straight from the bucket instead of
 * through the storage proxy. Every failure is a 404, which peers take as "use proxied reads":
 * vending off (file storage, or no --storage-vend-enabled), no token or one out of scope (the auth
 * layer), a ledger that does not exist or does not serve blocks.
 *
 * Under the shared layout the credentials read the server's whole content prefix (content is
 * shared by all ledgers, see storage/s3-vend.ts), so they go only to tokens whose storage scope is
 * every ledger (`ledgraph.storage.all`). Under the per-ledger layout (--s3-ledger-prefixes) they
 * read the ledger's prefix, which every branch of the ledger shares, so they also go to tokens
 * whose storage scope names every branch the ledger has. Anyone else gets 404 and keeps using the
 * proxy, which checks each object against the ledger.
 */
import { badRequest, notFound } from '../../core/errors.js';
import { normalizeLedgerId, splitLedgerId } from '../../core/ledger/ledger-id.js';
import { authenticate } from '../auth/index.js';
import type { Scopes } from '../auth/verify.js';
import type { Registrar, ServerContext } from '../server-context.js';
import { openCredentialVendor } from '../storage-open.js';
import { requireBlocksServed } from '../storage-proxy/serving.js';
import { route } from '../swagger.js';

const NOT_VENDED = 'storage credentials are vended only by object-store servers with --storage-vend-enabled; use /storage/objects';

/** Registers the credentials route (transaction role). */
export const storageCredentialRoutes: Registrar = (api, ctx) => {
  if (ctx.config.role === 'peer') return;
  const vendor = openCredentialVendor(ctx.config);

  route(api, ctx.table, {
    method: 'GET', path: '/storage/credentials', tag: 'storage-proxy', summary: 'Scoped, short-lived object-store credentials',
    description: 'With --storage s3:// and --storage-vend-enabled: STS AssumeRole credentials, narrowed by a session policy to s3:GetObject '
      + 'under the content prefix (with --s3-ledger-prefixes: under the ledger\'s own prefix, shared by its branches), for --storage-vend-ttl-secs. '
      + 'Needs a storage token covering every ledger (ledgraph.storage.all) or, with --s3-ledger-prefixes, every branch of the ledger. '
      + 'Every failure is 404: peers then read through /storage/objects.',
    query: [{ name: 'ledger', required: true, description: 'Ledger id the caller reads' }],
    headers: [{ name: 'Authorization', description: 'Bearer token with ledgraph.storage.all (or, with --s3-ledger-prefixes, every branch of the ledger in ledgraph.storage.ledgers)', required: true }],
    responses: {
      200: '{access_key_id, secret_access_key, session_token, expiration, bucket, prefix, region[, endpoint, force_path_style]}',
      404: 'Not vended (file storage, vending off, token not covering what the credentials read, no such ledger)', 502: 'STS refused or failed',
    },
  }, async (c) => {
    if (!vendor || !ctx.config.storageProxyEnabled) throw notFound(NOT_VENDED);
    const raw = c.req.query('ledger');
    if (!raw || !raw.trim()) throw badRequest('missing ledger: give ?ledger=<name:branch>');
    const bearer = authenticate(c).bearer;
    const id = normalizeLedgerId(raw.trim());
    if (!bearer || !(await coversCredentialScope(ctx, bearer.scopes, id))) throw notFound(NOT_VENDED);
    const record = await ctx.conn.ns.get(id);
    if (!record || record.retracted) throw notFound('Ledger not found');
    await requireBlocksServed(await ctx.conn.ledger(id));
    c.header('cache-control', 'no-store');
    return c.json(await vendor.vend(id));
  });
};

/**
 * Does the token's storage scope cover everything the credentials for `ledgerId` read: every
 * ledger (shared layout), or every branch the ledger has, retracted ones included (their objects
 * stay under the prefix until a hard drop)? A branch created later is readable with credentials
 * vended before it, until they expire.
 */
async function coversCredentialScope(ctx: ServerContext, s: Scopes, ledgerId: string): Promise<boolean> {
  if (s.storageAll) return true;
  if (!ctx.config.s3LedgerPrefixes || !s.storageLedgers.includes(ledgerId)) return false;
  const name = splitLedgerId(ledgerId).name;
  const branches = (await ctx.conn.ns.list()).filter((r) => r.name === name);
  return branches.every((r) => s.storageLedgers.includes(r.ledger_id));
}
