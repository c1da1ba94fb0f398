/** auth.md §6: event subscriptions beyond the token's scope are narrowed, never refused. */
import { describe, expect, it } from 'vitest';
import { narrowEvents } from '../../src/server/auth/events.js';
import { noScopes, type Principal } from '../../src/server/auth/verify.js';
import type { AuthState } from '../../src/server/auth/middleware.js';

const state = (scopes: Partial<Principal['scopes']> | null): AuthState => ({
  group: 'events', mode: 'optional', tokenPresent: scopes !== null,
  ...(scopes ? { bearer: { kind: 'bearer', authMethod: 'embedded_jwk', issuer: 'did:key:x', scopes: { ...noScopes(), ...scopes } } } : {}),
});

describe('narrowEvents', () => {
  it('all=true becomes the token\'s explicit lists', () => {
    expect(narrowEvents(state({ eventsLedgers: ['hr:main'], eventsGraphSources: ['gs:main'] }), { all: true, ledgers: [], graphSources: [] }))
      .toEqual({ all: false, ledgers: ['hr:main'], graphSources: ['gs:main'] });
  });
  it('explicit lists are filtered (bare names normalised)', () => {
    expect(narrowEvents(state({ eventsLedgers: ['hr:main'] }), { all: false, ledgers: ['hr', 'payroll', 'x y'], graphSources: ['gs'] }))
      .toEqual({ all: false, ledgers: ['hr:main'], graphSources: [] });
  });
  it('events.all or no token: as requested', () => {
    const req = { all: true, ledgers: ['a'], graphSources: [] };
    expect(narrowEvents(state({ eventsAll: true }), req)).toBe(req);
    expect(narrowEvents(state(null), req)).toBe(req);
  });
});
