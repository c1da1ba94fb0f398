/**
 * Commit summaries for `/log`, `/show` headers and chain walks, read from the blob without
 * expanding its flakes (replication.md §3, http-api.md §2.4).
 */
import { Codec, type CID } from './cid.js';
import { inspectCommit, type CommitEnvelope, type RawMeta } from './commit-codec.js';
import { RESERVED_NAMESPACES, type Sid } from './namespaces.js';
import { LedgraphError } from '../errors.js';
import { F, xsd } from '../rdf/vocab.js';

/** What a commit log entry shows. */
export interface CommitSummary {
  cid: CID;
  t: number;
  time: string;
  parents: CID[];
  asserts: number;
  retracts: number;
  /** The `f:message` metadata string, else null. */
  message: string | null;
  /** Blob size in bytes. */
  size: number;
}

const F_MESSAGE = F + 'message';
const RESERVED = new Map<number, string>(RESERVED_NAMESPACES.map(([code, prefix]) => [code, prefix]));

/**
 * An IRI of the envelope when it can be resolved without the chain's table: code 0, a reserved
 * code, or a code this commit announces itself. Null otherwise (then it is not a reserved IRI).
 */
export function envelopeIri(env: Pick<CommitEnvelope, 'nsDelta'>, sid: Sid): string | null {
  if (sid.ns === 0) return sid.local;
  const prefix = RESERVED.get(sid.ns) ?? env.nsDelta.find(([code]) => code === sid.ns)?.[1];
  return prefix === undefined ? null : prefix + sid.local;
}

/** The first `f:message` metadata value that is a string, else null. */
export function commitMessage(env: Pick<CommitEnvelope, 'nsDelta' | 'meta'>): string | null {
  for (const m of env.meta as RawMeta[]) {
    const isString = m.o.tag === 3 || (m.o.tag === 5 && envelopeIri(env, m.dt) === xsd.string);
    if (isString && envelopeIri(env, m.p) === F_MESSAGE) return m.o.v as string;
  }
  return null;
}

/** Summary of a commit blob; the caller has verified `bytes` against `cid`. */
export function summarize(cid: CID, bytes: Uint8Array): CommitSummary {
  if (cid.code !== Codec.commit) {
    throw new LedgraphError(422, 'err:db/ConstraintViolation', `${cid.toString()} is not a commit CID (codec 0x${cid.code.toString(16)})`);
  }
  const env = inspectCommit(bytes);
  return {
    cid,
    t: env.t,
    time: env.time,
    parents: env.parents,
    asserts: env.asserts,
    retracts: env.retracts,
    message: commitMessage(env),
    size: env.size,
  };
}
