/**
 * Turn a TxnRequest into staged flakes against the state before the transaction: insert, upsert,
 * replace (sync / graph store PUT) and update (where / delete / insert templates).
 */
import { badRequest } from '../errors.js';
import type { Db } from '../ledger/db.js';
import type { Ledger } from '../ledger/ledger.js';
import { blankNode, type BlankNode, type NamedNode, type Term } from '../rdf/terms.js';
import { Stager } from './stage.js';
import type { GraphRef, TemplateQuad, TxnQuad, TxnRequest } from './txn-request.js';
import { evaluateWhere, looseMatches, type Solution } from './where-eval.js';

/** Stage a whole request; blank nodes get their ledger labels `lg<T>-<label>`. */
export async function stageRequest(db: Db, ledger: Ledger, req: TxnRequest, t: number, signal?: AbortSignal): Promise<Stager> {
  const stager = new Stager(db, ledger.graphs.nextId);
  const rename = (label: string) => blankNode(`lg${t}-${label}`);
  switch (req.kind) {
    case 'insert':
      for (const q of req.quads) await stager.assert(renameQuad(q, rename));
      break;
    case 'upsert':
      await stageUpsert(stager, req.quads.map((q) => renameQuad(q, rename)));
      break;
    case 'replace':
      await stageReplace(stager, req.graphs, req.quads.map((q) => renameQuad(q, rename)));
      break;
    case 'update':
      await stageUpdate(stager, db, req, t, signal);
      break;
  }
  return stager;
}

function renameQuad(q: TxnQuad, rename: (label: string) => BlankNode): TxnQuad {
  const s = q.subject.termType === 'BlankNode' ? rename(q.subject.value) : q.subject;
  const o = q.object.termType === 'BlankNode' ? rename(q.object.value) : q.object;
  return s === q.subject && o === q.object ? q : { ...q, subject: s, object: o };
}

/** Current (o, list index) values of (g, s, p). */
async function currentValues(stager: Stager, g: number, s: Term, p: NamedNode): Promise<{ o: Term; i: number }[]> {
  const dict = stager.db.dict;
  const si = dict.idOf(s), pi = dict.idOf(p);
  if (si === undefined || pi === undefined) return [];
  const out: { o: Term; i: number }[] = [];
  for await (const b of stager.db.scan({ g, s: si, p: pi })) {
    for (let k = 0; k < b.n; k++) out.push({ o: dict.term(b.o[k]!), i: b.m[k]! });
  }
  return out;
}

async function stageUpsert(stager: Stager, quads: TxnQuad[]): Promise<void> {
  const groups = new Map<string, { graph: GraphRef; s: NamedNode | BlankNode; p: NamedNode; quads: TxnQuad[] }>();
  for (const q of quads) {
    const k = `${q.graph.value}\u0001${q.subject.termType}:${q.subject.value}\u0001${q.predicate.value}`;
    let grp = groups.get(k);
    if (!grp) groups.set(k, (grp = { graph: q.graph, s: q.subject, p: q.predicate, quads: [] }));
    grp.quads.push(q);
  }
  for (const grp of groups.values()) {
    const g = stager.existingGraphId(grp.graph);
    if (g !== undefined) {
      const wanted = new Set(grp.quads.map((q) => valueKey(q.object, q.listIndex ?? -1)));
      for (const cur of await currentValues(stager, g, grp.s, grp.p)) {
        if (!wanted.has(valueKey(cur.o, cur.i))) await stager.stage(g, grp.s, grp.p, cur.o, cur.i, false);
      }
    }
    for (const q of grp.quads) await stager.assert(q);
  }
}

async function stageReplace(stager: Stager, graphs: GraphRef[], quads: TxnQuad[]): Promise<void> {
  const wanted = new Set(quads.map((q) => `${q.graph.value}\u0001${valueKey(q.subject, -1)}\u0001${q.predicate.value}\u0001${valueKey(q.object, q.listIndex ?? -1)}`));
  const dict = stager.db.dict;
  for (const graph of graphs) {
    const g = stager.existingGraphId(graph);
    if (g === undefined) continue;
    const drop: [NamedNode | BlankNode, NamedNode, Term, number][] = [];
    for await (const b of stager.db.scan({ g })) {
      for (let k = 0; k < b.n; k++) {
        const s = dict.term(b.s[k]!) as NamedNode | BlankNode, p = dict.term(b.p[k]!) as NamedNode, o = dict.term(b.o[k]!);
        if (!wanted.has(`${graph.value}\u0001${valueKey(s, -1)}\u0001${p.value}\u0001${valueKey(o, b.m[k]!)}`)) drop.push([s, p, o, b.m[k]!]);
      }
    }
    for (const [s, p, o, i] of drop) await stager.stage(g, s, p, o, i, false);
  }
  for (const q of quads) await stager.assert(q);
}

function valueKey(o: Term, i: number): string {
  return o.termType === 'Literal' ? `L${i}|${o.datatype.value}|${o.language}|${o.value}` : `${o.termType[0]}${i}|${o.value}`;
}

async function stageUpdate(stager: Stager, db: Db, req: Extract<TxnRequest, { kind: 'update' }>, t: number, signal?: AbortSignal): Promise<void> {
  const solutions: Solution[] = req.where ? await evaluateWhere(db, req.where, { using: req.using, usingNamed: req.usingNamed, signal }) : [{}];
  const ground = (tq: TemplateQuad) => !isVar(tq.subject) && !isVar(tq.predicate) && !isVar(tq.object) && !isVar(tq.graph);
  // Templates without variables apply exactly once, even with zero solutions (§6.1).
  const runs: { tpl: TemplateQuad; op: boolean }[] = [
    ...req.delete.map((tpl) => ({ tpl, op: false })),
    ...req.insert.map((tpl) => ({ tpl, op: true })),
  ];
  for (const { tpl, op } of runs) {
    if (!ground(tpl)) continue;
    await applyTemplate(stager, tpl, {}, op, (l) => blankNode(`lg${t}-${l}`));
  }
  for (let k = 0; k < solutions.length; k++) {
    const sol = solutions[k]!;
    // Blank nodes in templates are fresh per solution.
    const fresh = (l: string) => blankNode(solutions.length === 1 ? `lg${t}-${l}` : `lg${t}-${l}-${k}`);
    for (const { tpl, op } of runs) {
      if (ground(tpl)) continue;
      await applyTemplate(stager, tpl, sol, op, fresh);
    }
  }
}

function isVar(x: { termType: string }): boolean { return x.termType === 'Variable'; }

async function applyTemplate(stager: Stager, tpl: TemplateQuad, sol: Solution, op: boolean, fresh: (l: string) => BlankNode): Promise<void> {
  const bind = (x: Term | { termType: 'Variable'; value: string } | GraphRef): Term | GraphRef | undefined => {
    if (x.termType === 'Variable') return sol[x.value];
    // Insert templates mint fresh blank nodes; in delete templates `_:label` names a stored node.
    if (x.termType === 'BlankNode') return op ? fresh(x.value) : x;
    return x as Term | GraphRef;
  };
  const s = bind(tpl.subject), p = bind(tpl.predicate), o = bind(tpl.object);
  const gr = tpl.graph.termType === 'Variable' ? sol[tpl.graph.value] : tpl.graph;
  if (!s || !p || !o || !gr) return; // an unbound variable skips the template for this solution
  if (s.termType === 'Literal' || s.termType === 'DefaultGraph') return;
  if (p.termType !== 'NamedNode') return;
  if (gr.termType !== 'NamedNode' && gr.termType !== 'DefaultGraph') {
    throw badRequest('a graph template must be bound to an IRI');
  }
  const graph = gr as GraphRef;
  if (o.termType === 'DefaultGraph') return;
  const q: TxnQuad = { subject: s as NamedNode | BlankNode, predicate: p, object: o, graph };
  if (tpl.listIndex !== undefined) q.listIndex = tpl.listIndex;
  if (op) return stager.assert(q);
  if (tpl.looseObject && o.termType === 'Literal') {
    const g = stager.existingGraphId(graph);
    if (g === undefined) return;
    for (const cur of await currentValues(stager, g, q.subject, p)) {
      if (looseMatches(o, cur.o)) await stager.stage(g, q.subject, p, cur.o, cur.i, false);
    }
    return;
  }
  return stager.retract(q);
}
