/**
 * The built-in declarations every derived schema carries (graphql.md §5): the custom scalars with
 * their output rules (§11) and the filter input types (§10).
 */
import {
  GraphQLBoolean, GraphQLEnumType, GraphQLFloat, GraphQLID, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, GraphQLObjectType,
  GraphQLScalarType, GraphQLString, Kind, type GraphQLInputFieldConfigMap, type GraphQLInputType, type ValueNode,
} from 'graphql';
import type { ScalarName } from './model.js';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A Long as JSON: a number within ±(2^53−1), else a string of digits (§11). */
export function longOut(lexical: string): number | string {
  let n: bigint;
  try { n = BigInt(lexical.trim().replace(/^\+/, '')); } catch { return lexical; }
  return n > MAX_SAFE || n < -MAX_SAFE ? n.toString() : Number(n);
}

function longIn(v: unknown): string {
  if (typeof v === 'number' && Number.isInteger(v)) return String(v);
  if (typeof v === 'string' && /^[+-]?[0-9]+$/.test(v)) return v;
  throw new TypeError(`Long cannot represent ${JSON.stringify(v)}`);
}

function decimalIn(v: unknown): string {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'string' && /^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$/.test(v)) return v;
  throw new TypeError(`Decimal cannot represent ${JSON.stringify(v)}`);
}

function literalOf(node: ValueNode): unknown {
  switch (node.kind) {
    case Kind.INT: case Kind.FLOAT: return Number(node.value);
    case Kind.STRING: case Kind.ENUM: return node.value;
    case Kind.BOOLEAN: return node.value;
    case Kind.NULL: return null;
    case Kind.LIST: return node.values.map(literalOf);
    case Kind.OBJECT: return Object.fromEntries(node.fields.map((f) => [f.name.value, literalOf(f.value)]));
    default: return undefined;
  }
}

function stringScalar(name: string): GraphQLScalarType {
  const parse = (v: unknown): string => { if (typeof v !== 'string') throw new TypeError(`${name} must be a string`); return v; };
  return new GraphQLScalarType({
    name, serialize: (v) => v, parseValue: parse,
    parseLiteral: (n) => { if (n.kind !== Kind.STRING) throw new TypeError(`${name} must be a string`); return n.value; },
  });
}

export const Long = new GraphQLScalarType({
  name: 'Long', serialize: (v) => v, parseValue: longIn,
  parseLiteral: (n) => (n.kind === Kind.INT || n.kind === Kind.STRING ? longIn(n.kind === Kind.INT ? n.value : n.value) : longIn(undefined)),
});
export const Decimal = new GraphQLScalarType({
  name: 'Decimal', serialize: (v) => v, parseValue: decimalIn,
  parseLiteral: (n) => (n.kind === Kind.INT || n.kind === Kind.FLOAT || n.kind === Kind.STRING ? decimalIn(n.value) : decimalIn(undefined)),
});
export const DateScalar = stringScalar('Date');
export const DateTimeScalar = stringScalar('DateTime');
export const TimeScalar = stringScalar('Time');
export const JSONScalar = new GraphQLScalarType({ name: 'JSON', serialize: (v) => v, parseValue: (v) => v, parseLiteral: literalOf });

export const OrderDirection = new GraphQLEnumType({ name: 'OrderDirection', values: { ASC: {}, DESC: {} } });
export const Resource = new GraphQLObjectType({
  name: 'Resource',
  // The per-request resolvers (graphql-js context) turn a node into its compacted id.
  fields: { id: { type: new GraphQLNonNull(GraphQLID), resolve: (src: unknown, _a: unknown, r: { id(src: unknown): string }) => r.id(src) } },
});

const list = (t: GraphQLInputType) => new GraphQLList(new GraphQLNonNull(t));

function filterType(name: string, t: GraphQLInputType, ops: 'ordered' | 'string' | 'bool' | 'enum'): GraphQLInputObjectType {
  return new GraphQLInputObjectType({
    name,
    fields: () => {
      const f: GraphQLInputFieldConfigMap = {};
      if (name === 'LangStringFilter') f.lang = { type: GraphQLString };
      f.EQ = { type: t };
      f.NEQ = { type: t };
      if (ops !== 'bool') { f.IN = { type: list(t) }; f.NIN = { type: list(t) }; }
      if (ops === 'ordered' || ops === 'string') { f.LT = { type: t }; f.LTE = { type: t }; f.GT = { type: t }; f.GTE = { type: t }; }
      if (ops === 'string') { f.RE = { type: GraphQLString }; f.IRE = { type: GraphQLString }; f.NRE = { type: GraphQLString }; f.NIRE = { type: GraphQLString }; }
      f.EXISTS = { type: GraphQLBoolean };
      return f;
    },
  });
}

export const IDFilter = new GraphQLInputObjectType({ name: 'IDFilter', fields: { EQ: { type: GraphQLID }, IN: { type: list(GraphQLID) }, EXISTS: { type: GraphQLBoolean } } });
export const ExistsFilter = new GraphQLInputObjectType({ name: 'ExistsFilter', fields: { EXISTS: { type: GraphQLBoolean } } });

/** Scalars by name, and the filter of each (§9: JSON takes ExistsFilter). */
export const SCALARS: Record<ScalarName, GraphQLScalarType> = {
  String: GraphQLString, Long, Decimal, Float: GraphQLFloat, Boolean: GraphQLBoolean,
  Date: DateScalar, DateTime: DateTimeScalar, Time: TimeScalar, JSON: JSONScalar,
};
export const FILTERS: Record<ScalarName, GraphQLInputObjectType> = {
  String: filterType('StringFilter', GraphQLString, 'string'),
  Long: filterType('LongFilter', Long, 'ordered'),
  Decimal: filterType('DecimalFilter', Decimal, 'ordered'),
  Float: filterType('FloatFilter', GraphQLFloat, 'ordered'),
  Boolean: filterType('BooleanFilter', GraphQLBoolean, 'bool'),
  Date: filterType('DateFilter', DateScalar, 'ordered'),
  DateTime: filterType('DateTimeFilter', DateTimeScalar, 'ordered'),
  Time: filterType('TimeFilter', TimeScalar, 'ordered'),
  JSON: ExistsFilter,
};
export const LangStringFilter = filterType('LangStringFilter', GraphQLString, 'string');

/** Every §5 declaration, so each schema carries all of them whether used or not. */
export const PRELUDE_TYPES = [Long, Decimal, DateScalar, DateTimeScalar, TimeScalar, JSONScalar, OrderDirection, Resource, IDFilter, ExistsFilter,
  LangStringFilter, ...Object.values(FILTERS)];
