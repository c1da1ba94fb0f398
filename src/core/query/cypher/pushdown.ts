/**
 * WHERE conjuncts pushed into a MATCH's algebra as pre-filters, so the engine prunes rows before the
 * Cypher layer evaluates them (`p.price > $x`, `p.n1 < o.n1 + 120`, `p.name IS NOT NULL`). A pushed filter is only a
 * necessary condition: a row it keeps is still checked by the exact Cypher evaluation, and it drops
 * a row only when Cypher could not have found the conjunct true — the properties are present, every
 * value involved is numeric (where SPARQL and Cypher arithmetic and comparison agree), and the
 * comparison is false. Non-numeric or multi-valued properties keep the row for Cypher to decide.
 * The property reads become ordinary triple patterns, so the planner joins them as SPARQL's would.
 */
import type { Expr as AExpr, TriplePattern } from '../algebra/algebra.js';
import { literal, namedNode, variable } from '../../rdf/terms.js';
import { XSD } from '../../rdf/vocab.js';
import type { Expr } from './ast.js';
import type { Names } from './names.js';
import type { Value } from './values.js';

type Row = Map<string, Value>;

const COMPARE: Record<string, string> = { '<': '<', '<=': '<=', '>': '>', '>=': '>=', '=': '=' };
const ARITH = new Set(['+', '-', '*']);

function conjuncts(e: Expr, out: Expr[]): void {
  if (e.k === 'op' && e.op === 'AND') { conjuncts(e.args[0]!, out); conjuncts(e.args[1]!, out); } else out.push(e);
}

/** A pushed conjunct: triple patterns reading the properties, and the filter over them. */
export interface Pushed { patterns: TriplePattern[]; expr: AExpr }

/**
 * The pre-filters of `where` over node variables of the MATCH (`nodeVar`: Cypher name → algebra
 * variable); `ev` evaluates parameters. The caller joins the patterns, applies the filters, and
 * projects the property variables away again with DISTINCT, which keeps the MATCH's own solutions
 * (a set) exactly: only those with some property values satisfying the filter remain.
 */
export async function pushdownFilters(where: Expr | undefined, nodeVar: Map<string, string>, names: Names, ev: (e: Expr, row: Row) => Promise<Value>): Promise<Pushed[]> {
  if (!where) return [];
  const parts: Expr[] = [];
  conjuncts(where, parts);
  const out: Pushed[] = [];
  let k = 0;
  for (const c of parts) {
    // `n.k IS NOT NULL` holds exactly when the node has a literal value for k.
    if (c.k === 'op' && c.op === 'IS NOT NULL' && c.args[0]!.k === 'prop' && c.args[0]!.of.k === 'var' && nodeVar.has(c.args[0]!.of.name) && c.args[0]!.key !== '@id') {
      const v = `pd${k++}_0`;
      out.push({
        patterns: [{ s: variable(nodeVar.get(c.args[0]!.of.name)!), p: namedNode(names.iri(c.args[0]!.key)), o: variable(v) }],
        expr: { type: 'call', fn: 'isliteral', args: [{ type: 'var', name: v }] },
      });
      continue;
    }
    if (c.k !== 'op' || !COMPARE[c.op]) continue;
    const props: { av: string; iri: string; v: string }[] = [];
    let numericConst = false;
    const tr = async (e: Expr): Promise<AExpr | null> => {
      switch (e.k) {
        case 'lit': case 'param': {
          const x = e.k === 'lit' ? (e.v as Value) : await ev(e, new Map()).catch(() => undefined);
          if (typeof x === 'bigint') { numericConst = true; return { type: 'term', term: literal(x.toString(), XSD + 'integer') }; }
          if (typeof x === 'number' && Number.isFinite(x)) { numericConst = true; return { type: 'term', term: literal(String(x), XSD + 'double') }; }
          return null;
        }
        case 'prop': {
          if (e.of.k !== 'var' || !nodeVar.has(e.of.name) || e.key === '@id') return null;
          const v = `pd${k}_${props.length}`;
          props.push({ av: nodeVar.get(e.of.name)!, iri: names.iri(e.key), v });
          return { type: 'var', name: v };
        }
        case 'op': {
          if (e.op === 'neg') { const a = await tr(e.args[0]!); return a && { type: 'call', fn: '-', args: [a] }; }
          if (!ARITH.has(e.op)) return null;
          const a = await tr(e.args[0]!), b = await tr(e.args[1]!);
          return a && b ? { type: 'call', fn: e.op, args: [a, b] } : null;
        }
        default: return null;
      }
    };
    const l = await tr(c.args[0]!), r = await tr(c.args[1]!);
    if (!l || !r || !props.length || !numericConst) continue;
    const cmp: AExpr = { type: 'call', fn: COMPARE[c.op]!, args: [l, r] };
    const allNumeric = props.map((p): AExpr => ({ type: 'call', fn: 'isnumeric', args: [{ type: 'var', name: p.v }] }))
      .reduce((a, b) => ({ type: 'call', fn: '&&', args: [a, b] }));
    out.push({
      patterns: props.map((p) => ({ s: variable(p.av), p: namedNode(p.iri), o: variable(p.v) })),
      expr: { type: 'call', fn: '||', args: [{ type: 'call', fn: '!', args: [allNumeric] }, cmp] },
    });
    k++;
  }
  return out;
}
