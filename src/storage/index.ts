/**
 * Storage implementations of the core's ContentStore and NameService. This entry point includes the
 * file stores (node:fs); browser code imports ./memory-store.js or ./indexeddb-store.js directly.
 */
import type { Storage } from '../core/ledger/connection.js';
import { FileContentStore, type FileStoreOptions } from './file-store.js';
import { FileNameService } from './file-ns.js';

export type { Storage } from '../core/ledger/connection.js';
export { MemoryContentStore, MemoryNameService, ChangeFeed, changeKind, openMemoryStorage } from './memory-store.js';
export { FileContentStore, type Durability, type FileStoreOptions } from './file-store.js';
export { FileNameService, encodeLedgerId, decodeLedgerId } from './file-ns.js';
export { IdbContentStore, IdbNameService, openIndexedDbStorage } from './indexeddb-store.js';

/** File storage rooted at `dir` (objects/ and ns/ beneath it), created when missing. */
export async function openFileStorage(dir: string, opts: FileStoreOptions = {}): Promise<Storage & { content: FileContentStore; ns: FileNameService }> {
  const [content, ns] = await Promise.all([FileContentStore.open(dir, opts), FileNameService.open(dir, opts)]);
  return { content, ns };
}
