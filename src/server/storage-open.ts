/**
 * The storage a server runs over: content from --storage-path (or memory), and the nameservice
 * either beside it or, with --nameservice postgres://..., in PostgreSQL shared by several servers.
 */
import type { NameService } from '../core/store.js';
import { FileContentStore, MemoryContentStore, openFileStorage, openMemoryStorage, type Storage } from '../storage/index.js';
import { PgNameService } from '../storage/pg-ns.js';
import type { ServerConfig } from './config.js';

/** The PostgreSQL nameservice when --nameservice is set, else null. */
export async function openConfiguredNameService(config: ServerConfig): Promise<NameService | null> {
  return config.nameservice ? PgNameService.open(config.nameservice, { schema: config.nameserviceSchema }) : null;
}

/** Content store plus nameservice as configured (see the file comment). */
export async function openServerStorage(config: ServerConfig): Promise<Storage> {
  const ns = await openConfiguredNameService(config);
  if (!ns) return config.memory ? openMemoryStorage() : openFileStorage(config.storagePath);
  try {
    return { content: config.memory ? new MemoryContentStore() : await FileContentStore.open(config.storagePath), ns };
  } catch (e) {
    await ns.close();
    throw e;
  }
}


