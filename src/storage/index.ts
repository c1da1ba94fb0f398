/**
 * Storage implementations of the core's ContentStore and NameService. This entry point includes the
 * file stores (node:fs); browser code imports ./memory-store.js or ./indexeddb-store.js directly.
 */
import type { ContentStore, NameService } from '../core/store.js';
import { FileContentStore, type FileStoreOptions } from './file-store.js';
import { FileNameService } from './file-ns.js';
import { MemoryContentStore, MemoryNameService } from './memory-store.js';

export { MemoryContentStore, MemoryNameService, ChangeFeed, changeKind } from './memory-store.js';
export { FileContentStore, type Durability, type FileStoreOptions } from './file-store.js';
export { FileNameService, encodeLedgerId, decodeLedgerId } from './file-ns.js';
export { IdbContentStore, IdbNameService } from './indexeddb-store.js';

/** A content store and nameservice that belong together. */
export interface Storage {
  content: ContentStore;
  ns: NameService;
}

/** File storage rooted at `dir` (objects/ and ns/ beneath it), created when missing. */
export async function openFileStorage(dir: string, opts: FileStoreOptions = {}): Promise<Storage & { content: FileContentStore; ns: FileNameService }> {
  const [content, ns] = await Promise.all([FileContentStore.open(dir, opts), FileNameService.open(dir, opts)]);
  return { content, ns };
}

/** Fresh, empty in-memory storage. */
export function openMemoryStorage(): Storage & { content: MemoryContentStore; ns: MemoryNameService } {
  return { content: new MemoryContentStore(), ns: new MemoryNameService() };
}
