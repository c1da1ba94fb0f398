/**
 * The write side of one Cypher statement (cypher.md §7): it stages facts through the pipeline's
 * StageHandle (one transaction, one commit), mints node and reifier identities, converts values to
 * stored literals (§4), and keeps reads current: after a write, the next read rebases the
 * statement's Graph on the handle's overlay, so later clauses and rows see earlier writes.
 */
import { constraintViolation } from '../../errors.js';
import { blankNode, defaultGraph, literal, namedNode, variable, type BlankNode, type NamedNode, type Term } from '../../rdf/terms.js';
import { F, XSD } from '../../rdf/vocab.js';
import type { StageHandle } from '../../transact/txn-request.js';
import { cypherError } from './errors.js';
import { RDF_TYPE, REIFIES } from './graph.js';
import { toTerm } from './match.js';
import type { Env } from './props.js';
import type { NodeV, Value } from './values.js';

/** True when (p, o) is a relationship fact (§2): an IRI or blank-node object, not rdf:type, not f:. */
export function isRelationship(p: string, o: Term): boolean {
  return o.termType !== 'Literal' && p !== RDF_TYPE && !p.startsWith(F);
}

/** The stored literals of a value written as a property (§4); 400 TypeError for what cannot be stored. */
export function storedValues(v: Value, key: string): Term[] {
  if (v === null) return [];
  const one = (x: Value): Term => {
    if (x !== null && typeof x === 'object' && !Array.isArray(x) && x.t === 'decimal') return literal(x.lex, XSD + 'decimal');
    const t = toTerm(x);
    if (t === undefined) {
      const what = Array.isArray(x) ? 'a nested list' : x === null ? 'null inside a list' : typeof x === 'object' ? `a ${x.t === 'rel' ? 'relationship' : x.t}` : typeof x;
      throw cypherError('TypeError', `cannot store ${what} as the value of property ${key}`);
    }
    return t;
  };
  return Array.isArray(v) ? v.map(one) : [one(v)];
}

/** The primitives writing clauses use (write.ts runs the clauses themselves). */
export class Writer {
  private nodes = 0;
  private reifiers = 0;
  /** Nodes deleted without DETACH: checked for remaining relationships when the statement ends. */
  private readonly deleted: Term[] = [];

  constructor(private readonly h: StageHandle) {}

  /** The statement's environment, whose Graph `sync` rebases. */
  protected env: Env | undefined;

  /** Rebase the statement's reads on everything staged so far. */
  async sync(): Promise<void> { this.env?.g.rebase(await this.h.view()); }

  /** Attach the statement's environment. */
  bind(env: Env): void { this.env = env; }

  /** A new node's identity: `_:lg<T>-n<k>` (§2). */
  newNode(): BlankNode { return blankNode(`lg${this.h.t}-n${this.nodes++}`); }

  /** Stage `(s, p, o)` in the default graph. */
  assert(s: Term, p: string, o: Term): Promise<void> {
    return this.h.assert({ subject: s as NamedNode | BlankNode, predicate: namedNode(p), object: o, graph: defaultGraph });
  }
  /** Stage the retraction of `(s, p, o)`. */
  retract(s: Term, p: string, o: Term): Promise<void> {
    return this.h.retract({ subject: s as NamedNode | BlankNode, predicate: namedNode(p), object: o, graph: defaultGraph });
  }

  /** A new reifier `_:lg<T>-r<k>` of the base fact (s, p, o) (§2.1). */
  async newReifier(s: Term, p: string, o: Term): Promise<BlankNode> {
    const r = blankNode(`lg${this.h.t}-r${this.reifiers++}`);
    await this.assert(r, REIFIES.s, s);
    await this.assert(r, REIFIES.p, namedNode(p));
    await this.assert(r, REIFIES.o, o);
    return r;
  }

  /** Remember a node deleted without DETACH. */
  deletedNode(n: NodeV): void { this.deleted.push(n.id); }

  /**
   * End of statement: a node deleted without DETACH must have no relationship left, outgoing or
   * incoming, once every clause ran (so `DELETE r, n` works in either order); else 422, nothing written.
   */
  async finish(env: Env): Promise<void> {
    if (!this.deleted.length) return;
    await this.sync();
    for (const n of this.deleted) {
      let still = false;
      for (const [p, os] of await env.g.factsOf(n)) if (os.some((o) => isRelationship(p, o))) still = true;
      if (!still) {
        const rows = await env.g.select({ type: 'bgp', patterns: [{ s: variable('s'), p: variable('p'), o: n }] }, ['s', 'p']);
        still = rows.some((r) => isRelationship(r.p!.value, n));
      }
      if (still) throw constraintViolation(`Cannot delete node ${env.names.nodeId(n)}: it still has relationships; use DETACH DELETE`);
    }
  }
}
