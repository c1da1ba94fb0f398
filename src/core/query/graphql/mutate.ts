/**
 * Mutations (graphql.md §12): the root fields of one mutation document become one JSON-LD
 * transaction body (an insert when every field creates, else an update with `where` / `delete` /
 * `insert`), committed through the ordinary write pipeline by the caller. Checks (already exists,
 * not found) run against the snapshot before anything is written.
 */
import { LedgraphError } from '../../errors.js';
import type { DbView } from '../../index/view.js';
import { XSD, rdf } from '../../rdf/vocab.js';
import type { FieldModel } from './model.js';
import type { DerivedSchema, PublishedType } from './schema.js';

/**
 * The input types already hold writes to the published shapes (§7: non-null create inputs for
 * `sh:minCount >= 1`, single values for `sh:maxCount 1`, enums for `sh:in`, scalars for
 * datatypes); what they cannot express — removing every value of a required field, or an empty
 * list for it — is the shape violation of §12: 422 `err:db/ConstraintViolation`.
 */
function checkRequired(t: PublishedType, name: string, f: FieldModel, value: unknown): void {
  if (f.required && (value === null || (Array.isArray(value) && value.length === 0))) {
    throw new LedgraphError(422, 'err:db/ConstraintViolation', `${t.name}.${name} is required (sh:minCount ${'>='} 1): it cannot be left without a value`);
  }
}

/** A mutation root field that cannot run: its message, and whether it is an unsupported form. */
export class MutationError extends Error {
  constructor(message: string, readonly unsupported = false) { super(message); }
}

export interface MutationItem { key: string; name: string; args: Record<string, unknown> }
export interface MutationPlan { body: Record<string, unknown> | null; mode: 'insert' | 'update'; results: Map<string, { id: string; iri: string } | null> }

async function has(view: DbView, s: string, p?: string, o?: string): Promise<boolean> {
  const sid = await view.dict.lookupKey(s);
  const pid = p === undefined ? undefined : await view.dict.lookupKey(p);
  const oid = o === undefined ? undefined : await view.dict.lookupKey(o);
  if (sid === undefined || (p !== undefined && pid === undefined) || (o !== undefined && oid === undefined)) return false;
  for await (const b of view.scan({ g: 0, s: sid, ...(pid !== undefined ? { p: pid } : {}), ...(oid !== undefined ? { o: oid } : {}) })) if (b.n) return true;
  return false;
}

/** Build the one transaction of a mutation document; throws MutationError for the first failing field. */
export async function planMutations(d: DerivedSchema, view: DbView, fields: NonNullable<DerivedSchema['mutations']>, items: MutationItem[], onItem: (key: string) => void = () => {}): Promise<MutationPlan> {
  const ctx = d.ctx;
  const insertOnly = items.every((i) => fields.get(i.name)!.kind === 'create');
  const where: unknown[] = [], del: unknown[] = [], ins: Record<string, unknown>[] = [];
  const results = new Map<string, { id: string; iri: string } | null>();
  let n = 0;
  const idOf = (id: string): string => {
    if (id.startsWith('::')) throw new MutationError(`intra-mutation references (${id}) are not supported`, true);
    return ctx.expandIri(id, false);
  };
  for (const item of items) {
    onItem(item.key);
    const { t, kind } = fields.get(item.name)!;
    const id = String(kind === 'create' ? (item.args.input as Record<string, unknown>).id : item.args.id);
    const iri = idOf(id);
    const isInstance = () => has(view, iri, rdf.type, t.cls);
    if (kind === 'create') {
      if (await has(view, iri)) throw new MutationError(`${id} already exists`);
      const node: Record<string, unknown> = { '@id': id, '@type': ctx.compactIri(t.cls, false) };
      for (const [name, value] of Object.entries(item.args.input as Record<string, unknown>)) {
        if (name === 'id' || value === null || value === undefined) continue;
        const f = t.fields.get(name)!;
        checkRequired(t, name, f, value);
        node[ctx.compactIri(f.property, false)] = jsonValues(f, value, insertOnly, idOf);
      }
      ins.push(node);
      results.set(item.key, { id, iri });
    } else if (kind === 'update') {
      if (!await isInstance()) throw new MutationError(`${id} not found`);
      const node: Record<string, unknown> = { '@id': id };
      for (const [name, value] of Object.entries(item.args.input as Record<string, unknown>)) {
        if (value === undefined) continue;
        const f = t.fields.get(name)!;
        checkRequired(t, name, f, value);
        const p = ctx.compactIri(f.property, false);
        const v = `?u${n++}`;
        where.push(['optional', { '@id': id, [p]: v }]);
        del.push({ '@id': id, [p]: v });
        if (value !== null) node[p] = jsonValues(f, value, false, idOf);
      }
      if (Object.keys(node).length > 1) ins.push(node);
      results.set(item.key, { id, iri });
    } else {
      if (!await isInstance()) { results.set(item.key, null); continue; }
      const p = `?p${n}`, o = `?o${n++}`;
      where.push(['optional', { '@id': id, [p]: o }]);
      del.push({ '@id': id, [p]: o });
      results.set(item.key, { id, iri });
    }
  }
  if (!ins.length && !del.length) return { body: null, mode: 'update', results };
  if (insertOnly) return { body: { '@graph': ins }, mode: 'insert', results };
  return { body: { where, delete: del, insert: ins }, mode: 'update', results };
}

/** An input value (or list) as JSON-LD values of the field's type. */
function jsonValues(f: FieldModel, value: unknown, plainStrings: boolean, idOf: (id: string) => string): unknown {
  const one = (v: unknown): unknown => {
    if (f.kind === 'ref') { idOf(String(v)); return { '@id': String(v) }; }
    if (f.lang && typeof v === 'object' && v !== null) { const l = v as { value: string; lang: string }; return { '@value': l.value, '@language': l.lang }; }
    if (f.enumValues || f.mixed) return plainStrings ? v : { '@value': v };
    switch (f.scalar) {
      case 'Long': return Number.isSafeInteger(Number(v)) ? Number(v) : { '@value': String(v), '@type': XSD + 'integer' };
      case 'Decimal': return { '@value': String(v), '@type': XSD + 'decimal' };
      case 'Float': return { '@value': String(v), '@type': XSD + 'double' };
      case 'Boolean': return v;
      case 'Date': return { '@value': v, '@type': XSD + 'date' };
      case 'DateTime': return { '@value': v, '@type': XSD + 'dateTime' };
      case 'Time': return { '@value': v, '@type': XSD + 'time' };
      case 'JSON': return { '@value': v, '@type': '@json' };
      default: return plainStrings ? v : { '@value': v };
    }
  };
  return Array.isArray(value) ? value.map(one) : one(value);
}
