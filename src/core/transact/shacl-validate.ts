/**
 * SHACL validation of a write (docs/shacl.md). The state after a transaction is checked against the
 * shapes the ledger holds in that state, by rdf-validate-shacl over a synchronous dataset view of
 * the snapshot's default graph. Only what the transaction can have changed is checked: the nodes it
 * touched, and the nodes that reach them within the shapes' reach along the shapes' path
 * predicates; a transaction that changes the shapes themselves re-validates every target. A
 * violation is a 422 `err:db/ConstraintViolation` naming focus node, path and constraint.
 */
import type * as RDF from '@rdfjs/types';
import { DataFactory } from 'n3';
import type SHACLValidator from 'rdf-validate-shacl';
import type { ValidationResult } from 'rdf-validate-shacl/src/validation-report.js';
import { constraintViolation } from '../errors.js';
import { excerpt } from '../excerpt.js';
import type { Flake } from '../flake/flake.js';
import type { Db } from '../ledger/db.js';
import { DbDataset } from '../rdfjs/db-dataset.js';
import { toRdfJs } from '../rdfjs/terms.js';
import { RDFS, SHACL, rdf } from '../rdf/vocab.js';
import { isDictMiss } from '../index/dict.js';
import { mayHaveShapes, readShapes, termString, unsupportedComponents, validatorOf, type Shapes, type ShapeTargets } from './shacl-shapes.js';

const RDF_TYPE = DataFactory.namedNode(rdf.type);
const SUBCLASS = DataFactory.namedNode(RDFS + 'subClassOf');
const VIOLATION = SHACL + 'Violation';
/** Results named in the error message; the rest are counted. */
const NAMED_RESULTS = 3;

/** What one validation did, for tests and benchmarks. */
export interface ShaclOutcome {
  /** `none`: no shapes; `focus`: touched nodes only; `all`: the shapes changed, every target. */
  mode: 'none' | 'focus' | 'all';
  /** Focus node / shape pairs validated (focus mode). */
  checked: number;
  /** Runs over the dataset view (each after loading what the previous one missed). */
  runs: number;
}

/** Run synchronous reads over `ds` until a run misses nothing, loading misses between runs. */
async function untilComplete<T>(ds: DbDataset, run: () => T, signal?: AbortSignal): Promise<{ value: T; runs: number }> {
  for (let runs = 1; ; runs++) {
    let value: T;
    try {
      value = run();
    } catch (e) {
      // A term whose dictionary page is not loaded: load it and run again (each retry loads more).
      if (!isDictMiss(e)) throw e;
      await e.resolve();
      continue;
    }
    if (ds.misses.size === 0) return { value, runs };
    await ds.load(signal);
  }
}

/** Shapes graphs of snapshots validated before, so the next transaction on top reuses them. */
const known = new WeakMap<Db, Shapes | null>();

/**
 * Validate the snapshot `db` (the state after a transaction) given the transaction's facts
 * `events`; throws 422 on a violation. Costs one dictionary lookup when the ledger never held shapes.
 * `before` is the snapshot the transaction was staged on: when its shapes are known and the
 * transaction touches none of them, they are the shapes of `db` too, and are not read again.
 */
export async function checkShapes(db: Db, events: readonly Flake[], signal?: AbortSignal, before?: Db): Promise<ShaclOutcome> {
  if (!events.some((f) => f.g === 0) || !(await mayHaveShapes(db.dict))) return { mode: 'none', checked: 0, runs: 0 };
  const ids = events.filter((f) => f.g === 0);
  await db.dict.ensureIds([ids.map((f) => f.s), ids.map((f) => f.p), ids.map((f) => f.o)], ids.length);
  const own = events.filter((f) => f.g === 0).map((f) => ({
    s: toRdfJs(db.dict.term(f.s)), p: toRdfJs(db.dict.term(f.p)), o: toRdfJs(db.dict.term(f.o)),
  }));
  // A change to the shapes graph: a SHACL predicate, a fact of a shape's node, a type sh:….
  const touches = (sh: Shapes | null): boolean => own.some((f) => f.p.value.startsWith(SHACL)
    || (sh !== null && sh.nodes.has(termString(f.s))) || (f.p.value === rdf.type && f.o.value.startsWith(SHACL)));
  const ds = new DbDataset(db);
  const prior = before ? known.get(before) : undefined;
  let shapes: Shapes | null;
  let runs = 0;
  if (prior !== undefined && !touches(prior)) {
    shapes = prior;
  } else {
    const read = await untilComplete(ds, () => readShapes(ds), signal);
    shapes = read.value;
    runs = read.runs;
  }
  known.set(db, shapes);
  if (!shapes || shapes.targets.length === 0) return { mode: 'none', checked: 0, runs };
  const validator = validatorOf(shapes);
  // A shape the validator cannot evaluate is refused, not silently skipped.
  const unsupported = unsupportedComponents(validator);
  if (unsupported.length > 0) {
    throw constraintViolation(`SHACL: the ledger's shapes use ${unsupported.join(', ')}, which Ledgraph does not evaluate (SHACL Core only); nothing was written`);
  }
  const all = (prior !== undefined && prior !== null && touches(prior)) || touches(shapes);
  const current = shapes;
  let checked = 0;
  const done = await untilComplete(ds, () => {
    const engine = reset(validator, ds, current.recursive);
    if (all) {
      engine.validateAll(validator.$data);
    } else {
      const pairs = focusPairs(ds, current, own);
      checked = pairs.length;
      for (const [focus, shape] of pairs) validator.nodeConformsToShape(focus, shape, engine);
    }
    return engine.getReport();
  }, signal);
  const violations = done.value.results.filter((r) => r.severity?.value === VIOLATION);
  if (violations.length > 0) throw constraintViolation(describeViolations(violations, current));
  return { mode: all ? 'all' : 'focus', checked, runs: runs + done.runs };
}

/** The library's guard against endless recursion: per (focus, shape) check counts, kept as JSON keys. */
const RECURSION_GUARD = 50;

/**
 * Point the validator at `ds` with an empty report, and return its engine. The recursion guard
 * (about 15% of validation time) is on only for recursive shapes: without them nesting is bounded.
 */
function reset(v: SHACLValidator, ds: DbDataset, recursive: boolean): SHACLValidator['validationEngine'] {
  v.$data = v.factory.clownface({ dataset: ds });
  const engine = v.validationEngine;
  engine.initReport();
  engine.violationsCount = 0;
  engine.validationError = null;
  engine.nestedResults = {};
  engine.maxNodeChecks = recursive ? RECURSION_GUARD : 0;
  return engine;
}

/**
 * The (focus node, shape) pairs a transaction can have changed the outcome of: nodes it touched
 * (subjects; objects where an inverse path or `sh:targetObjectsOf` reads them), widened by
 * `shapes.hops` steps back along the shapes' path predicates, each with every shape targeting it.
 * Objects of rdf:type facts are not touched nodes: a class node's own shapes read its own facts.
 */
function focusPairs(ds: DbDataset, shapes: Shapes, own: { s: RDF.Term; p: RDF.Term; o: RDF.Term }[]): [RDF.Term, RDF.Term][] {
  const objectsOf = new Set(shapes.targets.flatMap((t) => t.objectsOf.map((x) => x.value)));
  const named = new Set(shapes.targets.flatMap((t) => t.nodes.map(termString)));
  // Each node with how many more hops back its change can matter: a changed rdf:type is read by
  // sh:class up to `hops.type` hops away, any other fact up to `hops.all`.
  const nodes = new Map<string, { term: RDF.Term; left: number }>();
  let frontier: { term: RDF.Term; left: number }[] = [];
  const add = (t: RDF.Term, left: number): void => {
    if (t.termType === 'Literal') return;
    const k = termString(t);
    const known = nodes.get(k);
    if (known && known.left >= left) return;
    const n = { term: t, left };
    nodes.set(k, n);
    if (left > 0) frontier.push(n);
  };
  for (const f of own) {
    const left = f.p.value === rdf.type ? shapes.hops.type : shapes.hops.all;
    add(f.s, left);
    if (shapes.inverse.has(f.p.value) || objectsOf.has(f.p.value) || named.has(termString(f.o))) add(f.o, left);
  }
  while (frontier.length > 0) {
    const from = frontier;
    frontier = [];
    for (const { term: x, left } of from) {
      for (const p of shapes.forward) for (const q of ds.match(null, DataFactory.namedNode(p), x)) add(q.subject, left - 1);
      for (const p of shapes.inverse) for (const q of ds.match(x, DataFactory.namedNode(p), null)) add(q.object, left - 1);
    }
  }
  const pairs: [RDF.Term, RDF.Term][] = [];
  for (const { term: node } of nodes.values()) {
    let classes: Set<string> | undefined;
    for (const t of shapes.targets) {
      if (!classes && t.classes.length > 0) classes = classesOf(ds, node);
      if (targets(ds, t, node, classes)) pairs.push([node, t.shape]);
    }
  }
  return pairs;
}

/** Whether `node` is a focus node of the shape in the current state. */
function targets(ds: DbDataset, t: ShapeTargets, node: RDF.Term, classes: Set<string> | undefined): boolean {
  if (t.nodes.some((n) => n.equals(node))) return true;
  if (classes && t.classes.some((c) => classes.has(c.value))) return true;
  if (t.subjectsOf.some((p) => ds.match(node, p, null).size > 0)) return true;
  return t.objectsOf.some((p) => ds.match(null, p, node).size > 0);
}

/** A node's classes with their superclasses (rdfs:subClassOf in the data, as SHACL's targetClass reads it). */
function classesOf(ds: DbDataset, node: RDF.Term): Set<string> {
  const out = new Set<string>();
  const todo = [...ds.match(node, RDF_TYPE, null)].map((q) => q.object);
  while (todo.length > 0) {
    const c = todo.pop()!;
    if (out.has(c.value)) continue;
    out.add(c.value);
    for (const q of ds.match(c, SUBCLASS, null)) todo.push(q.object);
  }
  return out;
}

/** `<iri>`, `_:b` or a literal, cut to an excerpt. */
function show(t: RDF.Term | null): string {
  return t ? excerpt(termString(t), 120) : '(none)';
}

/** A result path: an IRI, `^<iri>` for an inverse path, else the path node. */
function showPath(path: RDF.Term | null, shapes: Shapes): string {
  if (!path) return '(none)';
  if (path.termType === 'NamedNode') return show(path);
  const inv = shapes.quads.find((q) => q.subject.equals(path) && q.predicate.value === SHACL + 'inversePath');
  if (inv && inv.object.termType === 'NamedNode') return '^' + show(inv.object);
  return 'a complex path ' + show(path);
}

/** The error message: the first results with focus node, path, constraint and value. */
function describeViolations(rs: ValidationResult[], shapes: Shapes): string {
  const parts = rs.slice(0, NAMED_RESULTS).map((r) => {
    const component = r.sourceConstraintComponent?.value.replace(SHACL, 'sh:') ?? '(unknown)';
    const msg = r.message.map((m) => m.value).join('; ');
    const shape = r.sourceShape?.termType === 'NamedNode' ? ` of shape ${show(r.sourceShape)}` : '';
    return `focus node ${show(r.focusNode)}, path ${showPath(r.path, shapes)}: ${component}${shape}`
      + (r.value ? `, value ${show(r.value)}` : '') + (msg ? ` (${excerpt(msg, 200)})` : '');
  });
  const more = rs.length > NAMED_RESULTS ? `; and ${rs.length - NAMED_RESULTS} more` : '';
  return `SHACL violation: ${parts.join('; ')}${more}`;
}
