/**
 * Event-stream subscriptions under a token (auth.md §6): a request for more than the token allows
 * is not refused but silently narrowed — `all=true` becomes the token's explicit lists.
 */
import { ledgerIdOf } from './refs.js';
import type { AuthState } from './middleware.js';

/** What an `/events` request subscribes to. */
export interface EventsSubscription { all: boolean; ledgers: string[]; graphSources: string[] }

/** The subscription the request's credential allows (unchanged without a bearer token or with `events.all`). */
export function narrowEvents(state: AuthState, req: EventsSubscription): EventsSubscription {
  const s = state.bearer?.scopes;
  if (!s || s.eventsAll) return req;
  const norm = (xs: string[]) => xs.map((x) => ledgerIdOf(x)).filter((x): x is string => x !== null);
  if (req.all) return { all: false, ledgers: [...s.eventsLedgers], graphSources: [...s.eventsGraphSources] };
  return {
    all: false,
    ledgers: norm(req.ledgers).filter((l) => s.eventsLedgers.includes(l)),
    graphSources: norm(req.graphSources).filter((g) => s.eventsGraphSources.includes(g)),
  };
}
