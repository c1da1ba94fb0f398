/**
 * The three procedures of the subset (cypher.md §5): the names of labels, relationship types and
 * property keys in the default graph, sorted. Each is one algebra query on the engine.
 */
import type { Expr as AExpr, Op } from '../algebra/algebra.js';
import { literal, namedNode, variable } from '../../rdf/terms.js';
import { F } from '../../rdf/vocab.js';
import type { Env } from './eval.js';
import { F_NODE, RDF_TYPE } from './graph.js';

const call = (fn: string, ...args: AExpr[]): AExpr => ({ type: 'call', fn, args });
const vx = (name: string): AExpr => ({ type: 'var', name });
const notF = (x: string): AExpr => call('!', call('strstarts', call('str', vx(x)), { type: 'term', term: literal(F) }));

/** Run a procedure: its one column's values. */
export async function procedure(proc: 'db.labels' | 'db.relationshiptypes' | 'db.propertykeys', env: Env): Promise<string[]> {
  const s = variable('s'), p = variable('p'), o = variable('o');
  let op: Op;
  let col: string;
  if (proc === 'db.labels') {
    col = 'o';
    op = { type: 'filter', expr: call('&&', call('isiri', vx('o')), call('!=', vx('o'), { type: 'term', term: namedNode(F_NODE) })),
      input: { type: 'bgp', patterns: [{ s, p: namedNode(RDF_TYPE), o }] } };
  } else {
    col = 'p';
    const lit = call('isliteral', vx('o'));
    op = { type: 'filter', expr: call('&&', call('&&', proc === 'db.propertykeys' ? lit : call('!', lit), call('!=', vx('p'), { type: 'term', term: namedNode(RDF_TYPE) })), notF('p')),
      input: { type: 'bgp', patterns: [{ s, p, o }] } };
  }
  const rows = await env.g.select({ type: 'distinct', input: { type: 'project', variables: [col], input: op } }, [col]);
  return [...new Set(rows.map((r) => env.names.name(r[col]!.value)))].sort();
}
