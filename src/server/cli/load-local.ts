/** The storage-directory side of `ledgraph load`: the engine on the directory, the ledger created when missing. */
import { Connection } from '../../core/ledger/connection.js';
import { openFileStorage } from '../../storage/index.js';

/** A connection on `dir` with `ledger` present (created when it was missing). */
export async function openLocalLedger(dir: string, ledger: string): Promise<{ conn: Connection; created: boolean }> {
  // No background index jobs: the load indexes everything up to its last t itself.
  const conn = new Connection(await openFileStorage(dir), { indexingEnabled: false, reindexMaxBytes: Number.MAX_SAFE_INTEGER });
  try {
    const created = !(await conn.exists(ledger));
    if (created) await conn.create(ledger);
    return { conn, created };
  } catch (e) {
    await conn.close();
    throw e;
  }
}
