/**
 * Element nesting of XML text, measured in one linear scan before the RDF/XML parser runs: that
 * parser slows down quadratically with depth (3,000 nested elements took 3 s, 10,000 took 30 s),
 * so a document nested past --max-nesting-depth is refused first. The scan skips comments, CDATA,
 * processing instructions, declarations and quoted attribute values; text it cannot read is left
 * to the parser, which rejects it.
 */
import { inputLimits, shapeLimitError } from '../core/limits.js';

/** The deepest element nesting of `text`, giving up (returning a value above `limit`) once past it. */
export function xmlElementDepth(text: string, limit = Infinity): number {
  const n = text.length;
  let depth = 0, max = 0;
  let i = text.indexOf('<');
  while (i >= 0 && i < n) {
    let next: number;
    if (text.startsWith('<!--', i)) next = after(text, '-->', i + 4);
    else if (text.startsWith('<![CDATA[', i)) next = after(text, ']]>', i + 9);
    else if (text.startsWith('<?', i)) next = after(text, '?>', i + 2);
    else if (text.startsWith('<!', i)) {
      // <!DOCTYPE ... [ internal subset ] >: skip the subset as a whole.
      const close = text.indexOf('>', i);
      const open = text.indexOf('[', i);
      next = open >= 0 && (close < 0 || open < close) ? after(text, '>', after(text, ']', open)) : after(text, '>', i);
    } else {
      const end = tagEnd(text, i + 1);
      if (end < 0) break;
      if (text.charCodeAt(i + 1) === 47 /* / */) {
        if (depth > 0) depth--;
      } else if (text.charCodeAt(end - 1) !== 47 /* self-closing */ && ++depth > max && (max = depth) > limit) {
        return max;
      }
      next = end + 1;
    }
    if (next < 0) break;
    i = text.indexOf('<', next);
  }
  return max;
}

/** Index after `token` found from `from`, or -1. */
function after(text: string, token: string, from: number): number {
  if (from < 0) return -1;
  const j = text.indexOf(token, from);
  return j < 0 ? -1 : j + token.length;
}

/** Index of the `>` closing the tag whose name starts at `from`, skipping quoted attribute values; -1 if none. */
function tagEnd(text: string, from: number): number {
  let quote = 0;
  for (let j = from; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (quote) { if (c === quote) quote = 0; } else if (c === 34 || c === 39) quote = c;
    else if (c === 62 /* > */) return j;
  }
  return -1;
}

/** Refuse XML nested deeper than maxNestingDepth (400). */
export function checkXmlDepth(text: string, what = 'the RDF/XML document'): void {
  const limit = inputLimits().maxNestingDepth;
  if (xmlElementDepth(text, limit) > limit) throw shapeLimitError('maxNestingDepth', `${what} nests elements too deeply`);
}
