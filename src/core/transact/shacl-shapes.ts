/**
 * The ledger's SHACL shapes graph (docs/shacl.md): every shape in the default graph — nodes with a
 * target, nodes typed sh:NodeShape / sh:PropertyShape, and what they reference — read from a
 * snapshot as RDF/JS quads, plus what incremental validation needs to know about it: each shape's
 * targets, the predicates its paths walk, and how many hops from a focus node its constraints read.
 * rdf-validate-shacl's parsed validator is cached by the shapes' content, so a ledger parses its
 * shapes once per change of them, not once per transaction.
 */
import type * as RDF from '@rdfjs/types';
import { DataFactory } from 'n3';
import SHACLValidator from 'rdf-validate-shacl';
import type { TermDict } from '../index/dict.js';
import type { DbDataset } from '../rdfjs/db-dataset.js';
import { RDFS, SHACL, rdf } from '../rdf/vocab.js';

const sh = (l: string) => DataFactory.namedNode(SHACL + l);
const RDF_TYPE = DataFactory.namedNode(rdf.type);
const RDF_FIRST = DataFactory.namedNode(rdf.first);
const RDF_REST = DataFactory.namedNode(rdf.rest);
const RDF_NIL = DataFactory.namedNode(rdf.nil);
const TARGET_PREDICATES = ['targetClass', 'targetNode', 'targetSubjectsOf', 'targetObjectsOf'].map(sh);
const SHAPE_CLASSES = [sh('NodeShape'), sh('PropertyShape')];
/** Predicates whose object is an RDF list; JSON-LD `@list` values (ordered facts) are rebuilt as one. */
const LIST_PREDICATES = new Set(['in', 'ignoredProperties', 'languageIn', 'or', 'and', 'xone'].map((l) => SHACL + l));
/** Predicates whose IRI object is part of the shapes graph (blank node objects always are). */
const FOLLOW_IRI = new Set([...['property', 'node', 'qualifiedValueShape', 'not'].map((l) => SHACL + l), rdf.first, rdf.rest]);
/** Hops counted for unbounded paths and recursive shapes. */
export const MAX_HOPS = 8;
const CACHED_SHAPES = 16;

/** What selects a shape's focus nodes. */
export interface ShapeTargets {
  shape: RDF.Term;
  nodes: RDF.Term[];
  classes: RDF.Term[];
  subjectsOf: RDF.Term[];
  objectsOf: RDF.Term[];
}

/** The shapes graph of one snapshot. */
export interface Shapes {
  /** Canonical content (sorted N-Triples lines): the cache key. */
  key: string;
  quads: RDF.Quad[];
  /** Term keys of the shapes graph's subjects: a changed fact of one of them changes the shapes. */
  nodes: Set<string>;
  targets: ShapeTargets[];
  /** IRIs of predicates the shapes' paths walk forwards / backwards (`sh:inversePath`). */
  forward: Set<string>;
  inverse: Set<string>;
  /**
   * Most hops from a focus node to a node whose facts a constraint reads (`all`), or whose
   * rdf:type only it reads (`type`, sh:class), capped at MAX_HOPS.
   */
  hops: Hops;
  /** A shape reaches itself through sh:node, sh:property and the like (recursive shapes). */
  recursive: boolean;
}

/** Reach of a shape into the graph around its focus node. */
export interface Hops { all: number; type: number }

/** A stable string for an RDF/JS term (N-Triples-like). */
export function termString(t: RDF.Term): string {
  switch (t.termType) {
    case 'NamedNode': return `<${t.value}>`;
    case 'BlankNode': return `_:${t.value}`;
    case 'Literal': return JSON.stringify(t.value) + (t.language ? '@' + t.language : `^^<${t.datatype.value}>`);
    default: return t.termType;
  }
}

/**
 * False when the ledger cannot hold a shape that selects anything: none of the target predicates
 * and shape classes was ever written (a dictionary lookup; the zero-cost path for ledgers without shapes).
 */
export async function mayHaveShapes(dict: TermDict): Promise<boolean> {
  for (const t of [...TARGET_PREDICATES, ...SHAPE_CLASSES]) {
    // Synchronous while the dictionary pages it needs are resident (the usual case), else loads them.
    const id = dict.idOfKeySoon(t.value);
    if ((id instanceof Promise ? await id : id) !== undefined) return true;
  }
  return false;
}

/** Read the shapes graph from a snapshot (synchronous over `ds`: run until it has no misses). */
export function readShapes(ds: DbDataset): Shapes | null {
  const roots: RDF.Term[] = [];
  for (const p of TARGET_PREDICATES) for (const q of ds.match(null, p, null)) roots.push(q.subject);
  for (const c of SHAPE_CLASSES) for (const q of ds.match(null, RDF_TYPE, c)) roots.push(q.subject);
  if (roots.length === 0) return null;
  const quads: RDF.Quad[] = [];
  const seen = new Set<string>();
  const queue: RDF.Term[] = [];
  const visit = (t: RDF.Term): void => {
    if (t.termType === 'Literal' || t.equals(RDF_NIL)) return;
    const k = termString(t);
    if (!seen.has(k)) { seen.add(k); queue.push(t); }
  };
  roots.forEach(visit);
  let lists = 0;
  while (queue.length > 0) {
    const n = queue.shift()!;
    const ordered = new Map<string, RDF.Quad[]>();
    for (const q of ds.match(n, null, null)) {
      const p = q.predicate.value;
      if (LIST_PREDICATES.has(p) || (p === SHACL + 'path' && ds.listIndex.has(q))) {
        let l = ordered.get(p);
        if (!l) ordered.set(p, (l = []));
        l.push(q);
        continue;
      }
      quads.push(q);
      if (q.object.termType === 'BlankNode' || FOLLOW_IRI.has(p)) visit(q.object);
    }
    for (const [p, qs] of ordered) {
      const only = qs[0]!;
      if (qs.length === 1 && !ds.listIndex.has(only) && only.object.termType !== 'Literal'
        && (only.object.equals(RDF_NIL) || ds.match(only.object, RDF_FIRST, null).size > 0)) {
        quads.push(only); // already an rdf:first/rdf:rest list
        visit(only.object);
        continue;
      }
      // Ordered values (JSON-LD @list) or a plain multi-valued property: rebuild the list.
      const items = [...qs].sort((a, b) => (ds.listIndex.get(a) ?? 0) - (ds.listIndex.get(b) ?? 0)).map((q) => q.object);
      let head: RDF.Quad_Object = RDF_NIL;
      for (let i = items.length - 1; i >= 0; i--) {
        const cell = DataFactory.blankNode(`ledgraph-shacl-list-${lists++}`);
        quads.push(DataFactory.quad(cell, RDF_FIRST, items[i]!), DataFactory.quad(cell, RDF_REST, head));
        head = cell;
        if (items[i]!.termType !== 'Literal') visit(items[i]!);
      }
      quads.push(DataFactory.quad(n as RDF.Quad_Subject, DataFactory.namedNode(p), head));
    }
  }
  const key = quads.map((q) => `${termString(q.subject)} ${termString(q.predicate)} ${termString(q.object)}`).sort().join('\n');
  let shapes = described.get(key);
  if (shapes) {
    described.delete(key); // most recently used last
  } else {
    shapes = describe(quads, key);
  }
  described.set(key, shapes);
  while (described.size > CACHED_SHAPES) described.delete(described.keys().next().value!);
  return shapes;
}

/** Shapes graphs by content, so unchanged shapes are described and parsed once. */
const described = new Map<string, Shapes>();

/** Targets, path predicates and reach of a shapes graph. */
function describe(quads: RDF.Quad[], key: string): Shapes {
  const out = new Map<string, RDF.Quad[]>();
  for (const q of quads) {
    const k = termString(q.subject);
    let l = out.get(k);
    if (!l) out.set(k, (l = []));
    l.push(q);
  }
  const objs = (s: RDF.Term, p: string): RDF.Term[] => (out.get(termString(s)) ?? []).filter((q) => q.predicate.value === p).map((q) => q.object);
  const list = (head: RDF.Term): RDF.Term[] => {
    const items: RDF.Term[] = [];
    for (let node: RDF.Term | undefined = head, guard = 0; node && !node.equals(RDF_NIL) && guard < 100_000; guard++) {
      const first = objs(node, rdf.first);
      if (first.length === 0) break;
      items.push(first[0]!);
      node = objs(node, rdf.rest)[0];
    }
    return items;
  };
  const forward = new Set<string>(), inverse = new Set<string>();
  /** Path length in hops (MAX_HOPS when unbounded), recording the predicates it walks. */
  const pathLen = (path: RDF.Term, inv: boolean, depth = 0): number => {
    if (depth > 32) return MAX_HOPS;
    if (path.termType === 'NamedNode') { (inv ? inverse : forward).add(path.value); return 1; }
    if (objs(path, rdf.first).length > 0) return list(path).reduce((n, p) => n + pathLen(p, inv, depth + 1), 0);
    for (const p of objs(path, SHACL + 'inversePath')) return pathLen(p, !inv, depth + 1);
    for (const l of objs(path, SHACL + 'alternativePath')) return Math.max(0, ...list(l).map((p) => pathLen(p, inv, depth + 1)));
    for (const p of objs(path, SHACL + 'zeroOrOnePath')) return pathLen(p, inv, depth + 1);
    for (const k of ['zeroOrMorePath', 'oneOrMorePath']) for (const p of objs(path, SHACL + k)) { pathLen(p, inv, depth + 1); return MAX_HOPS; }
    return 0;
  };
  const visiting = new Set<string>();
  let recursive = false;
  /**
   * Hops from a shape's focus node to the farthest node whose facts its constraints read: a path of
   * length L reads facts of the nodes 0..L-1 hops out, sh:class the rdf:type of the value nodes
   * (L hops), a nested shape (sh:node, sh:property, logical, qualified) reads from its value nodes on.
   */
  const hopsOf = (shape: RDF.Term): Hops => {
    const k = termString(shape);
    if (visiting.has(k)) {
      recursive = true;
      return { all: MAX_HOPS, type: MAX_HOPS };
    }
    visiting.add(k);
    let len = 0;
    for (const p of objs(shape, SHACL + 'path')) len = Math.max(len, pathLen(p, false));
    let all = Math.max(0, len - 1);
    let type = all;
    if (objs(shape, SHACL + 'class').length > 0) type = Math.max(type, len);
    const children = ['node', 'qualifiedValueShape', 'not', 'property'].flatMap((l) => objs(shape, SHACL + l));
    for (const l of ['or', 'and', 'xone']) for (const head of objs(shape, SHACL + l)) children.push(...list(head));
    for (const c of children) {
      const h = hopsOf(c);
      all = Math.max(all, len + h.all);
      type = Math.max(type, len + h.type);
    }
    visiting.delete(k);
    return { all: Math.min(all, MAX_HOPS), type: Math.min(Math.max(type, all), MAX_HOPS) };
  };
  const targets: ShapeTargets[] = [];
  const hops: Hops = { all: 0, type: 0 };
  for (const [, qs] of out) {
    const shape = qs[0]!.subject;
    const t: ShapeTargets = {
      shape, nodes: objs(shape, SHACL + 'targetNode'), classes: objs(shape, SHACL + 'targetClass'),
      subjectsOf: objs(shape, SHACL + 'targetSubjectsOf'), objectsOf: objs(shape, SHACL + 'targetObjectsOf'),
    };
    // Implicit class target: a shape that is also an rdfs:Class targets its instances.
    const types = objs(shape, rdf.type).map((x) => x.value);
    if (types.includes(RDFS + 'Class') && types.some((x) => x === SHACL + 'NodeShape' || x === SHACL + 'PropertyShape')) t.classes.push(shape);
    if (t.nodes.length + t.classes.length + t.subjectsOf.length + t.objectsOf.length === 0) continue;
    targets.push(t);
    const h = hopsOf(shape);
    hops.all = Math.max(hops.all, h.all);
    hops.type = Math.max(hops.type, h.type);
  }
  // Every path in the graph counts, also of shapes only reached through sh:node and friends.
  for (const q of quads) if (q.predicate.value === SHACL + 'path') pathLen(q.object, false);
  return { key, quads, nodes: new Set(out.keys()), targets, forward, inverse, hops, recursive };
}

const validators = new WeakMap<Shapes, SHACLValidator>();

/** The parsed validator of a shapes graph (cached with the graph, by content). */
export function validatorOf(shapes: Shapes): SHACLValidator {
  let v = validators.get(shapes);
  if (!v) {
    v = new SHACLValidator({ size: shapes.quads.length, [Symbol.iterator]: () => shapes.quads[Symbol.iterator]() } as unknown as RDF.DatasetCore);
    validators.set(shapes, v);
  }
  return v;
}

/** Constraint components the shapes use that the validator cannot evaluate (SHACL-SPARQL, custom components). */
export function unsupportedComponents(v: SHACLValidator): string[] {
  const known = unsupported.get(v);
  if (known) return known;
  const out = new Set<string>();
  const PROPERTY = SHACL + 'PropertyConstraintComponent';
  for (const node of v.shapesGraph.shapeNodesWithConstraints) {
    for (const c of v.shapesGraph.getShape(node).constraints) {
      if (c.component.node.value !== PROPERTY && !c.validate) out.add(c.component.node.value.replace(SHACL, 'sh:'));
    }
  }
  const list = [...out].sort();
  unsupported.set(v, list);
  return list;
}
const unsupported = new WeakMap<SHACLValidator, string[]>();
