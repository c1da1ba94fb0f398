/**
 * SPARQL date/time functions (§17.4.5): component accessors on xsd:dateTime (and, as XPath
 * allows, xsd:date for the date parts and xsd:time for the time parts), TIMEZONE, TZ and NOW.
 */
import { decParse } from '../../rdf/decimal.js';
import { ExprError } from '../../rdf/expr-error.js';
import { type TemporalType, type TemporalValue, formatDuration, formatTemporal, parseTemporal, temporalFromDate, tzAsDuration } from '../../rdf/temporal.js';
import type { Term } from '../../rdf/terms.js';
import { decimalLiteral11, integerLiteral, parseLiteral, stringLiteral, typedLiteral } from '../../rdf/values.js';
import { XSDT } from '../../rdf/datatypes.js';
import { type FunctionDef, def, show } from './functions-common.js';

/** The date/time value of the argument if its type is one of `types`, with 24:00:00 rolled over. */
function temporalArg(t: Term, fname: string, types: readonly TemporalType[]): TemporalValue {
  const v = t.termType === 'Literal' ? parseLiteral(t) : undefined;
  if (!v || v.kind !== 'temporal' || !types.includes(v.type)) {
    throw new ExprError(`${fname}: expected ${types.map((x) => 'xsd:' + x).join(' or ')}, got ${show(t)}`);
  }
  return v.hour === 24 ? parseTemporal(v.type, formatTemporal(v))! : v;
}

const DATE_PARTS = ['dateTime', 'date'] as const;
const TIME_PARTS = ['dateTime', 'time'] as const;
const ANY = ['dateTime', 'date', 'time'] as const;

function accessor(fname: string, types: readonly TemporalType[], get: (v: TemporalValue) => number): FunctionDef {
  return def(1, 1, ([a]) => integerLiteral(get(temporalArg(a!, fname, types))));
}

/** The date/time-function entries of the registry. */
export const TEMPORAL_FUNCTIONS: Record<string, FunctionDef> = {
  year: accessor('YEAR', DATE_PARTS, (v) => v.year),
  month: accessor('MONTH', DATE_PARTS, (v) => v.month),
  day: accessor('DAY', DATE_PARTS, (v) => v.day),
  hours: accessor('HOURS', TIME_PARTS, (v) => v.hour),
  minutes: accessor('MINUTES', TIME_PARTS, (v) => v.minute),
  seconds: def(1, 1, ([a]) => {
    const v = temporalArg(a!, 'SECONDS', TIME_PARTS);
    // XSD 1.1 canonical decimal, like the numeric functions: whole seconds have no fraction ("1").
    return decimalLiteral11(decParse(v.second + (v.frac ? '.' + v.frac : ''))!);
  }),
  timezone: def(1, 1, ([a]) => {
    const v = temporalArg(a!, 'TIMEZONE', ANY);
    if (v.tz === undefined) throw new ExprError(`TIMEZONE: ${show(a!)} has no timezone`);
    return typedLiteral(formatDuration(tzAsDuration(v.tz)), XSDT.dayTimeDuration);
  }),
  tz: def(1, 1, ([a]) => {
    temporalArg(a!, 'TZ', ANY);
    // The timezone part exactly as written ("Z", "-08:00", "+00:00"), or "" when absent.
    const m = /(Z|[+-]\d{2}:\d{2})$/.exec(a!.value);
    return stringLiteral(m ? m[1]! : '');
  }),
  now: def(0, 0, (_args, ctx) => typedLiteral(formatTemporal(temporalFromDate(ctx.now)), XSDT.dateTime)),
};
