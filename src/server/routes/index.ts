/**
 * The route-group registry: every endpoint group under api_base_url, in mounting order. A group is
 * a Registrar `(api, ctx) => void` that registers its routes with swagger.ts `route()` (so they
 * appear in /swagger.json); adding a group is a one-line edit of REGISTRARS.
 */
import type { RouteGroup } from '../app.js';
import type { Registrar, ServerState } from '../server-context.js';
import { authRoutes } from '../auth/index.js';
import { adminRoutes } from './admin.js';
import { contextRoutes } from './context.js';
import { branchRoutes } from './branches.js';
import { dataRoutes } from './data.js';
import { diagnosticsRoutes } from './diagnostics.js';
import { eventsRoutes } from './events.js';
import { graphqlRoutes } from './graphql.js';
import { historyRoutes } from './history.js';
import { pushRoutes } from '../replication/push.js';
import { commitsRoutes } from '../replication/commits.js';
import { importRoutes } from '../replication/import.js';
import { packRoutes } from '../replication/pack.js';
import { multiQueryRoutes } from './multi-query.js';
import { queryRoutes } from './query.js';
import { queryAdmissionRoutes } from './query-admission.js';
import { storageRoutes } from './storage.js';
import { storageCredentialRoutes } from './storage-credentials.js';
import { sparqlEndpointRoutes } from './sparql-endpoint.js';
import { streamRoutes } from './stream.js';
import { writeRoutes } from './write.js';
import { loadRoutes } from './load.js';

/** Every endpoint group of the transaction server. */
export const REGISTRARS: readonly Registrar[] = [
  // First: authentication and ledger-scope checks run before every later route (auth.md §1, §6).
  authRoutes(),
  // Before any query route: caps concurrently executing queries (--max-concurrent-queries).
  queryAdmissionRoutes,
  diagnosticsRoutes,
  adminRoutes,
  contextRoutes,
  branchRoutes,
  writeRoutes,
  loadRoutes,
  dataRoutes,
  historyRoutes,
  pushRoutes,
  commitsRoutes,
  packRoutes,
  importRoutes,
  queryRoutes,
  sparqlEndpointRoutes,
  graphqlRoutes,
  streamRoutes,
  multiQueryRoutes,
  eventsRoutes,
  storageRoutes,
  storageCredentialRoutes,
];

/** The registrars bound to the server state, as the app's route groups. */
export function ledgerRouteGroups(state: ServerState, registrars: readonly Registrar[] = REGISTRARS): RouteGroup[] {
  return registrars.map((register) => (api, ctx) => register(api, { ...ctx, ...state }));
}
