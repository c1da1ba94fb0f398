/**
 * GraphQL `where` / `orderBy` / paging arguments compiled into a JSON-LD query object (graphql.md
 * §9, §10): the type pattern, one `exists` group per field condition, `union` for OR, `not-exists`
 * for NOT. The object is what runs (through the JSON-LD query compiler) and what explain shows.
 */
import { LedgraphError } from '../../errors.js';
import type { ActiveContext } from '../../rdf/jsonld-context.js';
import { XSD } from '../../rdf/vocab.js';
import type { FieldModel, ScalarName } from './model.js';
import type { PublishedType } from './schema.js';

/** An execution error of a resolver (EXECUTION_ERROR in the response). */
export function executionError(message: string): LedgraphError {
  return new LedgraphError(400, 'err:db/BadRequest', message);
}

const DATATYPE: Partial<Record<ScalarName, string>> = { Long: XSD + 'integer', Decimal: XSD + 'decimal', Date: XSD + 'date', DateTime: XSD + 'dateTime', Time: XSD + 'time' };
const COMPARE: Record<string, string> = { EQ: '=', NEQ: '!=', LT: '<', LTE: '<=', GT: '>', GTE: '>=' };

/** Builds the where clauses of one root field; variables `?v0`, `?v1`, … are unique per query. */
export class WhereBuilder {
  private n = 0;
  constructor(private readonly t: PublishedType, private readonly ctx: ActiveContext, private readonly expandId: (id: string) => string) {}

  /** The type pattern every query of this type starts with. */
  typePattern(): Record<string, unknown> {
    return { '@id': '?s', '@type': this.ctx.compactIri(this.t.cls, false) };
  }

  /** Clauses of a where object (fields and operators ANDed). */
  clauses(where: Record<string, unknown> | null | undefined): unknown[] {
    if (!where) return [];
    const out: unknown[] = [];
    for (const [key, value] of Object.entries(where)) {
      if (value === null || value === undefined) continue;
      if (key === 'AND') for (const w of value as Record<string, unknown>[]) out.push(...this.clauses(w));
      else if (key === 'OR') out.push(['union', ...(value as Record<string, unknown>[]).map((w) => [this.typePattern(), ...this.clauses(w)])]);
      else if (key === 'NOT') out.push(['not-exists', this.typePattern(), ...this.clauses(value as Record<string, unknown>)]);
      else if (key === 'id') out.push(...this.idClauses(value as Record<string, unknown>));
      else out.push(...this.fieldClauses(this.t.fields.get(key)!, value as Record<string, unknown>));
    }
    return out;
  }

  private iri(id: string): Record<string, string> {
    return { '@id': this.expandId(id) };
  }

  private idClauses(f: Record<string, unknown>): unknown[] {
    const out: unknown[] = [];
    if (f.EQ != null) out.push(['filter', ['=', '?s', this.iri(f.EQ as string)]]);
    if (f.IN != null) out.push(['filter', ['in', '?s', (f.IN as string[]).map((x) => this.iri(x))]]);
    if (f.EXISTS === false) out.push(['filter', ['=', 1, 0]]);
    return out;
  }

  private fieldClauses(field: FieldModel, f: Record<string, unknown>): unknown[] {
    const v = `?v${this.n++}`;
    const pattern = { '@id': '?s', [this.ctx.compactIri(field.property, false)]: v };
    const out: unknown[] = [];
    if (f.EXISTS === true) out.push(['exists', pattern]);
    if (f.EXISTS === false) out.push(['not-exists', pattern]);
    const conds: unknown[] = [];
    const text = field.kind === 'scalar' && (field.scalar === 'String' || field.mixed);
    const lhs = text ? ['str', v] : v;
    const c = (x: unknown): unknown => this.constant(field, x);
    for (const op of Object.keys(f)) {
      const x = f[op];
      if (x === null || x === undefined || op === 'EXISTS' || op === 'lang') continue;
      if (COMPARE[op]) conds.push([COMPARE[op], lhs, c(x)]);
      else if (op === 'IN') conds.push(['in', lhs, (x as unknown[]).map(c)]);
      else if (op === 'NIN') conds.push(['not-in', lhs, (x as unknown[]).map(c)]);
      else {
        const pattern = x as string;
        try { new RegExp(pattern, 'u'); } catch (e) { throw executionError(`invalid regular expression ${JSON.stringify(pattern)}: ${(e as Error).message}`); }
        const re = op === 'IRE' || op === 'NIRE' ? ['regex', lhs, { '@value': pattern }, 'i'] : ['regex', lhs, { '@value': pattern }];
        conds.push(op === 'NRE' || op === 'NIRE' ? ['not', re] : re);
      }
    }
    const lang = typeof f.lang === 'string' ? f.lang.split(',').map((r) => r.trim()).filter((r) => r !== '') : [];
    if (conds.length || (lang.length && !lang.includes('*') && f.EXISTS !== false)) {
      if (lang.length && !lang.includes('*')) {
        const any = lang.map((r) => ['langmatches', ['lang', v], { '@value': r }]);
        conds.unshift(any.length === 1 ? any[0] : ['||', ...any]);
      }
      out.push(['exists', pattern, ...conds.map((e) => ['filter', e])]);
    }
    return out;
  }

  /** A GraphQL input value as a JSON-LD expression constant of the field's type. */
  private constant(field: FieldModel, x: unknown): unknown {
    if (field.kind === 'ref') return this.iri(String(x));
    const dt = DATATYPE[field.scalar];
    if (dt) return { '@value': String(x), '@type': dt };
    if (typeof x === 'string') return { '@value': x };
    return x;
  }
}

/**
 * The JSON-LD `orderBy` of a root list (§9): items in sequence, each single-valued field bound by
 * an optional pattern (subjects without a value sort first in ASC); `id` ascending breaks ties.
 */
export function rootOrder(t: PublishedType, ctx: ActiveContext, orderBy: { field: string; direction: string }[] | null | undefined): { patterns: unknown[]; keys: unknown } {
  const keys: unknown[] = [], patterns: unknown[] = [];
  let idDone = false;
  for (const [i, o] of (orderBy ?? []).entries()) {
    const dir = (v: string) => (o.direction === 'DESC' ? ['desc', v] : v);
    if (o.field === 'id') { keys.push(dir('?s')); idDone = true; break; }
    const f = t.fields.get(o.field)!;
    patterns.push(['optional', { '@id': '?s', [ctx.compactIri(f.property, false)]: `?o${i}` }]);
    keys.push(dir(`?o${i}`));
  }
  if (!idDone) keys.push('?s');
  return { patterns, keys: keys.length === 1 ? keys[0] : keys };
}

/** A non-negative integer argument, else EXECUTION_ERROR. */
export function nonNegative(name: string, v: unknown): number | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v !== 'number' || v < 0) throw executionError(`${name} must not be negative (got ${String(v)})`);
  return v;
}
