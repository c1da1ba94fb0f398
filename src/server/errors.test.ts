import { describe, expect, it } from 'vitest';
import { storageError, badRequest, LedgraphError } from '../core/errors.js';
import { mapError, MAX_ERROR_CHARS, publicMessage } from './errors.js';

describe('error mapping', () => {
  it('removes file-system paths and stack frames from 5xx messages, keeping URLs and IRIs', () => {
    expect(publicMessage("cannot read nameservice record a.json: ENAMETOOLONG: name too long, open '/tmp/x/ns/a.json'", 502))
      .toBe("cannot read nameservice record a.json: ENAMETOOLONG: name too long, open '<path>'");
    expect(publicMessage('lock C:\\data\\ns\\a.lock lost', 502)).toBe('lock <path> lost');
    expect(publicMessage('cannot reach http://127.0.0.1:3030/sparql: refused', 502)).toBe('cannot reach http://127.0.0.1:3030/sparql: refused');
    expect(publicMessage('boom\n    at f (/srv/app/x.js:1:2)\n    at g', 500)).toBe('boom');
    expect(publicMessage('ledger a/b/c: bad path /x/y', 400)).toBe('ledger a/b/c: bad path /x/y');
  });

  it('applies it to a 5xx LedgraphError and its cause, and caps every message', () => {
    const e = new LedgraphError(502, 'err:db/BadGateway', 'record /srv/ns/a.json is not valid JSON', { cause: storageError('open /srv/ns/b.json failed') });
    const m = mapError(e);
    expect(m.body).toEqual({
      error: 'record <path> is not valid JSON', status: 502, '@type': 'err:db/BadGateway',
      cause: { error: 'open <path> failed', status: 502, '@type': 'err:db/BadGateway' },
    });
    expect(mapError(badRequest('z'.repeat(10_000))).body.error).toHaveLength(MAX_ERROR_CHARS + 1);
  });

  it('keeps the details of an unexpected error out of the body', () => {
    expect(mapError(new RangeError('Maximum call stack size exceeded')).body).toEqual({ error: 'internal server error', status: 500, '@type': 'err:db/Internal' });
  });
});
