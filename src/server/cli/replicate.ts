/**
 * The replication commands: `clone`, `fetch`, `pull`, `push`, `export` and `import`, each a thin
 * client over the endpoints (or over a local storage directory, see places.ts). Progress goes to
 * stderr; failures name the remote, the ledger and the HTTP status.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { createHash } from 'node:crypto';
import { badRequest, isLedgraphError, LedgraphError, notFound } from '../../core/errors.js';
import { normalizeLedgerId } from '../../core/ledger/ledger-id.js';
import { IMPORT_MAX_FRAME_BYTES } from '../../core/pack/frames.js';
import { readPack } from '../../core/pack/reader.js';
import type { CliIo } from './io.js';
import { localPlace, serverPlace, type Place, type PlaceSettings } from './places.js';
import { Progress } from './progress.js';

export const REPLICATE_USAGE = `Replication commands (a <remote> is a name from \`ledgraph remote\` or a server URL):
  clone <remote> <ledger> [--as <name>] [--to <remote> | --storage-path <dir>]
      Copy a ledger with its indexes (verified) into a server or a storage directory (default ./data).
  fetch <remote> <ledger> [--to <remote> | --storage-path <dir>]
      Show how far the remote is ahead; into a storage directory, also store its new commits.
  pull <remote> <ledger> [--to <remote> | --storage-path <dir>]
      Apply the remote's commits since the local head.
  push <remote> <ledger> [--from <remote> | --storage-path <dir>]
      Push local commits since the remote head (push-merges when they bring in merges).
      A branch the remote lacks is created there at its fork point first (pull does the same locally).
  export <ledger> <file.flpack> [--from <remote> | --storage-path <dir>] [--no-indexes]
  import <file.flpack> <ledger> [--to <remote> | --storage-path <dir>]
Common flags: --token <token|@file> (for the remote), --config <remotes file>.
`;

const OPTIONS = {
  as: { type: 'string' },
  to: { type: 'string' },
  from: { type: 'string' },
  'storage-path': { type: 'string' },
  token: { type: 'string' },
  config: { type: 'string' },
  'no-indexes': { type: 'boolean' },
} as const;

async function using<T>(places: Place[], fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } finally {
    for (const p of places) await p.close();
  }
}

/**
 * A branch `to` lacks, created there at the commit where it forked on `from` (its common ancestor
 * with its source branch), so push and pull can then send its own commits. Null for a root branch.
 */
async function branchFromFork(from: Place, to: Place, ledger: string, create: boolean) {
  if (!create) return null;
  const fp = await from.forkPoint(ledger);
  if (!fp) return null;
  await to.createBranch(ledger, fp.source, fp.commitId);
  return to.heads(ledger);
}

/** Give `to`'s ledger the stored default context of `from`'s when they differ (clone and pull carry it). */
async function carryContext(from: Place, to: Place, ledger: string, as: string): Promise<void> {
  const theirs = await from.context(ledger);
  if (JSON.stringify(theirs) !== JSON.stringify(await to.context(as))) await to.setContext(as, theirs);
}

/** Run one replication command; `remotesFile` is the resolved remotes config path. */
export async function replicateMain(command: string, args: string[], remotesFile: (flag?: string) => string, io: CliIo): Promise<number> {
  const { values: v, positionals: pos } = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  const s: PlaceSettings = { remotesFile: remotesFile(v.config), token: v.token };
  const need = (n: number, usage: string) => { if (pos.length !== n) throw badRequest(`usage: ledgraph ${command} ${usage}`); };
  switch (command) {
    case 'clone': {
      need(2, '<remote> <ledger> [--as <name>] [--to <remote> | --storage-path <dir>]');
      const [remote, ledger] = pos as [string, string];
      const src = await serverPlace(remote, s);
      const dst = await localPlace(v.to, v['storage-path'], { remotesFile: s.remotesFile });
      return using([src, dst], async () => {
        const h = await src.heads(ledger);
        if (!h) throw notFound(`ledger ${ledger} not found on remote ${src.name}`);
        const as = normalizeLedgerId(v.as ?? ledger);
        const progress = new Progress(io, `clone ${ledger} from ${src.name}`);
        const frames = await src.packFrames(ledger, h);
        const id = as;
        const res = await dst.restore(as, frames, {
          phase: 'nameservice', ledger_id: id, name: id.slice(0, id.lastIndexOf(':')), branch: id.slice(id.lastIndexOf(':') + 1),
          commit_head_id: h.commitId, commit_t: h.t, index_head_id: h.indexId, index_t: h.indexId ? h.indexT : 0,
        }, progress.watcher());
        await carryContext(src, dst, ledger, as);
        progress.done();
        io.out(JSON.stringify(res) + '\n');
        return 0;
      });
    }
    case 'fetch':
    case 'pull': {
      need(2, '<remote> <ledger> [--to <remote> | --storage-path <dir>]');
      const [remote, ledger] = pos as [string, string];
      const src = await serverPlace(remote, s);
      const dst = await localPlace(v.to, v['storage-path'], { remotesFile: s.remotesFile });
      return using([src, dst], async () => {
        const local = (await dst.heads(ledger)) ?? await branchFromFork(src, dst, ledger, command === 'pull');
        if (!local) throw notFound(`ledger ${ledger} is not in ${dst.name}; clone it first`);
        const batch = await src.commitsSince(ledger, local.commitId);
        if (command === 'pull') await carryContext(src, dst, ledger, ledger);
        if (batch.commits.length === 0) { io.out(`${ledger}: up to date at t ${local.t}\n`); return 0; }
        if (command === 'fetch') {
          const stored = dst.storeObjects ? await dst.storeObjects(ledger, batch) : 0;
          io.out(`${ledger}: ${src.name} is ${batch.commits.length} commits ahead (t ${local.t} → ${batch.headT})${stored ? `; stored ${stored} commits` : ''}\n`);
          return 0;
        }
        const res = await dst.apply(ledger, batch);
        io.out(JSON.stringify(res) + '\n');
        return 0;
      });
    }
    case 'push': {
      need(2, '<remote> <ledger> [--from <remote> | --storage-path <dir>]');
      const [remote, ledger] = pos as [string, string];
      const dst = await serverPlace(remote, s);
      const src = await localPlace(v.from, v['storage-path'], { remotesFile: s.remotesFile });
      return using([src, dst], async () => {
        const theirs = (await dst.heads(ledger)) ?? await branchFromFork(src, dst, ledger, true);
        if (!theirs) throw notFound(`ledger ${ledger} not found on remote ${dst.name}; create or import it there first`);
        const batch = await src.commitsSince(ledger, theirs.commitId).catch((e: unknown) => {
          // The remote's head is not in the local history: it has commits we lack.
          if (isLedgraphError(e) && e.status === 409) {
            throw new LedgraphError(409, e.type, `pushing to ${ledger} on remote ${dst.name}: its head (t ${theirs.t}) is not in the history of ${src.name}; pull first (${e.message})`);
          }
          throw e;
        });
        if (batch.commits.length === 0) { io.out(`${ledger}: ${dst.name} is up to date at t ${theirs.t}\n`); return 0; }
        // The same push retried after a dropped connection replays the stored success.
        const key = createHash('sha256').update(`${normalizeLedgerId(ledger)} ${theirs.commitId} ${batch.headId}`).digest('hex');
        const progress = new Progress(io, `push ${ledger} to ${dst.name}`);
        const res = await dst.apply(ledger, batch, key);
        for (const c of [...batch.commits, ...batch.merged]) progress.tick(c.length);
        progress.done();
        io.out(JSON.stringify(res) + '\n');
        return 0;
      });
    }
    case 'export': {
      need(2, '<ledger> <file.flpack> [--from <remote> | --storage-path <dir>] [--no-indexes]');
      const [ledger, file] = pos as [string, string];
      const src = await localPlace(v.from, v['storage-path'], s);
      return using([src], async () => {
        const progress = new Progress(io, `export ${ledger}`);
        const bytes = await src.archive(ledger, !v['no-indexes'], progress.watcher());
        const out = createWriteStream(file);
        let total = 0;
        try {
          for await (const chunk of bytes) {
            total += chunk.length;
            if (!out.write(chunk)) await once(out, 'drain');
          }
          out.end();
          await once(out, 'finish');
        } catch (e) {
          out.destroy();
          await rm(file, { force: true });
          throw e;
        }
        progress.done();
        io.out(JSON.stringify({ ledger: normalizeLedgerId(ledger), file, bytes: total }) + '\n');
        return 0;
      });
    }
    case 'import': {
      need(2, '<file.flpack> <ledger> [--to <remote> | --storage-path <dir>]');
      const [file, ledger] = pos as [string, string];
      const dst = await localPlace(v.to, v['storage-path'], s);
      return using([dst], async () => {
        const progress = new Progress(io, `import ${ledger}`);
        const frames = readPack(createReadStream(file) as AsyncIterable<Uint8Array>, { maxFrameBytes: IMPORT_MAX_FRAME_BYTES, archive: true });
        const res = await dst.restore(ledger, frames, null, progress.watcher());
        progress.done();
        io.out(JSON.stringify(res) + '\n');
        return 0;
      });
    }
    default:
      throw badRequest(`unknown replication command ${command}`);
  }
}
