/**
 * The branch commands: `branch create|list|drop`, `merge`, `rebase` and `revert`, thin clients of
 * the branch endpoints of a server (a named remote or a URL). Each prints the server's JSON answer.
 */
import { parseArgs } from 'node:util';
import { badRequest } from '../../core/errors.js';
import { branchCommand, branchRead } from '../replication/branch-client.js';
import type { RemoteTarget } from '../replication/remote-client.js';
import type { CliIo } from './io.js';
import { serverTarget, type PlaceSettings } from './places.js';

export const BRANCH_USAGE = `Branch commands (a <remote> is a name from \`ledgraph remote\` or a server URL; <ledger> is the bare name):
  branch create <remote> <ledger> <branch> [--source <branch>] [--at <t:N | digest prefix | CID>]
  branch list <remote> <ledger>
  branch drop <remote> <ledger> <branch>
  merge <remote> <ledger> <source> [--target <branch>] [--strategy take-both|take-source|take-branch|abort]
  rebase <remote> <ledger> <branch> [--strategy take-both|take-source|take-branch|skip|abort]
  revert <remote> <ledger> <branch> (--commit <ref> | --commits <ref,ref> | --from <ref> --to <ref>) [--strategy abort|take-source|take-branch]
Common flags: --token <token|@file> (for the remote), --config <remotes file>.
Push and pull carry branches: \`ledgraph push <remote> <ledger>:<branch>\`.
`;

const OPTIONS = {
  source: { type: 'string' }, at: { type: 'string' }, target: { type: 'string' }, strategy: { type: 'string' },
  commit: { type: 'string' }, commits: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' },
  token: { type: 'string' }, config: { type: 'string' },
} as const;

/** Run `branch …`, `merge`, `rebase` or `revert`. */
export async function branchMain(command: string, args: string[], remotesFile: (flag?: string) => string, io: CliIo): Promise<number> {
  const { values: v, positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  const pos = command === 'branch' ? positionals.slice(1) : positionals;
  const sub = command === 'branch' ? positionals[0] : command;
  const s: PlaceSettings = { remotesFile: remotesFile(v.config), token: v.token };
  const need = (n: number, usage: string) => { if (pos.length !== n) throw badRequest(`usage: ledgraph ${command === 'branch' ? 'branch ' : ''}${usage}`); };
  const withStrategy = (body: Record<string, unknown>) => (v.strategy === undefined ? body : { ...body, strategy: v.strategy });
  const print = (x: unknown) => { io.out(JSON.stringify(x) + '\n'); return 0; };
  const target = async (): Promise<RemoteTarget> => serverTarget(pos[0]!, s);
  switch (sub) {
    case 'create': {
      need(3, 'create <remote> <ledger> <branch> [--source <branch>] [--at <ref>]');
      const body: Record<string, unknown> = { ledger: pos[1], branch: pos[2] };
      if (v.source !== undefined) body.source = v.source;
      if (v.at !== undefined) body.at = v.at;
      return print(await branchCommand(await target(), '/branch', body, 'creating branch'));
    }
    case 'list':
      need(2, 'list <remote> <ledger>');
      return print(await branchRead(await target(), `/branch/${encodeURIComponent(pos[1]!)}`, pos[1]!, 'listing branches of'));
    case 'drop':
      need(3, 'drop <remote> <ledger> <branch>');
      return print(await branchCommand(await target(), '/drop-branch', { ledger: pos[1], branch: pos[2] }, 'dropping branch'));
    case 'merge': {
      need(3, 'merge <remote> <ledger> <source> [--target <branch>] [--strategy <s>]');
      const body: Record<string, unknown> = { ledger: pos[1], source: pos[2] };
      if (v.target !== undefined) body.target = v.target;
      return print(await branchCommand(await target(), '/merge', withStrategy(body), 'merging'));
    }
    case 'rebase':
      need(3, 'rebase <remote> <ledger> <branch> [--strategy <s>]');
      return print(await branchCommand(await target(), '/rebase', withStrategy({ ledger: pos[1], branch: pos[2] }), 'rebasing'));
    case 'revert': {
      need(3, 'revert <remote> <ledger> <branch> (--commit <ref> | --commits <a,b> | --from <ref> --to <ref>) [--strategy <s>]');
      const body: Record<string, unknown> = { ledger: pos[1], branch: pos[2] };
      if (v.commit !== undefined) body.commit = v.commit;
      if (v.commits !== undefined) body.commits = v.commits.split(',').filter((x) => x !== '');
      if (v.from !== undefined || v.to !== undefined) body.range = { from: v.from, to: v.to };
      return print(await branchCommand(await target(), '/revert', withStrategy(body), 'reverting'));
    }
    default:
      throw badRequest(`usage: ledgraph branch create|list|drop … (ledgraph branch --help)`);
  }
}
