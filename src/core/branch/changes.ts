/**
 * The changes on one side of a divergence (branches.md §6): the flakes of a set of commits read
 * with their own chains' tables, their net effect (the last event of each fact wins, in parents-
 * before-children order), the conflict keys they touch, and conflict resolution by strategy (§9).
 */
import { badRequest } from '../errors.js';
import type { Db } from '../ledger/db.js';
import { CONFIG_GRAPH_IRI } from '../ledger/graph-table.js';
import { GRAPH_CONFIG, GRAPH_DEFAULT } from '../flake/flake.js';
import type { Node } from './dag.js';
import { conflictKey, factKey, type CommitReader, type KeyedFlake } from './reader.js';

/** Conflict strategies (§9), by canonical name. */
export type Strategy = 'take-both' | 'take-source' | 'take-branch' | 'abort' | 'skip';

const ALIASES: Record<string, Strategy> = {
  'take-both': 'take-both', take_both: 'take-both', takeboth: 'take-both',
  'take-source': 'take-source', take_source: 'take-source', takesource: 'take-source', theirs: 'take-source',
  'take-branch': 'take-branch', take_branch: 'take-branch', takebranch: 'take-branch', ours: 'take-branch',
  abort: 'abort', skip: 'skip',
};

/** Parse a strategy name (case-insensitive, aliases accepted); unknown → 400. */
export function parseStrategy(v: unknown, dflt: Strategy): Strategy {
  if (v === undefined || v === null) return dflt;
  if (typeof v !== 'string') throw badRequest('"strategy" must be a string');
  const s = ALIASES[v.toLowerCase()];
  if (!s) throw badRequest(`Unknown conflict strategy: ${v}`);
  return s;
}

/** The flakes of one side, in order, plus its keys. */
export interface Side { commits: Node[]; flakes: KeyedFlake[]; keys: Set<string> }

/** Read the flakes of commits (parents before children). */
export async function readSide(reader: CommitReader, commits: Node[]): Promise<Side> {
  const flakes: KeyedFlake[] = [];
  const keys = new Set<string>();
  for (const c of commits) {
    for (const f of (await reader.read(c.cid)).flakes) {
      flakes.push(f);
      keys.add(conflictKey(f));
    }
  }
  return { commits, flakes, keys };
}

/** The net change of flakes in order: one flake per fact, its last event. */
export function netChange(flakes: readonly KeyedFlake[]): KeyedFlake[] {
  const m = new Map<string, KeyedFlake>();
  for (const f of flakes) {
    const k = factKey(f);
    m.delete(k); // keep insertion order = order of last event
    m.set(k, f);
  }
  return [...m.values()];
}

/** The keys both sides changed, sorted. */
export function conflictingKeys(a: ReadonlySet<string>, b: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const k of a) if (b.has(k)) out.push(k);
  return out.sort();
}

/** A conflict key split back into its parts (`g` null for the default graph). */
export function splitKey(k: string): { s: string; p: string; g: string | null } {
  const [s, p, g] = k.split('\u0001') as [string, string, string];
  return { s, p, g: g === '' ? null : g };
}

/** The current facts of the given keys in a state, as retractions (to make one side win). */
export async function retractCurrent(db: Db, flakesOfKeys: readonly KeyedFlake[], keys: ReadonlySet<string>): Promise<KeyedFlake[]> {
  const out: KeyedFlake[] = [];
  const done = new Set<string>();
  for (const f of flakesOfKeys) {
    const k = conflictKey(f);
    if (!keys.has(k) || done.has(k)) continue;
    done.add(k);
    const g = f.g === null ? GRAPH_DEFAULT : f.g === CONFIG_GRAPH_IRI ? GRAPH_CONFIG : db.graphId(f.g);
    const s = await db.dict.lookup(f.s), p = await db.dict.lookup(f.p);
    if (g === undefined || s === undefined || p === undefined) continue;
    for await (const b of db.scan({ g, s, p })) {
      for (let i = 0; i < b.n; i++) {
        out.push({ g: f.g, s: f.s, p: f.p, o: db.dict.term(b.o[i]!), i: b.m[i]!, op: false });
      }
    }
  }
  return out;
}

/**
 * Resolve incoming changes against a state (§9): `take-both` keeps them all; `take-incoming`
 * retracts the state's current values of each conflicting key and keeps the incoming flakes (they
 * win over those retractions); `take-state` drops incoming flakes on conflicting keys.
 */
export async function resolve(incoming: KeyedFlake[], conflicts: ReadonlySet<string>, mode: 'both' | 'incoming' | 'state', state: Db): Promise<KeyedFlake[]> {
  if (conflicts.size === 0 || mode === 'both') return incoming;
  if (mode === 'state') return incoming.filter((f) => !conflicts.has(conflictKey(f)));
  return netChange([...(await retractCurrent(state, incoming, conflicts)), ...incoming]);
}
