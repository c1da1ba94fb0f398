/** The server side of `ledgraph load`: create the ledger when missing, then stream each file to `POST /load`. */
import { LedgraphError } from '../../core/errors.js';
import { ledgerPath, remoteError, remoteHeads, type RemoteTarget } from '../replication/remote-client.js';

const auth = (r: RemoteTarget): Record<string, string> => (r.token ? { Authorization: `Bearer ${r.token}` } : {});

async function call(r: RemoteTarget, ledger: string, what: string, url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (e) {
    const cause = e instanceof Error ? ((e.cause as Error | undefined)?.message ?? e.message) : String(e);
    throw new LedgraphError(502, 'err:db/BadGateway', `${what} ${ledger} on remote ${r.name}: no HTTP response (${cause})`);
  }
}

/** Create the ledger on the server unless it exists. */
export async function ensureRemoteLedger(r: RemoteTarget, ledger: string): Promise<void> {
  if (await remoteHeads(r, ledger)) return;
  const res = await call(r, ledger, 'creating', `${r.api}/create`, {
    method: 'POST', headers: { ...auth(r), 'Content-Type': 'application/json' }, body: JSON.stringify({ ledger }),
  });
  if (!res.ok && res.status !== 409) throw await remoteError(r, ledger, res, 'creating');
}

/** Stream one document (raw file bytes; gzip files are sent as gzip) to `POST /load`; its result. */
export async function postLoad(r: RemoteTarget, ledger: string, bytes: AsyncIterable<Uint8Array>, contentType: string, base: string | undefined, commitFlakes: number | undefined): Promise<unknown> {
  const it = bytes[Symbol.asyncIterator]();
  const first = await it.next();
  const gzip = !first.done && first.value.length >= 2 && first.value[0] === 0x1f && first.value[1] === 0x8b;
  const body = new ReadableStream<Uint8Array>({
    start(ctl) { if (first.done) ctl.close(); else ctl.enqueue(first.value); },
    async pull(ctl) { const n = await it.next(); if (n.done) ctl.close(); else ctl.enqueue(n.value); },
    async cancel() { await it.return?.(); },
  });
  const q = new URLSearchParams();
  if (base) q.set('base', base);
  if (commitFlakes) q.set('commitFlakes', String(commitFlakes));
  const res = await call(r, ledger, 'loading into', `${r.api}/load/${ledgerPath(ledger)}${q.size ? `?${q}` : ''}`, {
    method: 'POST', body, duplex: 'half',
    headers: { ...auth(r), 'Content-Type': contentType, ...(gzip ? { 'Content-Encoding': 'gzip' } : {}) },
  } as RequestInit);
  if (!res.ok) throw await remoteError(r, ledger, res, 'loading into');
  return res.json();
}
