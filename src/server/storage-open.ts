/**
 * The storage a server runs over: content from --storage-path (or memory) or, with --storage
 * s3://..., an S3 bucket; the nameservice beside the storage path (or memory) or, with
 * --nameservice postgres://..., in PostgreSQL shared by several servers.
 */
import type { ContentStore, NameService } from '../core/store.js';
import { FileContentStore, FileNameService, MemoryContentStore, MemoryNameService, openFileStorage, openMemoryStorage, type Storage } from '../storage/index.js';
import { PgNameService } from '../storage/pg-ns.js';
import { parseS3Url, S3ContentStore } from '../storage/s3-store.js';
import { CredentialVendor } from '../storage/s3-vend.js';
import type { ServerConfig } from './config.js';

/** The PostgreSQL nameservice when --nameservice is set, else null. */
export async function openConfiguredNameService(config: ServerConfig): Promise<NameService | null> {
  return config.nameservice ? PgNameService.open(config.nameservice, { schema: config.nameserviceSchema }) : null;
}

/** The S3 content store when --storage s3://... is set (laid out per ledger with --s3-ledger-prefixes), else null. */
export function openConfiguredContent(config: ServerConfig): ContentStore | null {
  if (!config.storage) return null;
  const s3 = new S3ContentStore({
    ...parseS3Url(config.storage), endpoint: config.s3Endpoint ?? undefined, region: config.s3Region, forcePathStyle: config.s3ForcePathStyle,
  });
  return config.s3LedgerPrefixes ? s3.perLedger() : s3;
}

/** Content store plus nameservice as configured (see the file comment); any combination works. */
export async function openServerStorage(config: ServerConfig): Promise<Storage> {
  const ns = await openConfiguredNameService(config);
  const s3 = openConfiguredContent(config);
  if (!ns && !s3) return config.memory ? openMemoryStorage() : openFileStorage(config.storagePath, { compress: config.storageCompress });
  try {
    const content = s3 ?? (config.memory ? new MemoryContentStore() : await FileContentStore.open(config.storagePath, { compress: config.storageCompress }));
    return { content, ns: ns ?? (config.memory ? new MemoryNameService() : await FileNameService.open(config.storagePath)) };
  } catch (e) {
    await ns?.close();
    throw e;
  }
}

/** The STS credential vendor when --storage-vend-enabled with --storage s3://... (config validation ensures the role), else null. */
export function openCredentialVendor(config: ServerConfig): CredentialVendor | null {
  if (!config.storageVendEnabled || !config.storage || !config.storageVendRoleArn) return null;
  const { bucket, prefix } = parseS3Url(config.storage);
  return new CredentialVendor({
    bucket, prefix: S3ContentStore.normalPrefix(prefix), region: config.s3Region, roleArn: config.storageVendRoleArn,
    ttlSecs: config.storageVendTtlSecs, stsEndpoint: config.storageVendStsEndpoint ?? undefined, ledgerPrefixes: config.s3LedgerPrefixes,
    s3Endpoint: config.s3Endpoint ?? undefined, forcePathStyle: config.s3ForcePathStyle,
  });
}
