/**
 * XSD date/time and duration values: parsing, canonical forms and the XSD partial order
 * (XML Schema 1.1 Part 2 §D, a value without timezone is compared as if it could be anywhere
 * from +14:00 to -14:00, so some comparisons are indeterminate).
 */
import { type Decimal, decAdd, decCompare, decFromBigInt, decNormalize, decParse, decToPlain, decTrunc, decSub, decIsZero, decNeg } from './decimal.js';

/** The date/time datatypes by local name. */
export type TemporalType = 'dateTime' | 'date' | 'time' | 'gYear' | 'gYearMonth' | 'gMonth' | 'gMonthDay' | 'gDay';
/** The duration datatypes by local name. */
export type DurationType = 'duration' | 'dayTimeDuration' | 'yearMonthDuration';

/**
 * A date/time value. Fields absent from the type get XPath's reference values (time: 1972-12-31;
 * gMonth: 1972; ...), so every type maps onto one timeline. `tz` is the offset in minutes.
 */
export interface TemporalValue {
  type: TemporalType;
  year: number; month: number; day: number;
  hour: number; minute: number; second: number;
  /** Fractional-second digits after the point, trailing zeros removed ('' when none). */
  frac: string;
  tz: number | undefined;
}

/** A duration: signed total months and signed total seconds (the two XSD components). */
export interface DurationValue { type: DurationType; months: number; seconds: Decimal }

const TZ = '(Z|[+-]\\d{2}:\\d{2})?';
const YEAR = '(-?(?:[1-9]\\d{4,}|\\d{4}))';
const RE: Record<TemporalType, RegExp> = {
  dateTime: new RegExp(`^${YEAR}-(\\d{2})-(\\d{2})T(\\d{2}):(\\d{2}):(\\d{2})(?:\\.(\\d+))?${TZ}$`),
  date: new RegExp(`^${YEAR}-(\\d{2})-(\\d{2})${TZ}$`),
  time: new RegExp(`^(\\d{2}):(\\d{2}):(\\d{2})(?:\\.(\\d+))?${TZ}$`),
  gYear: new RegExp(`^${YEAR}${TZ}$`),
  gYearMonth: new RegExp(`^${YEAR}-(\\d{2})${TZ}$`),
  gMonth: new RegExp(`^--(\\d{2})${TZ}$`),
  gMonthDay: new RegExp(`^--(\\d{2})-(\\d{2})${TZ}$`),
  gDay: new RegExp(`^---(\\d{2})${TZ}$`),
};

/** Days in a month of the proleptic Gregorian calendar (astronomical year numbering). */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function parseTz(s: string | undefined): number | undefined | null {
  if (s === undefined) return undefined;
  if (s === 'Z') return 0;
  const h = Number(s.slice(1, 3)), m = Number(s.slice(4, 6));
  if (m > 59 || h * 60 + m > 14 * 60) return null;
  return (s[0] === '-' ? -1 : 1) * (h * 60 + m);
}

/** Parse a lexical form of the given temporal type; undefined when invalid. */
export function parseTemporal(type: TemporalType, lex: string): TemporalValue | undefined {
  const m = RE[type].exec(lex);
  if (!m) return undefined;
  const v: TemporalValue = { type, year: 1972, month: 12, day: 31, hour: 0, minute: 0, second: 0, frac: '', tz: undefined };
  let i = 1;
  if (type === 'dateTime' || type === 'date' || type === 'gYear' || type === 'gYearMonth') v.year = Number(m[i++]);
  if (type === 'gYear' || type === 'gYearMonth' || type === 'gMonth') { v.month = 1; v.day = 1; }
  if (type === 'gDay') v.month = 12;
  if (type !== 'time' && type !== 'gYear' && type !== 'gDay') v.month = Number(m[i++]);
  if (type === 'dateTime' || type === 'date' || type === 'gMonthDay' || type === 'gDay') v.day = Number(m[i++]);
  if (type === 'dateTime' || type === 'time') {
    v.hour = Number(m[i++]); v.minute = Number(m[i++]); v.second = Number(m[i++]);
    v.frac = (m[i++] ?? '').replace(/0+$/, '');
  }
  const tz = parseTz(m[i]);
  if (tz === null) return undefined;
  v.tz = tz;
  if (v.month < 1 || v.month > 12) return undefined;
  // gMonthDay allows --02-29 (no year): check against a leap year.
  const dim = type === 'gMonthDay' || type === 'gDay' ? daysInMonth(2000, v.month) : daysInMonth(v.year, v.month);
  if (v.day < 1 || v.day > dim) return undefined;
  if (v.minute > 59 || v.second > 59) return undefined;
  if (v.hour === 24) {
    if (v.minute !== 0 || v.second !== 0 || v.frac !== '') return undefined;
  } else if (v.hour > 23) return undefined;
  return v;
}

/** Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The civil date of a day number (inverse of daysFromCivil). */
export function civilFromDays(z: number): { year: number; month: number; day: number } {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp + (mp < 10 ? 3 : -9);
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** Whole seconds since 1970-01-01T00:00:00 local to the value (timezone not applied). */
function localSeconds(v: TemporalValue): number {
  return daysFromCivil(v.year, v.month, v.day) * 86400 + v.hour * 3600 + v.minute * 60 + v.second;
}

function cmpFrac(a: string, b: string): number {
  const n = Math.max(a.length, b.length);
  const x = a.padEnd(n, '0'), y = b.padEnd(n, '0');
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Order two values of the same temporal type: -1, 0, 1, or undefined when the XSD partial order
 * leaves it indeterminate (exactly one has a timezone and they are within 14 hours).
 */
export function compareTemporal(a: TemporalValue, b: TemporalValue): number | undefined {
  const sa = localSeconds(a), sb = localSeconds(b);
  if ((a.tz === undefined) === (b.tz === undefined)) {
    const x = sa - (a.tz ?? 0) * 60, y = sb - (b.tz ?? 0) * 60;
    return x < y ? -1 : x > y ? 1 : cmpFrac(a.frac, b.frac);
  }
  const flip = a.tz === undefined;
  const [p, q, sp, sq] = flip ? [b, a, sb, sa] : [a, b, sa, sb];
  const P = sp - p.tz! * 60;
  const qEarliest = sq - 14 * 3600, qLatest = sq + 14 * 3600;
  let r: number | undefined;
  if (P < qEarliest || (P === qEarliest && cmpFrac(p.frac, q.frac) < 0)) r = -1;
  else if (P > qLatest || (P === qLatest && cmpFrac(p.frac, q.frac) > 0)) r = 1;
  return r === undefined ? undefined : flip ? -r : r;
}

/** A total-order key for ORDER BY: timeline seconds, treating a missing timezone as Z. */
export function temporalSortKey(v: TemporalValue): number {
  return localSeconds(v) - (v.tz ?? 0) * 60;
}

function pad(n: number, w: number): string {
  const s = String(Math.abs(n)).padStart(w, '0');
  return n < 0 ? '-' + s : s;
}

/** The timezone suffix in canonical form ('Z' for zero offset, '' when absent). */
export function formatTz(tz: number | undefined): string {
  if (tz === undefined) return '';
  if (tz === 0) return 'Z';
  const a = Math.abs(tz);
  return (tz < 0 ? '-' : '+') + pad(Math.floor(a / 60), 2) + ':' + pad(a % 60, 2);
}

/** Canonical lexical form: Z for +00:00, no trailing fraction zeros, 24:00:00 rolled to the next day. */
export function formatTemporal(v: TemporalValue): string {
  let { year, month, day, hour } = v;
  if (hour === 24) {
    hour = 0;
    if (v.type === 'dateTime') ({ year, month, day } = civilFromDays(daysFromCivil(year, month, day) + 1));
  }
  const time = pad(hour, 2) + ':' + pad(v.minute, 2) + ':' + pad(v.second, 2) + (v.frac ? '.' + v.frac : '');
  const date = pad(year, 4) + '-' + pad(month, 2) + '-' + pad(day, 2);
  const tz = formatTz(v.tz);
  switch (v.type) {
    case 'dateTime': return date + 'T' + time + tz;
    case 'date': return date + tz;
    case 'time': return time + tz;
    case 'gYear': return pad(year, 4) + tz;
    case 'gYearMonth': return pad(year, 4) + '-' + pad(month, 2) + tz;
    case 'gMonth': return '--' + pad(month, 2) + tz;
    case 'gMonthDay': return '--' + pad(month, 2) + '-' + pad(day, 2) + tz;
    case 'gDay': return '---' + pad(day, 2) + tz;
  }
}

/** A JS Date as an xsd:dateTime value in UTC (millisecond precision). */
export function temporalFromDate(d: Date): TemporalValue {
  const ms = d.getUTCMilliseconds();
  return {
    type: 'dateTime', year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(),
    hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds(),
    frac: ms ? String(ms).padStart(3, '0').replace(/0+$/, '') : '', tz: 0,
  };
}

const DUR_RE = /^(-)?P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d*)?|\.\d+)S)?)?$/;

/** Parse a duration lexical form of the given duration type; undefined when invalid. */
export function parseDuration(type: DurationType, lex: string): DurationValue | undefined {
  const m = DUR_RE.exec(lex);
  if (!m) return undefined;
  const [, neg, y, mo, d, h, mi, s] = m;
  if (y === undefined && mo === undefined && d === undefined && h === undefined && mi === undefined && s === undefined) return undefined;
  if (lex.includes('T') && h === undefined && mi === undefined && s === undefined) return undefined;
  if (type === 'dayTimeDuration' && (y !== undefined || mo !== undefined)) return undefined;
  if (type === 'yearMonthDuration' && (d !== undefined || lex.includes('T'))) return undefined;
  const months = Number(y ?? 0) * 12 + Number(mo ?? 0);
  const whole = BigInt(d ?? 0) * 86400n + BigInt(h ?? 0) * 3600n + BigInt(mi ?? 0) * 60n;
  let seconds = decAdd(decFromBigInt(whole), decParse(s === undefined ? '0' : s.startsWith('.') ? '0' + s : s)!);
  if (!Number.isSafeInteger(months)) return undefined;
  if (neg) seconds = decNeg(seconds);
  return { type, months: neg ? -months || 0 : months, seconds: decNormalize(seconds.mant, seconds.scale) };
}

/** Canonical lexical form (XSD 1.1): P1Y2M3DT4H5M6.5S, zero as PT0S (P0M for yearMonthDuration). */
export function formatDuration(v: DurationValue): string {
  const neg = v.months < 0 || v.seconds.mant < 0n;
  const months = Math.abs(v.months);
  const secs = v.seconds.mant < 0n ? decNeg(v.seconds) : v.seconds;
  if (months === 0 && decIsZero(secs)) return v.type === 'yearMonthDuration' ? 'P0M' : 'PT0S';
  let out = neg ? '-P' : 'P';
  const y = Math.floor(months / 12), mo = months % 12;
  if (y) out += y + 'Y';
  if (mo) out += mo + 'M';
  const whole = decTrunc(secs);
  const frac = decSub(secs, decFromBigInt(whole));
  const days = whole / 86400n, h = (whole % 86400n) / 3600n, mi = (whole % 3600n) / 60n, s = whole % 60n;
  if (days) out += days + 'D';
  if (h || mi || s || !decIsZero(frac)) {
    out += 'T';
    if (h) out += h + 'H';
    if (mi) out += mi + 'M';
    if (s || !decIsZero(frac)) out += decToPlain(decAdd(decFromBigInt(s), frac)) + 'S';
  }
  return out;
}

/** Equality of durations (op:duration-equal): both components equal. */
export function durationEquals(a: DurationValue, b: DurationValue): boolean {
  return a.months === b.months && decCompare(a.seconds, b.seconds) === 0;
}

/**
 * Order of durations: defined when one component is zero in both (yearMonth vs yearMonth,
 * dayTime vs dayTime); otherwise undefined (P1M vs P30D has no answer).
 */
export function compareDuration(a: DurationValue, b: DurationValue): number | undefined {
  if (decIsZero(a.seconds) && decIsZero(b.seconds)) return Math.sign(a.months - b.months);
  if (a.months === 0 && b.months === 0) return decCompare(a.seconds, b.seconds);
  return undefined;
}

/** A total-order key for ORDER BY: seconds with a month counted as 30.436875 days (the Gregorian mean). */
export function durationSortKey(v: DurationValue): number {
  return v.months * 2629746 + Number(decToPlain(v.seconds));
}

/** The timezone offset as an xsd:dayTimeDuration value. */
export function tzAsDuration(tz: number): DurationValue {
  return { type: 'dayTimeDuration', months: 0, seconds: decFromBigInt(BigInt(tz * 60)) };
}
