/**
 * The shaped tier (graphql.md §7): SHACL node shapes with `sh:targetClass` read from the default
 * graph (root view) and applied to the inferred model — cardinality, datatypes, `sh:in` enums,
 * reverse fields, descriptions and closed types. Several shapes on one class merge (minCount max,
 * maxCount min, closed if any; disagreeing datatypes → String with a warning).
 */
import type { DbView } from '../../index/view.js';
import { keyToTerm, type Term } from '../../rdf/terms.js';
import { RDFS, SHACL, rdf } from '../../rdf/vocab.js';
import { publishableClass, scalarOf, type ClassModel, type FieldModel, type InferredModel } from './model.js';

const SH = (l: string) => SHACL + l;

interface PropShape { path: string; inverse: boolean; datatype: string[]; minCount: number; maxCount: number; cls?: string; iri: boolean; inList?: Term[]; name?: string; description?: string }

/** Read every term object of (s, p) in the default graph. */
async function objects(view: DbView, s: number, p: string): Promise<Term[]> {
  const pid = await view.dict.lookupKey(p);
  if (pid === undefined) return [];
  const out: Term[] = [];
  for await (const b of view.scan({ g: 0, s, p: pid })) for (let i = 0; i < b.n; i++) out.push(keyToTerm(view.dict.key(b.o[i]!)));
  return out;
}

async function idOf(view: DbView, t: Term): Promise<number | undefined> {
  return await view.dict.lookupKey(t.termType === 'BlankNode' ? '_:' + t.value : t.termType === 'NamedNode' ? t.value : '');
}

/** An RDF list (`rdf:first`/`rdf:rest`), or the values in list order when stored as an ordered multi-valued property. */
async function listOf(view: DbView, s: number, p: string): Promise<Term[]> {
  const heads = await objects(view, s, p);
  if (heads.length !== 1 || heads[0]!.termType === 'Literal') return heads;
  const out: Term[] = [];
  let node: Term | undefined = heads[0];
  for (let guard = 0; node && node.termType !== 'Literal' && node.value !== rdf.nil && guard < 10_000; guard++) {
    const id = await idOf(view, node);
    if (id === undefined) break;
    const first = await objects(view, id, rdf.first);
    if (!first.length) return heads;
    out.push(first[0]!);
    node = (await objects(view, id, rdf.rest))[0];
  }
  return out;
}

/** Text in the preferred language: `en`, then untagged, then the lowest tag (§7). */
function preferred(ts: Term[]): string | undefined {
  const lits = ts.filter((t): t is Extract<Term, { termType: 'Literal' }> => t.termType === 'Literal');
  const en = lits.find((t) => t.language === 'en') ?? lits.find((t) => t.language === '') ?? [...lits].sort((a, b) => (a.language < b.language ? -1 : 1))[0];
  return en?.value;
}

const num = (ts: Term[]): number | undefined => (ts[0]?.termType === 'Literal' ? Number(ts[0].value) : undefined);

/** True when the snapshot holds a node shape with a target class (the shaped tier applies). */
export async function applyShapes(root: DbView, model: InferredModel, restricted: boolean): Promise<boolean> {
  const target = await root.dict.lookupKey(SH('targetClass'));
  if (target === undefined) return false;
  const byClass = new Map<string, number[]>();
  for await (const b of root.scan({ g: 0, p: target })) {
    for (let i = 0; i < b.n; i++) {
      const c = root.dict.key(b.o[i]!);
      if (!publishableClass(c)) continue;
      (byClass.get(c) ?? byClass.set(c, []).get(c)!).push(b.s[i]!);
    }
  }
  if (!byClass.size) return false;
  for (const [c, shapes] of byClass) {
    let cls = model.classes.find((k) => k.iri === c);
    if (!cls) {
      // Declared types without data are published; a class whose instances the caller cannot read is not (§3.1).
      if (restricted && await hasInstance(root, c)) continue;
      model.classes.push(cls = { iri: c, instances: 0, fields: [] });
    }
    await shapeClass(root, cls, shapes, model, restricted);
  }
  return true;
}

async function hasInstance(root: DbView, c: string): Promise<boolean> {
  const type = await root.dict.lookupKey(rdf.type), cid = await root.dict.lookupKey(c);
  if (type === undefined || cid === undefined) return false;
  for await (const b of root.scan({ g: 0, p: type, o: cid })) if (b.n) return true;
  return false;
}

/** Some instance of `c` has a value of `p` in the unrestricted snapshot. */
async function rootHasValues(root: DbView, c: string, p: string): Promise<boolean> {
  const type = await root.dict.lookupKey(rdf.type), cid = await root.dict.lookupKey(c), pid = await root.dict.lookupKey(p);
  if (type === undefined || cid === undefined || pid === undefined) return false;
  for await (const b of root.scan({ g: 0, p: type, o: cid })) {
    for (let i = 0; i < b.n; i++) for await (const v of root.scan({ g: 0, s: b.s[i]!, p: pid })) if (v.n) return true;
  }
  return false;
}

async function shapeClass(root: DbView, cls: ClassModel, shapes: number[], model: InferredModel, restricted: boolean): Promise<void> {
  let closed = false;
  const props = new Map<string, PropShape>();
  for (const s of shapes) {
    if ((await objects(root, s, SH('closed'))).some((t) => t.value === 'true')) closed = true;
    const d = preferred(await objects(root, s, SH('description'))) ?? preferred(await objects(root, s, RDFS + 'comment'));
    if (d !== undefined && cls.description === undefined) cls.description = d;
    for (const ps of await objects(root, s, SH('property'))) {
      const id = await idOf(root, ps);
      if (id === undefined) continue;
      const p = await readProperty(root, id);
      if (!p) continue;
      const key = (p.inverse ? '^' : '') + p.path;
      const prev = props.get(key);
      props.set(key, prev ? merge(prev, p) : p);
    }
  }
  if (cls.description === undefined) {
    const cid = await root.dict.lookupKey(cls.iri);
    if (cid !== undefined) cls.description = preferred(await objects(root, cid, RDFS + 'comment'));
  }
  const inferred = new Map(cls.fields.map((f) => [f.property, f]));
  const fields: FieldModel[] = [];
  for (const p of props.values()) {
    const observed = p.inverse ? undefined : inferred.get(p.path);
    if (restricted && !p.inverse && !observed && await rootHasValues(root, cls.iri, p.path)) continue;
    fields.push(await declaredField(root, cls, p, observed, model));
  }
  if (!closed) for (const f of cls.fields) if (!props.has(f.property)) fields.push({ ...f, provenance: 'inferred' });
  cls.fields = fields;
  // Observed-value warnings stay only for fields still typed from observed values as String.
  model.warnings = model.warnings.filter((w) => w.cls !== cls.iri || fields.some((f) => f.property === w.property && !f.reverse && f.kind === 'scalar' && f.scalar === 'String' && !f.enumValues));
}

function merge(a: PropShape, b: PropShape): PropShape {
  return {
    ...a, datatype: [...new Set([...a.datatype, ...b.datatype])], minCount: Math.max(a.minCount, b.minCount), maxCount: Math.min(a.maxCount, b.maxCount),
    cls: a.cls ?? b.cls, iri: a.iri || b.iri, inList: a.inList ?? b.inList, name: a.name ?? b.name, description: a.description ?? b.description,
  };
}

async function readProperty(root: DbView, id: number): Promise<PropShape | undefined> {
  const path = (await objects(root, id, SH('path')))[0];
  if (!path || path.termType === 'Literal') return undefined;
  let iri = path.value, inverse = false;
  if (path.termType === 'BlankNode') {
    const pid = await idOf(root, path);
    const inv = pid === undefined ? undefined : (await objects(root, pid, SH('inversePath')))[0];
    if (!inv || inv.termType !== 'NamedNode') return undefined;
    iri = inv.value;
    inverse = true;
  }
  const inList = (await objects(root, id, SH('in'))).length ? await listOf(root, id, SH('in')) : undefined;
  const cls = (await objects(root, id, SH('class')))[0];
  const p: PropShape = {
    path: iri, inverse, datatype: (await objects(root, id, SH('datatype'))).map((t) => t.value),
    minCount: num(await objects(root, id, SH('minCount'))) ?? 0, maxCount: num(await objects(root, id, SH('maxCount'))) ?? Infinity,
    iri: (await objects(root, id, SH('nodeKind'))).some((t) => t.value === SH('IRI')),
  };
  if (cls?.termType === 'NamedNode') p.cls = cls.value;
  if (inList) p.inList = inList;
  const name = preferred(await objects(root, id, SH('name')));
  if (name !== undefined) p.name = name;
  let description = preferred(await objects(root, id, SH('description')));
  if (description === undefined && !inverse) {
    const pid = await root.dict.lookupKey(iri);
    if (pid !== undefined) description = preferred(await objects(root, pid, RDFS + 'comment'));
  }
  if (description !== undefined) p.description = description;
  return p;
}

async function declaredField(_root: DbView, cls: ClassModel, p: PropShape, observed: FieldModel | undefined, model: InferredModel): Promise<FieldModel> {
  const f: FieldModel = { property: p.path, kind: 'scalar', target: null, scalar: 'String', lang: false, mixed: false, provenance: 'shaped' };
  if (p.name !== undefined) f.shapeName = p.name;
  if (p.description !== undefined) f.description = p.description;
  if (p.inverse) {
    f.reverse = true;
    f.kind = 'ref';
    f.target = p.cls ?? null;
    return f;
  }
  f.single = p.maxCount <= 1;
  f.required = p.minCount >= 1;
  const warn = (text: string) => model.warnings.push({ cls: cls.iri, property: p.path, text });
  if (p.cls !== undefined || p.iri) {
    f.kind = 'ref';
    f.target = p.cls ?? null;
  } else if (p.inList) {
    const values = p.inList.map((t) => (t.termType === 'Literal' && (t.datatype.value.endsWith('#string')) ? t.value : null));
    if (values.some((v) => v === null) || new Set(values).size !== values.length) warn('sh:in has duplicate or non-string members; typed String');
    else f.enumValues = values as string[];
  } else if (p.datatype.length === 1) {
    f.scalar = scalarOf(p.datatype[0]!);
    f.lang = p.datatype[0] === rdf.langString;
  } else if (p.datatype.length > 1) {
    warn('shapes disagree on sh:datatype; typed String');
  } else if (observed) {
    return { ...observed, single: f.single, required: f.required, provenance: 'shaped', ...(f.shapeName !== undefined ? { shapeName: f.shapeName } : {}), ...(f.description !== undefined ? { description: f.description } : {}) };
  }
  return f;
}
