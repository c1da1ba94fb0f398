/**
 * JSON nesting limits. JSON.parse itself is iterative, but nearly everything after it recurses
 * (JSON-LD context and node processing, the query translators, canonical JSON, JSON.stringify),
 * so a body nested past maxJsonDepth is refused, from its text in one linear scan before parsing,
 * or from the value when it arrives already parsed.
 */
import { jsonParseError } from './errors.js';
import { capMessage } from './excerpt.js';
import { inputLimits, shapeLimitError } from './limits.js';

// The characters that matter outside strings.
const STRUCTURAL = /["[\]{}]/g;

/** The deepest array/object nesting of JSON text, giving up (returning a value above `limit`) once past it. */
export function jsonTextDepth(text: string, limit = Infinity): number {
  let depth = 0, max = 0;
  STRUCTURAL.lastIndex = 0;
  for (let m = STRUCTURAL.exec(text); m; m = STRUCTURAL.exec(text)) {
    const c = m[0];
    if (c === '"') {
      // Skip the string: the next quote not escaped by an odd run of backslashes.
      let j = m.index + 1;
      for (;;) {
        j = text.indexOf('"', j);
        if (j < 0) return max; // unterminated: JSON.parse reports it
        let k = j - 1;
        while (text.charCodeAt(k) === 92) k--;
        if ((j - 1 - k) % 2 === 0) break;
        j++;
      }
      STRUCTURAL.lastIndex = j + 1;
    } else if (c === '[' || c === '{') {
      if (++depth > max && (max = depth) > limit) return max;
    } else if (depth > 0) {
      depth--;
    }
  }
  return max;
}

/** The deepest array/object nesting of a parsed JSON value (iterative), giving up once past `limit`. */
export function jsonValueDepth(value: unknown, limit = Infinity): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    const depth = d + 1;
    if (depth > max && (max = depth) > limit) return max;
    for (const child of Array.isArray(v) ? v : Object.values(v as Record<string, unknown>)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth]);
    }
  }
  return max;
}

function tooDeep(what: string): Error {
  return shapeLimitError('maxJsonDepth', `${what} is nested too deeply in arrays and objects`);
}

/** Refuse JSON text nested deeper than maxJsonDepth (400). */
export function checkJsonTextDepth(text: string, what = 'the JSON body'): void {
  const limit = inputLimits().maxJsonDepth;
  if (jsonTextDepth(text, limit) > limit) throw tooDeep(what);
}

/** Refuse a parsed JSON value nested deeper than maxJsonDepth (400). */
export function checkJsonValueDepth(value: unknown, what = 'the JSON body'): void {
  const limit = inputLimits().maxJsonDepth;
  if (jsonValueDepth(value, limit) > limit) throw tooDeep(what);
}

/** JSON.parse after the depth check; invalid JSON is a 400 err:db/JsonParse with a short message. */
export function parseJsonWithinLimits(text: string, what = 'the JSON body'): unknown {
  checkJsonTextDepth(text, what);
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw jsonParseError(`invalid JSON: ${capMessage(e instanceof Error ? e.message : String(e))}`);
  }
}
