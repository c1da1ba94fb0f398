/** Test support: exact assertions on LedgraphError throws. Excluded from the build. */
import { expect } from 'vitest';
import { LedgraphError } from '../errors.js';

/** Assert that `fn` throws the 422 malformed-blob error with exactly this message. */
export function expect422(fn: () => unknown, message: string) {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(LedgraphError);
    const err = e as LedgraphError;
    expect([err.status, err.type, err.message]).toEqual([422, 'err:db/ConstraintViolation', message]);
    return;
  }
  throw new Error('expected a throw');
}
