/**
 * GraphQL and Cypher on the browser peer (languages.ts loads this module on first use, so the
 * worker starts without graphql-js and the Cypher parser): the server's own core entry points,
 * read-only — mutations and Cypher writes are refused with 403.
 */
import { badRequest, forbidden } from '../core/errors.js';
import type { Connection } from '../core/ledger/connection.js';
import type { Db } from '../core/ledger/db.js';
import { parseLedgerRef } from '../core/ledger/ledger-id.js';
import { isWriteStatement } from '../core/query/cypher/ast.js';
import { envelope, parseCached, readCypherBody, runCypherRead } from '../core/query/cypher/service.js';
import type { DerivedSchema } from '../core/query/graphql/schema.js';
import { derivedSchema, runGraphQL, schemaSdl, type GraphQLBody } from '../core/query/graphql/service.js';

/** A GraphQL request as the page sends it. */
export interface PeerGraphQLRequest { query: string; variables: Record<string, unknown> | null; operationName: string | null }

/** The snapshot a GraphQL request reads and its derived schema, as the server's /graphql opens them (root view). */
async function openSchema(conn: Connection, ledger: string): Promise<{ derived: DerivedSchema; db: Db; contextJson: unknown }> {
  const ref = parseLedgerRef(ledger);
  if (ref.fragment !== null) throw badRequest('GraphQL reads the default graph of one ledger; named graphs (#fragment) are not expressible');
  const contextJson = (await conn.defaultContext(ref.id)) ?? null;
  const db = await (await conn.ledger(ref.id)).db(ref.time);
  const derived = await derivedSchema(JSON.stringify([ref.id, db.t, null, contextJson]), db, db, contextJson);
  return { derived, db, contextJson };
}

/** A GraphQL request against `ledger`, answered as `POST /graphql/<ledger>` would (errors inside the body). */
export async function runPeerGraphQL(conn: Connection, ledger: string, q: PeerGraphQLRequest, signal: AbortSignal): Promise<GraphQLBody> {
  const { derived, db, contextJson } = await openSchema(conn, ledger);
  return runGraphQL(derived, db, contextJson, {
    query: q.query, variables: q.variables, operationName: q.operationName, explain: false, readOnly: false, signal,
    // Mutations reach the commit step only when the schema publishes them; there they fail, writing nothing.
    commit: () => Promise.reject(forbidden('the local replica is read-only: GraphQL mutations run on the transaction server (POST /graphql/<ledger>)')),
  });
}

/** The caller's derived GraphQL schema of `ledger` as SDL, as `GET /graphql-schema/<ledger>` answers it. */
export async function graphqlSdl(conn: Connection, ledger: string): Promise<string> {
  return schemaSdl((await openSchema(conn, ledger)).derived);
}

/** A Cypher read (the §8 envelope as JSON text) against `ledger`, answered as the §8 envelope. */
export async function runPeerCypher(conn: Connection, ledger: string, envelopeText: string, signal: AbortSignal): Promise<ReturnType<typeof envelope>> {
  const body = readCypherBody(envelopeText);
  if (isWriteStatement(parseCached(body.text))) {
    throw forbidden('the local replica is read-only: Cypher writes (CREATE, MERGE, SET, REMOVE, DELETE) run on the transaction server (POST /update/<ledger>)');
  }
  const r = await runCypherRead(conn, body, { ledger, signal });
  return envelope(r.table, r.names);
}
