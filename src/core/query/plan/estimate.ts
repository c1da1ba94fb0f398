/**
 * Cardinality estimates for join ordering. Triple patterns ask the view (exact or near-exact for
 * their constants); a variable already bound divides by the distinct subjects, the best
 * distinct-count the statistics offer. Other operators get coarse structural estimates: the
 * orderer mostly needs to know which step is most selective next, not exact sizes.
 */
import type { ViewStats } from '../../index/view.js';
import type { Op } from '../algebra/algebra.js';

/** Expected rows per input row of a triple pattern whose constants match `card0` facts. */
export function tpFanout(card0: number, sBound: boolean, pBound: boolean, oBound: boolean, stats: ViewStats): number {
  let est = card0;
  const distinct = Math.max(1, Math.min(card0, stats.subjects));
  if (sBound) est /= Math.max(1, stats.subjects);
  if (oBound) est /= distinct;
  if (pBound) est /= 20;
  if (sBound && oBound) est = Math.min(est, 1);
  return Math.max(est, 1e-6);
}

/** A coarse standalone size of any operator (triple patterns use `tpCard`). */
export function opCard(op: Op, tpCard: (i: number, op: Extract<Op, { type: 'bgp' }>) => number): number {
  switch (op.type) {
    case 'bgp': {
      if (op.patterns.length === 0) return 1;
      let best = Infinity;
      for (let i = 0; i < op.patterns.length; i++) best = Math.min(best, tpCard(i, op));
      return best;
    }
    case 'path': return op.s.termType !== 'Variable' || op.o.termType !== 'Variable' ? 10 : 10_000;
    case 'join': return Math.min(...op.inputs.map((i) => opCard(i, tpCard)));
    case 'union': return op.inputs.reduce((n, i) => n + opCard(i, tpCard), 0);
    case 'leftjoin': case 'minus': return opCard(op.left, tpCard);
    case 'filter': return Math.max(1, opCard(op.input, tpCard) / 2);
    case 'extend': case 'graph': case 'orderby': case 'project': case 'distinct': case 'reduced':
      return opCard(op.input, tpCard);
    case 'group': return op.keys.length ? Math.max(1, opCard(op.input, tpCard) / 10) : 1;
    case 'slice': return Math.min(op.limit ?? Infinity, opCard(op.input, tpCard));
    case 'values': return op.rows.length;
    case 'unit': return 1;
    // Unknown remote size: planned late, after the local patterns that bind its variables.
    case 'service': return 100_000;
  }
}
