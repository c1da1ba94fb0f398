/**
 * Writing clauses (cypher.md §7) over the property-graph view: CREATE and MERGE (with ON CREATE /
 * ON MATCH), SET, REMOVE, DELETE and DETACH DELETE. Rows are processed one after another and every
 * read first syncs with the writes staged so far, so a later row sees an earlier row's CREATE or MERGE.
 */
import { blankNode, namedNode, variable, type Term } from '../../rdf/terms.js';
import { F } from '../../rdf/vocab.js';
import type { NodePat, PathPat, RelPat, RemoveItem, SetItem } from './ast.js';
import { cypherError } from './errors.js';
import { evaluate } from './eval.js';
import { F_NODE, RDF_TYPE } from './graph.js';
import { matchRows, type Row } from './match.js';
import { asNode, isObj, propsOf, type ClauseWriter, type Env } from './props.js';
import type { NodeV, RelV, Value } from './values.js';
import { isRelationship, storedValues, Writer } from './writer.js';

type WriteClause = Parameters<ClauseWriter['run']>[0];

/** The IRI of a property key written from Cypher: `f:reifies*` and `rdf:type` are refused (§2.1). */
function propIri(env: Env, key: string): string {
  const iri = env.names.iri(key);
  if (iri.startsWith(F + 'reifies')) throw cypherError('SemanticError', `${key}: f:reifies* facts cannot be written from Cypher`);
  if (iri === RDF_TYPE) throw cypherError('SemanticError', `${key}: rdf:type is written with labels (SET n:Label)`);
  return iri;
}

/** The IRI of a relationship type: `rdf:type` and `f:` predicates are never relationships (§2). */
function relIri(env: Env, type: string): string {
  const iri = env.names.iri(type);
  if (iri === RDF_TYPE || iri.startsWith(F)) throw cypherError('SemanticError', `${type} cannot be a relationship type (rdf:type and f: predicates are not relationships)`);
  return iri;
}

/** Runs the writing clauses of one statement. */
export class CypherWriter extends Writer implements ClauseWriter {
  async run(c: WriteClause, rows: Row[], env: Env): Promise<Row[]> {
    this.bind(env);
    switch (c.k) {
      case 'create': {
        const out: Row[] = [];
        for (const row of rows) {
          let r = row;
          for (const p of c.patterns) r = await this.createPath(p, r, env, false);
          out.push(r);
        }
        return out;
      }
      case 'merge': return this.merge(c, rows, env);
      case 'set':
        for (const row of rows) await this.setItems(c.items, row, env);
        return rows;
      case 'remove':
        for (const row of rows) for (const it of c.items) await this.remove(it, row, env);
        return rows;
      case 'delete':
        for (const row of rows) {
          for (const e of c.exprs) await this.delete(await evaluate(e, row, env), c.detach, env);
        }
        return rows;
    }
  }

  // ---- CREATE and MERGE

  private async createPath(p: PathPat, row: Row, env: Env, merging: boolean): Promise<Row> {
    await this.sync();
    const out = new Map(row);
    const nodes: NodeV[] = [];
    for (const n of p.nodes) nodes.push(await this.nodeFor(n, out, env));
    const rels: RelV[] = [];
    for (let i = 0; i < p.rels.length; i++) rels.push(await this.createRel(p.rels[i]!, nodes[i]!, nodes[i + 1]!, out, env, merging));
    if (p.pathVar) out.set(p.pathVar, { t: 'path', nodes, rels });
    return out;
  }

  /** A bound node, or a new one with its labels and properties (`@id` gives its IRI). */
  private async nodeFor(n: NodePat, row: Row, env: Env): Promise<NodeV> {
    if (n.v !== undefined && row.has(n.v)) {
      const v = row.get(n.v)!;
      const node = asNode(v);
      if (!node) throw cypherError('TypeError', `${n.v} is ${v === null ? 'null' : 'not a node'}: it cannot be a relationship endpoint`);
      return node;
    }
    let id: Term | undefined;
    const props: [string, Value][] = [];
    for (const [k, e] of n.props) {
      const v = await evaluate(e, row, env);
      if (k !== '@id') { props.push([k, v]); continue; }
      if (typeof v !== 'string') throw cypherError('TypeError', '`@id` must be a String');
      const iri = env.names.id(v);
      id = iri.startsWith('_:') ? blankNode(iri.slice(2)) : namedNode(iri);
    }
    id ??= this.newNode();
    let marked = n.labels.length > 0;
    for (const l of n.labels) await this.assert(id, RDF_TYPE, namedNode(env.names.iri(l)));
    for (const [k, v] of props) {
      const iri = propIri(env, k);
      for (const t of storedValues(v, k)) { await this.assert(id, iri, t); marked = true; }
    }
    // A node with neither labels nor properties would not exist in RDF: mark it (§2).
    if (!marked) await this.assert(id, RDF_TYPE, namedNode(F_NODE));
    const node: NodeV = { t: 'node', id };
    if (n.v !== undefined) row.set(n.v, node);
    return node;
  }

  private async createRel(r: RelPat, a: NodeV, b: NodeV, row: Row, env: Env, merging: boolean): Promise<RelV> {
    const what = merging ? 'MERGE' : 'CREATE';
    if (r.range) throw cypherError('SemanticError', `${what} cannot make a variable-length relationship`);
    if (r.types.length !== 1) throw cypherError('SemanticError', `${what} needs exactly one relationship type`);
    if (r.dir === 'both' && !merging) throw cypherError('SemanticError', 'CREATE needs a relationship direction (-> or <-)');
    const [s, o] = r.dir === 'in' ? [b.id, a.id] : [a.id, b.id];
    const p = relIri(env, r.types[0]!);
    const props: [string, Value][] = [];
    for (const [k, e] of r.props) {
      if (k === '@id') throw cypherError('SemanticError', '`@id` is not a relationship property');
      props.push([k, await evaluate(e, row, env)]);
    }
    await this.assert(s, p, o);
    let reifier: Term | null = null;
    if (props.length) {
      reifier = await this.newReifier(s, p, o);
      for (const [k, v] of props) {
        const iri = propIri(env, k);
        for (const t of storedValues(v, k)) await this.assert(reifier, iri, t);
      }
    }
    const rel: RelV = { t: 'rel', start: s, type: env.names.name(p), end: o, reifier };
    if (r.v !== undefined) row.set(r.v, rel);
    return rel;
  }

  private async merge(c: Extract<WriteClause, { k: 'merge' }>, rows: Row[], env: Env): Promise<Row[]> {
    const out: Row[] = [];
    for (const r of c.pattern.rels) {
      if (r.range) throw cypherError('SemanticError', 'MERGE cannot make a variable-length relationship');
      if (r.types.length !== 1) throw cypherError('SemanticError', 'MERGE needs exactly one relationship type');
    }
    for (const row of rows) {
      for (const n of c.pattern.nodes) {
        if (n.v !== undefined && row.has(n.v) && row.get(n.v) === null) throw cypherError('TypeError', `cannot MERGE with ${n.v}, which is null`);
      }
      await this.sync();
      const found = (await matchRows(env.g, env.names, [c.pattern], [row], (e, r) => evaluate(e, r, env)))[0]!;
      if (found.length) {
        for (const ext of found) {
          const r = new Map([...row, ...ext]);
          await this.setItems(c.onMatch, r, env);
          out.push(r);
        }
      } else {
        const r = await this.createPath(c.pattern, row, env, true);
        await this.setItems(c.onCreate, r, env);
        out.push(r);
      }
    }
    return out;
  }

  // ---- SET and REMOVE

  /** The subject a property write goes to: the node, or the relationship's reifier (minted on demand). */
  private async subjectOf(target: Value, v: string, row: Row, create: boolean, env: Env): Promise<Term | null> {
    const node = asNode(target);
    if (node) return node.id;
    if (isObj(target) && target.t === 'rel') {
      if (target.reifier || !create) return target.reifier;
      const p = relIri(env, target.type);
      const reifier = await this.newReifier(target.start, p, target.end);
      row.set(v, { ...target, reifier });
      return reifier;
    }
    throw cypherError('TypeError', `${v} is not a node or relationship`);
  }

  /** Replace every value of `key` on `s` with the stored form of `value` (null: remove). */
  private async setProp(s: Term, key: string, value: Value, env: Env): Promise<void> {
    const iri = propIri(env, key);
    const values = storedValues(value, key);
    await this.sync();
    for (const o of (await env.g.factsOf(s)).get(iri) ?? []) if (o.termType === 'Literal') await this.retract(s, iri, o);
    for (const t of values) await this.assert(s, iri, t);
  }

  private async setItems(items: SetItem[], row: Row, env: Env): Promise<void> {
    for (const it of items) {
      await this.sync();
      const target = row.get(it.v) ?? null;
      if (target === null) continue; // SET on null (an unmatched OPTIONAL MATCH) does nothing
      if (it.k === 'labels') {
        const n = asNode(target);
        if (!n) throw cypherError('TypeError', `${it.v} is not a node: only nodes have labels`);
        for (const l of it.labels) await this.assert(n.id, RDF_TYPE, namedNode(env.names.iri(l)));
        continue;
      }
      const value = await evaluate(it.e, row, env);
      const s = (await this.subjectOf(target, it.v, row, true, env))!;
      if (it.k === 'prop') { await this.setProp(s, it.key, value, env); continue; }
      let entries: [string, Value][];
      if (value === null) entries = [];
      else if (isObj(value) && value.t === 'map') entries = [...value.m];
      else if (isObj(value) && (value.t === 'node' || value.t === 'rel')) {
        const of = value.t === 'node' ? value.id : value.reifier;
        entries = of ? [...(await propsOf(env, of)).m] : [];
      } else throw cypherError('TypeError', `SET ${it.v} ${it.k === 'merge' ? '+=' : '='} needs a map`);
      if (it.k === 'replace') {
        await this.sync();
        for (const [p, os] of await env.g.factsOf(s)) {
          if (p === RDF_TYPE || p.startsWith(F + 'reifies')) continue;
          for (const o of os) if (o.termType === 'Literal') await this.retract(s, p, o);
        }
      }
      for (const [k, v] of entries) await this.setProp(s, k, v, env);
    }
  }

  private async remove(it: RemoveItem, row: Row, env: Env): Promise<void> {
    await this.sync();
    const target = row.get(it.v) ?? null;
    if (target === null) return;
    if (it.k === 'labels') {
      const n = asNode(target);
      if (!n) throw cypherError('TypeError', `${it.v} is not a node: only nodes have labels`);
      for (const l of it.labels) await this.retract(n.id, RDF_TYPE, namedNode(env.names.iri(l)));
      return;
    }
    const s = await this.subjectOf(target, it.v, row, false, env);
    if (s) await this.setProp(s, it.key, null, env);
  }

  // ---- DELETE and DETACH DELETE

  private async delete(v: Value, detach: boolean, env: Env): Promise<void> {
    if (v === null) return;
    if (!isObj(v) || (v.t !== 'node' && v.t !== 'rel' && v.t !== 'path')) throw cypherError('TypeError', 'DELETE takes nodes, relationships and paths');
    if (v.t === 'path') {
      for (const r of v.rels) await this.deleteRel(r, env);
      for (const n of v.nodes) await this.delete(n, detach, env);
      return;
    }
    if (v.t === 'rel') return this.deleteRel(v, env);
    await this.sync();
    const facts = await env.g.factsOf(v.id);
    if (!detach) {
      // Relationships stay until the statement ends; any left then is a 422 (Writer.finish).
      for (const [p, os] of facts) for (const o of os) if (!isRelationship(p, o)) await this.retract(v.id, p, o);
      this.deletedNode(v);
      return;
    }
    const incoming = await env.g.select({ type: 'bgp', patterns: [{ s: variable('s'), p: variable('p'), o: v.id }] }, ['s', 'p']);
    for (const [p, os] of facts) {
      for (const o of os) {
        if (isRelationship(p, o)) await this.retractReifiers(v.id, p, o, env);
        await this.retract(v.id, p, o);
      }
    }
    for (const r of incoming) {
      const p = r.p!.value;
      if (!isRelationship(p, v.id)) continue;
      await this.retractReifiers(r.s!, p, v.id, env);
      await this.retract(r.s!, p, v.id);
    }
  }

  /** A reifier's facts, then the base fact once no other reifier of it remains (§7). */
  private async deleteRel(r: RelV, env: Env): Promise<void> {
    await this.sync();
    const p = relIri(env, r.type);
    if (r.reifier) {
      for (const [rp, os] of await env.g.factsOf(r.reifier)) for (const o of os) await this.retract(r.reifier, rp, o);
      await this.sync();
      if ((await env.g.reifiers(r.start, p, r.end)).length) return;
    }
    await this.retract(r.start, p, r.end);
  }

  private async retractReifiers(s: Term, p: string, o: Term, env: Env): Promise<void> {
    for (const r of await env.g.reifiers(s, p, o)) {
      for (const [rp, os] of await env.g.factsOf(r)) for (const x of os) await this.retract(r, rp, x);
    }
  }
}
