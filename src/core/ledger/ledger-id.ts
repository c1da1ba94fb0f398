/** Ledger identifiers: `name:branch`, bare names, time specifiers and the `#txn-meta` fragment. */
import { badRequest } from '../errors.js';
import { excerpt } from '../excerpt.js';
import { inputLimits, shapeLimitError } from '../limits.js';

export type TimeSpec =
  | { kind: 'head' }
  | { kind: 't'; t: number }
  | { kind: 'time'; iso: string; ms: number }
  | { kind: 'commit'; ref: string };

export interface LedgerRef { name: string; branch: string; id: string; time: TimeSpec; fragment: string | null }

const NAME_RE = /^[A-Za-z0-9_][A-Za-z0-9_.\-/]*$/;

/**
 * Ids normalised lately (input → `name:branch`), valid under `normalizedUnder`'s limits: every
 * request of a ledger normalises the same few ids, and checking one costs regular expressions.
 */
const normalized = new Map<string, string>();
let normalizedUnder: unknown = null;
const NORMALIZED_MAX = 1024;

/** Normalise `name` / `name:branch` to `name:branch` (validating both parts). */
export function normalizeLedgerId(s: string): string {
  const limits = inputLimits();
  if (normalizedUnder !== limits) { normalized.clear(); normalizedUnder = limits; }
  let id = typeof s === 'string' ? normalized.get(s) : undefined;
  if (id !== undefined) return id;
  const { name, branch } = splitLedgerId(s);
  id = `${name}:${branch}`;
  if (normalized.size >= NORMALIZED_MAX) normalized.clear();
  normalized.set(s, id);
  return id;
}

/** Split `name[:branch]`; the branch defaults to `main`. */
export function splitLedgerId(s: string): { name: string; branch: string } {
  if (typeof s !== 'string' || s.length === 0) throw badRequest('ledger id must be a non-empty string');
  const i = s.lastIndexOf(':');
  const name = i < 0 ? s : s.slice(0, i);
  const branch = i < 0 ? 'main' : s.slice(i + 1);
  // Length first, so a huge name is never echoed whole.
  const max = inputLimits().maxLedgerNameLength;
  if (name.length > max) throw shapeLimitError('maxLedgerNameLength', `ledger name "${excerpt(name, 40)}" is ${name.length} characters long, longer than allowed`);
  if (branch.length > max) throw shapeLimitError('maxLedgerNameLength', `branch name "${excerpt(branch, 40)}" is ${branch.length} characters long, longer than allowed`);
  if (!NAME_RE.test(name) || name.includes('//') || name.endsWith('/')) throw badRequest(`invalid ledger name "${name}": use letters, digits, _ . - and / between segments`);
  checkBranchName(branch);
  return { name, branch };
}

/**
 * Branch names (branches.md §1): 1–128 characters, not only whitespace, no `:`, `@`, NUL, not `..`, no `../`
 * or `/..`; `#` and `?` are refused too, since a ledger reference or URL could not name them, and
 * `/` stands only between segments.
 */
export function checkBranchName(branch: string): void {
  const ok = branch.length >= 1 && branch.length <= 128 && branch.trim() !== '' && !/[:@\u0000#?]/.test(branch) &&
    branch !== '..' && !branch.includes('../') && !branch.includes('/..') &&
    // `/` only between segments, so an IRI such as http://example.org/g is never read as name:branch.
    !branch.startsWith('/') && !branch.endsWith('/') && !branch.includes('//');
  if (!ok) throw badRequest(`invalid branch name ${JSON.stringify(branch)}`);
}

/** Parse `name:branch[@t:N|@time:ISO|@iso:ISO|@commit:REF][#fragment]`. */
export function parseLedgerRef(s: string): LedgerRef {
  let rest = s;
  let fragment: string | null = null;
  const hash = rest.indexOf('#');
  if (hash >= 0) { fragment = rest.slice(hash + 1); rest = rest.slice(0, hash); }
  let time: TimeSpec = { kind: 'head' };
  const at = rest.indexOf('@');
  if (at >= 0) {
    time = parseTimeSpec(rest.slice(at + 1));
    rest = rest.slice(0, at);
  }
  // Through normalizeLedgerId's memory of checked ids (the id's last ':' splits it again).
  const id = normalizeLedgerId(rest);
  const c = id.lastIndexOf(':');
  return { name: id.slice(0, c), branch: id.slice(c + 1), id, time, fragment };
}

/** Parse a time specifier without its `@` (`t:5`, `time:2024-01-01T00:00:00Z`, `commit:bag…`). */
export function parseTimeSpec(spec: string): TimeSpec {
  const c = spec.indexOf(':');
  const kind = c < 0 ? spec : spec.slice(0, c);
  const val = c < 0 ? '' : spec.slice(c + 1);
  if (kind === 't') {
    if (val === 'latest') return { kind: 'head' };
    if (!/^\d+$/.test(val)) throw badRequest(`invalid time specifier "@${spec}": t must be a non-negative integer`);
    return { kind: 't', t: Number(val) };
  }
  if (kind === 'time' || kind === 'iso') {
    const ms = Date.parse(val);
    if (!/^\d{4}-\d{2}-\d{2}/.test(val) || Number.isNaN(ms)) throw badRequest(`invalid time specifier "@${spec}": expected an ISO 8601 date-time`);
    return { kind: 'time', iso: val, ms };
  }
  if (kind === 'commit') {
    if (!/^(b[a-z2-7]{10,}|[0-9a-f]{6,64})$/.test(val)) throw badRequest(`invalid time specifier "@${spec}": expected a CID or a hex digest prefix of at least 6 characters`);
    return { kind: 'commit', ref: val };
  }
  throw badRequest(`invalid time specifier "@${spec}": use @t:N, @time:ISO or @commit:REF`);
}
