/**
 * Turn a TxnRequest into staged flakes against the state before the transaction: insert, upsert,
 * replace (sync / graph store PUT) and update (where / delete / insert templates).
 */
import type { Db } from '../ledger/db.js';
import type { DbView } from '../index/view.js';
import { whereView, writePolicyInputs, type PolicyInputs } from '../policy/index.js';
import type { Ledger } from '../ledger/ledger.js';
import { blankNode, type BlankNode, type NamedNode, type Term } from '../rdf/terms.js';
import { Stager, type StageOptions } from './stage.js';
import { RunStager, runStagingMinQuads, stagesAsRuns } from './stage-runs.js';
import { mayHaveShapes } from './shacl-shapes.js';
import type { GraphName, GraphRef, TemplateQuad, TxnQuad, TxnRequest, UpdateOperation } from './txn-request.js';
import type { Op } from '../query/algebra/algebra.js';
import { badRequest } from '../errors.js';
import { FIRST_NAMED_GRAPH } from '../flake/flake.js';
import { defaultGraph } from '../rdf/terms.js';
import { stageHandle } from './stage-program.js';
import { checkWhereLimits, evaluateWhere, looseMatches, type Solution, type WhereLimits } from './where-eval.js';

/**
 * Stage a whole request; blank nodes get their ledger labels `lg<T>-<label>`. Staging reads the
 * unrestricted snapshot (it must see what it retracts); an update's WHERE reads only what the
 * writer's identity may view (policy.md §6), so a permitted write cannot copy hidden values.
 */
export async function stageRequest(db: Db, ledger: Ledger, req: TxnRequest, t: number, limits: WhereLimits & StageOptions = {}, identity?: string | null): Promise<Stager> {
  const inputs = writePolicyInputs(req.opts, identity);
  const stager = new Stager(db, db.nextGraphId, { maxDeltaBytes: limits.maxDeltaBytes });
  const rename = (label: string) => blankNode(`lg${t}-${label}`);
  switch (req.kind) {
    case 'insert':
      // A large plain insert stages through sorted id runs (same result); a policy-restricted
      // writer's and a ledger with shapes keep the ordinary path.
      // Key rows (a plain N-Triples body) stage from their keys, without quads.
      if ((req.rows ? req.rows.n > runStagingMinQuads() : stagesAsRuns(req.quads)) && Object.keys(inputs).length === 0 && !(await mayHaveShapes(db.dict))) {
        const runs = new RunStager(db, db.nextGraphId, { maxDeltaBytes: limits.maxDeltaBytes });
        if (req.rows) await runs.insertKeyRows(req.rows, t);
        else await runs.insertAll(req.quads.map((q) => renameQuad(q, rename)));
        return runs;
      }
      for (const q of req.quads) await stager.assert(renameQuad(q, rename));
      break;
    case 'upsert':
      await stageUpsert(stager, req.quads.map((q) => renameQuad(q, rename)));
      break;
    case 'replace':
      await stageReplace(stager, req.graphs, req.quads.map((q) => renameQuad(q, rename)));
      break;
    case 'update':
      await stageUpdate(stager, await whereView(db, inputs), req, t, limits);
      break;
    case 'sparql-update':
      await stageSparqlUpdate(stager, db, req.ops, t, inputs, limits);
      break;
    case 'program':
      await req.run(stageHandle(stager, db, t, inputs, limits));
      break;
  }
  return stager;
}

/** Blank nodes in any position, the graph name included, get their ledger labels. */
function renameQuad(q: TxnQuad, rename: (label: string) => BlankNode): TxnQuad {
  const s = q.subject.termType === 'BlankNode' ? rename(q.subject.value) : q.subject;
  const o = q.object.termType === 'BlankNode' ? rename(q.object.value) : q.object;
  const g = q.graph.termType === 'BlankNode' ? rename(q.graph.value) : q.graph;
  return s === q.subject && o === q.object && g === q.graph ? q : { ...q, subject: s, object: o, graph: g };
}

/** Current (o, list index) values of (g, s, p). */
async function currentValues(stager: Stager, g: number, s: Term, p: NamedNode): Promise<{ o: Term; i: number }[]> {
  const dict = stager.db.dict;
  const si = await dict.lookup(s), pi = await dict.lookup(p);
  if (si === undefined || pi === undefined) return [];
  const out: { o: Term; i: number }[] = [];
  for await (const b of stager.db.scan({ g, s: si, p: pi })) {
    for (let k = 0; k < b.n; k++) out.push({ o: dict.term(b.o[k]!), i: b.m[k]! });
  }
  return out;
}

async function stageUpsert(stager: Stager, quads: TxnQuad[]): Promise<void> {
  const groups = new Map<string, { graph: GraphName; s: NamedNode | BlankNode; p: NamedNode; quads: TxnQuad[] }>();
  for (const q of quads) {
    const k = `${q.graph.termType}:${q.graph.value}\u0001${q.subject.termType}:${q.subject.value}\u0001${q.predicate.value}`;
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

async function stageReplace(stager: Stager, graphs: GraphName[], quads: TxnQuad[]): Promise<void> {
  const wanted = new Set(quads.map((q) => `${q.graph.termType}:${q.graph.value}\u0001${valueKey(q.subject, -1)}\u0001${q.predicate.value}\u0001${valueKey(q.object, q.listIndex ?? -1)}`));
  const dict = stager.db.dict;
  for (const graph of graphs) {
    const g = stager.existingGraphId(graph);
    if (g === undefined) continue;
    const drop: [NamedNode | BlankNode, NamedNode, Term, number][] = [];
    for await (const b of stager.db.scan({ g })) {
      for (let k = 0; k < b.n; k++) {
        const s = dict.term(b.s[k]!) as NamedNode | BlankNode, p = dict.term(b.p[k]!) as NamedNode, o = dict.term(b.o[k]!);
        if (!wanted.has(`${graph.termType}:${graph.value}\u0001${valueKey(s, -1)}\u0001${p.value}\u0001${valueKey(o, b.m[k]!)}`)) drop.push([s, p, o, b.m[k]!]);
      }
    }
    for (const [s, p, o, i] of drop) await stager.stage(g, s, p, o, i, false);
  }
  for (const q of quads) await stager.assert(q);
}

function valueKey(o: Term, i: number): string {
  return o.termType === 'Literal' ? `L${i}|${o.datatype.value}|${o.language}|${o.value}` : `${o.termType[0]}${i}|${o.value}`;
}

interface ModifySpec { where: Op | null; delete: TemplateQuad[]; insert: TemplateQuad[]; using?: GraphRef[]; usingNamed?: NamedNode[] }

async function stageUpdate(stager: Stager, db: DbView, req: ModifySpec, t: number, limits: WhereLimits): Promise<void> {
  const solutions: Solution[] = req.where ? await evaluateWhere(db, req.where, { using: req.using, usingNamed: req.usingNamed, ...limits }) : [{}];
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
    // Applying the templates is part of the update's WHERE work: the same deadline, signal and
    // turns of the event loop bound it (a solution that stages nothing still costs scans).
    await stager.breathe();
    checkWhereLimits(limits);
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
  const bind = (x: Term | { termType: 'Variable'; value: string } | GraphName): Term | GraphName | undefined => {
    if (x.termType === 'Variable') return sol[x.value];
    // Insert templates mint fresh blank nodes; in delete templates `_:label` names a stored node.
    if (x.termType === 'BlankNode') return op ? fresh(x.value) : x;
    return x as Term | GraphName;
  };
  const s = bind(tpl.subject), p = bind(tpl.predicate), o = bind(tpl.object);
  const gr = bind(tpl.graph);
  if (!s || !p || !o || !gr) return; // an unbound variable skips the template for this solution
  if (s.termType === 'Literal' || s.termType === 'DefaultGraph') return;
  if (p.termType !== 'NamedNode') return;
  if (gr.termType === 'Literal') throw badRequest('a graph template must be bound to an IRI or a blank node');
  const graph = gr as GraphName;
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

/**
 * SPARQL Update: operations in order, each staged against an overlay of the snapshot and the
 * changes staged before it, so `INSERT DATA {…}; DELETE WHERE {…}` sees its own insert. One commit.
 */
async function stageSparqlUpdate(stager: Stager, base: Db, ops: UpdateOperation[], t: number, inputs: PolicyInputs, limits: WhereLimits): Promise<void> {
  const rename = (label: string) => blankNode(`lg${t}-${label}`);
  for (let k = 0; k < ops.length; k++) {
    if (k > 0) stager.db = base.withEvents(stager.idFlakes(t), base.graphTableWith(stager.newGraphs), t);
    const op = ops[k]!;
    switch (op.type) {
      case 'insertData':
        for (const q of op.quads) await stager.assert(renameQuad(q, rename));
        break;
      case 'deleteData':
        for (const q of op.quads) await stager.retract(q);
        break;
      case 'modify': {
        // WITH names the graph of templates without GRAPH and, absent USING, the WHERE default graph.
        const withGraph: GraphRef = op.with ?? defaultGraph;
        const place = (tpl: TemplateQuad): TemplateQuad => (tpl.graph.termType === 'DefaultGraph' ? { ...tpl, graph: withGraph } : tpl);
        // WITH only changes the default graph; named graphs stay visible unless USING NAMED says otherwise.
        const using = op.using ?? (op.with ? [op.with] : undefined);
        const usingNamed = op.usingNamed ?? (op.using ? [] : undefined);
        await stageUpdate(stager, await whereView(stager.db, inputs), { where: op.where, delete: op.delete.map(place), insert: op.insert.map(place), using, usingNamed }, t, limits);
        break;
      }
      case 'clear':
      case 'drop':
        for (const g of targetGraphs(stager, op.target, op.silent)) await clearGraph(stager, g);
        break;
      case 'load':
        if (!op.silent) throw badRequest(`LOAD <${op.source.value}> is not supported: the server has no network access; send the data with /insert or INSERT DATA`);
        break;
      case 'create':
        if (!op.silent && (await graphHasFacts(stager, stager.existingGraphId(op.graph)))) throw badRequest(`CREATE GRAPH: graph <${op.graph.value}> already exists`);
        break;
      case 'add':
      case 'copy':
      case 'move': {
        const from = stager.existingGraphId(op.from);
        if (from === undefined || (op.from.termType === 'NamedNode' && !(await graphHasFacts(stager, from)))) {
          if (op.silent || op.from.termType === 'DefaultGraph') break;
          throw badRequest(`${op.type.toUpperCase()}: source graph <${op.from.value}> does not exist`);
        }
        if (sameGraph(op.from, op.to)) break;
        if (op.type !== 'add') {
          const to = stager.existingGraphId(op.to);
          if (to !== undefined) await clearGraph(stager, to);
        }
        await copyGraph(stager, from, op.to);
        if (op.type === 'move') await clearGraph(stager, from);
        break;
      }
    }
  }
}

function sameGraph(a: GraphRef, b: GraphRef): boolean {
  return a.termType === b.termType && a.value === b.value;
}

/** Graph ids a CLEAR/DROP target denotes. */
function targetGraphs(stager: Stager, target: 'default' | 'named' | 'all' | NamedNode, silent: boolean): number[] {
  const named = stager.db.namedGraphs().filter((g) => g >= FIRST_NAMED_GRAPH);
  if (target === 'default') return [0];
  if (target === 'named') return named;
  if (target === 'all') return [0, ...named];
  const g = stager.existingGraphId(target);
  if (g === undefined) {
    if (silent) return [];
    throw badRequest(`graph <${target.value}> does not exist`);
  }
  return [g];
}

async function graphHasFacts(stager: Stager, g: number | undefined): Promise<boolean> {
  if (g === undefined) return false;
  for await (const b of stager.db.scan({ g })) if (b.n > 0) return true;
  return false;
}

/** Retract every fact of a graph (as seen by the current overlay). */
async function clearGraph(stager: Stager, g: number): Promise<void> {
  const dict = stager.db.dict;
  const facts: [NamedNode | BlankNode, NamedNode, Term, number][] = [];
  for await (const b of stager.db.scan({ g })) {
    for (let k = 0; k < b.n; k++) facts.push([dict.term(b.s[k]!) as NamedNode | BlankNode, dict.term(b.p[k]!) as NamedNode, dict.term(b.o[k]!), b.m[k]!]);
  }
  for (const [s, p, o, i] of facts) await stager.stage(g, s, p, o, i, false);
}

/** Assert every fact of graph `from` into graph `to`. */
async function copyGraph(stager: Stager, from: number, to: GraphRef): Promise<void> {
  const dict = stager.db.dict;
  const quads: TxnQuad[] = [];
  for await (const b of stager.db.scan({ g: from })) {
    for (let k = 0; k < b.n; k++) {
      const q: TxnQuad = { subject: dict.term(b.s[k]!) as NamedNode | BlankNode, predicate: dict.term(b.p[k]!) as NamedNode, object: dict.term(b.o[k]!), graph: to };
      if (b.m[k]! >= 0) q.listIndex = b.m[k]!;
      quads.push(q);
    }
  }
  for (const q of quads) await stager.assert(q);
}
