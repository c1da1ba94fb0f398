/**
 * Compare the two SPARQL update parsers (the fast path of update.ts and the whole text through
 * sparqljs) on one text: both accept it with the same request, or both reject it with a 400.
 * Labels of `[]` and collection nodes (`op<n>_<k>`) are numbered differently by the two (sparqljs
 * counts across the whole request), so they are renamed before comparing, and the quads of a DATA
 * operation and of a DELETE / INSERT template are compared as sets (sparqljs orders the triples of
 * nested `[ ]` and collections among a property list's in its own way; a template is a set, §3.1.3).
 */
import { isLedgraphError } from '../../src/core/errors.js';
import { parseSparqlUpdateFast, parseSparqlUpdateWithSparqljs, type UpdateParseOptions } from '../../src/core/query/sparql/update.js';
import type { TxnRequest } from '../../src/core/transact/txn-request.js';

export type Verdict =
  | { kind: 'same'; accepted: boolean }
  | { kind: 'deferred' } // the fast path leaves this text to sparqljs
  | { kind: 'sparqljs-crash' } // sparqljs failed inside (a TypeError, reported as a 400), the fast path accepted
  | { kind: 'differ'; detail: string };

function outcome(f: () => TxnRequest | undefined): { ok: true; value: TxnRequest | undefined } | { ok: false; error: unknown } {
  try { return { ok: true, value: f() }; } catch (error) { return { ok: false, error }; }
}

const FRESH = /^op\d+_\d+$/;

interface Q { subject: T; predicate: T; object: T; graph: T }
interface T { termType: string; value: string; [k: string]: unknown }

/**
 * A DATA operation's quads as a sorted list of strings, with each generated blank node replaced
 * by a colour refined from its surroundings (a few rounds of colour refinement): equal lists
 * for the two parsers mean the same quads up to the names of generated blank nodes.
 */
function canonicalQuads(quads: Q[]): string[] {
  const isFresh = (t: T) => t.termType === 'BlankNode' && FRESH.test(t.value);
  let colour = new Map<string, string>();
  for (const q of quads) for (const t of [q.subject, q.object]) if (isFresh(t)) colour.set(t.value, '_');
  const show = (t: T) => (isFresh(t) ? `_:${colour.get(t.value)}` : JSON.stringify(t));
  const line = (q: Q) => `${show(q.subject)} ${show(q.predicate)} ${show(q.object)} ${show(q.graph)}`;
  for (let round = 0; round < 6; round++) {
    const next = new Map<string, string>();
    for (const b of colour.keys()) {
      const around = quads.filter((q) => q.subject.value === b || q.object.value === b)
        .map((q) => `${q.subject.value === b ? 'S' : ''}${q.object.value === b ? 'O' : ''}|${line(q)}`).sort();
      next.set(b, `${colour.get(b)}(${around.join(';')})`.length.toString(36) + ':' + hash(`${colour.get(b)}(${around.join(';')})`));
    }
    colour = next;
  }
  return quads.map(line).sort();
}

function hash(s: string): string {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return (h >>> 0).toString(36);
}

/**
 * The request in a form both parsers must agree on: a DATA operation's and a template's quads as
 * a set with generated blank nodes compared by structure; other generated labels renamed in order of use.
 */
export function normalizeBlanks(req: TxnRequest): unknown {
  const ops = (req as { ops: { type: string; quads?: Q[]; delete?: Q[]; insert?: Q[] }[] }).ops.map((op) =>
    op.type === 'insertData' || op.type === 'deleteData' ? { ...op, quads: canonicalQuads(op.quads!) }
      : op.type === 'modify' ? { ...op, delete: canonicalQuads(op.delete!), insert: canonicalQuads(op.insert!) } : op);
  const names = new Map<string, string>();
  return JSON.parse(JSON.stringify({ ...req, ops }), (_k, v: unknown) => {
    if (typeof v === 'string' && FRESH.test(v)) {
      if (!names.has(v)) names.set(v, `${v.split('_')[0]}_#${names.size}`);
      return names.get(v);
    }
    return v;
  });
}

/** The verdict of the two parsers on `text`. */
export function compareUpdateParsers(text: string, opts: UpdateParseOptions = {}): Verdict {
  const fast = outcome(() => parseSparqlUpdateFast(text, opts));
  const slow = outcome(() => parseSparqlUpdateWithSparqljs(text, opts));
  if (fast.ok && fast.value === undefined) return { kind: 'deferred' };
  for (const o of [fast, slow]) {
    if (!o.ok && !(isLedgraphError(o.error) && o.error.status === 400)) return { kind: 'differ', detail: `not a 400: ${String(o.error)}` };
  }
  // sparqljs crashes on a `[ ... ]` or collection subject without a property list in DATA, which
  // the grammar allows (TriplesSameSubject [75]: TriplesNode PropertyList).
  if (fast.ok && !slow.ok && /Cannot read properties of undefined/.test((slow.error as Error).message)) return { kind: 'sparqljs-crash' };
  if (fast.ok !== slow.ok) {
    const msg = (o: typeof fast) => (o.ok ? 'accepted' : `rejected (${(o.error as Error).message})`);
    return { kind: 'differ', detail: `fast ${msg(fast)}, sparqljs ${msg(slow)}` };
  }
  if (!fast.ok || !slow.ok) return { kind: 'same', accepted: false };
  const a = JSON.stringify(normalizeBlanks(fast.value!)), b = JSON.stringify(normalizeBlanks(slow.value!));
  return a === b ? { kind: 'same', accepted: true } : { kind: 'differ', detail: `fast ${a.slice(0, 1500)}\nsparqljs ${b.slice(0, 1500)}` };
}
