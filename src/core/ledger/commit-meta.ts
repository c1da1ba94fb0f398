/**
 * Commit metadata as facts: the built-in commit facts and user metadata of a commit, exposed in the
 * txn-meta graph on subject `urn:ledgraph:commit:<CID>` (jsonld-transactions.md §8).
 */
import { literal, namedNode, type NamedNode, type Term } from '../rdf/terms.js';
import { F, xsd } from '../rdf/vocab.js';

/** Subject IRI of a commit in the txn-meta graph. */
export function commitSubject(cid: string): NamedNode {
  return namedNode('urn:ledgraph:commit:' + cid);
}

export interface CommitMetaInput {
  cid: string;
  t: number;
  time: string;
  previous: string | null;
  asserts: number;
  retracts: number;
  author: string;
  meta: { p: NamedNode; o: Term }[];
}

/** The (predicate, object) pairs describing a commit. */
export function commitMetaFacts(c: CommitMetaInput): { p: NamedNode; o: Term }[] {
  const out: { p: NamedNode; o: Term }[] = [
    { p: namedNode(F + 't'), o: literal(String(c.t), namedNode(xsd.integer)) },
    { p: namedNode(F + 'time'), o: literal(c.time, namedNode(xsd.dateTime)) },
    { p: namedNode(F + 'commitId'), o: literal(c.cid) },
    { p: namedNode(F + 'asserts'), o: literal(String(c.asserts), namedNode(xsd.integer)) },
    { p: namedNode(F + 'retracts'), o: literal(String(c.retracts), namedNode(xsd.integer)) },
  ];
  if (c.previous) out.push({ p: namedNode(F + 'previous'), o: commitSubject(c.previous) });
  if (c.author) out.push({ p: namedNode(F + 'author'), o: namedNode(c.author) });
  for (const m of c.meta) out.push(m);
  return out;
}
