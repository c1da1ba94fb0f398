/**
 * SPARQL 1.1 Query Results JSON read as it arrives: the objects of `results.bindings` are cut out
 * of the text one at a time (a small scanner tracks strings, nesting and the `"bindings"` key),
 * so a remote result is never held whole. Each binding becomes a map of variable to term.
 */
import { badRequest } from '../../errors.js';
import { blankNode, literal, namedNode, type Term } from '../../rdf/terms.js';
import { rdf, xsd } from '../../rdf/vocab.js';
import { quote } from '../../excerpt.js';

/** One remote solution: variable name to term (unbound variables absent). */
export type RemoteSolution = Record<string, Term>;

interface JsonTerm { type?: string; value?: string; 'xml:lang'?: string; datatype?: string }

/** A SPARQL JSON term (`uri`, `literal`, `typed-literal`, `bnode`) as a term; `bnode` labels get `prefix`. */
export function jsonTerm(t: JsonTerm, bnodePrefix: string): Term {
  if (typeof t.value !== 'string') throw badRequest('invalid SPARQL JSON term: no value');
  switch (t.type) {
    case 'uri': return namedNode(t.value);
    case 'bnode': return blankNode(bnodePrefix + t.value);
    case 'literal': case 'typed-literal':
      if (t['xml:lang']) return literal(t.value, t['xml:lang']);
      if (t.datatype && t.datatype !== xsd.string && t.datatype !== rdf.langString) return literal(t.value, namedNode(t.datatype));
      return literal(t.value);
    default: throw badRequest(`invalid SPARQL JSON term type ${quote(t.type)}`);
  }
}

/**
 * The solutions of a SPARQL JSON results document, from its text chunks, in order: one array per
 * chunk that completed any (so a consumer can pass rows on as soon as the network delivers them).
 */
export async function* sparqlJsonSolutions(chunks: AsyncIterable<string>, bnodePrefix: string): AsyncIterable<RemoteSolution[]> {
  let buf = '';
  let pos = 0;
  let inString = false, escaped = false, strStart = -1;
  let lastString = '';
  let afterColonKey = '';
  let depth = 0;
  let bindingsDepth = -1;
  let objStart = -1;
  let done = false;
  for await (const chunk of chunks) {
    if (done) continue;
    buf += chunk;
    const ready: RemoteSolution[] = [];
    for (; pos < buf.length; pos++) {
      const ch = buf[pos]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (ch === '\\') escaped = true;
        else if (ch === '"') { inString = false; if (objStart < 0 && pos - strStart < 64) lastString = buf.slice(strStart + 1, pos); }
        continue;
      }
      switch (ch) {
        case '"': inString = true; strStart = pos; break;
        case ':': afterColonKey = lastString; break;
        case '[':
          depth++;
          if (bindingsDepth < 0 && afterColonKey === 'bindings') bindingsDepth = depth;
          break;
        case '{':
          depth++;
          if (depth === bindingsDepth + 1 && bindingsDepth > 0 && objStart < 0) objStart = pos;
          break;
        case '}':
          if (depth === bindingsDepth + 1 && objStart >= 0) {
            ready.push(toSolution(buf.slice(objStart, pos + 1), bnodePrefix));
            objStart = -1;
          }
          depth--;
          break;
        case ']':
          if (depth === bindingsDepth) { done = true; bindingsDepth = -1; }
          depth--;
          break;
        case ',': afterColonKey = ''; break;
        default: break;
      }
      if (done) break;
    }
    if (ready.length) yield ready;
    // Keep only the part of the buffer a pending object or string still needs.
    const keep = objStart >= 0 ? objStart : inString ? strStart : pos;
    if (keep > 0) {
      buf = buf.slice(keep);
      pos -= keep;
      if (objStart >= 0) objStart -= keep;
      if (strStart >= 0) strStart -= keep;
    }
  }
  if (!done && bindingsDepth >= 0) throw badRequest('the SPARQL JSON results ended before the bindings array closed');
}

function toSolution(text: string, bnodePrefix: string): RemoteSolution {
  let obj: Record<string, JsonTerm>;
  try {
    obj = JSON.parse(text) as Record<string, JsonTerm>;
  } catch {
    throw badRequest('invalid SPARQL JSON results: a binding is not valid JSON');
  }
  const out: RemoteSolution = {};
  for (const [name, t] of Object.entries(obj)) out[name] = jsonTerm(t, bnodePrefix);
  return out;
}
