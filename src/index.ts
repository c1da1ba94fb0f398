/**
 * The public API of `ledgraph` in Node (package condition `node`): everything the browser entry
 * has, plus file storage and the adapters for running beyond one machine: the S3 content store,
 * the PostgreSQL nameservice and the STS credential vendor.
 */
export * from './browser.js';
export { openFileStorage, FileContentStore, FileNameService, type FileStoreOptions, type Durability } from './storage/index.js';
export { S3ContentStore, parseS3Url, type S3StoreOptions } from './storage/s3-store.js';
export { PerLedgerContentStore, ledgerSegment, type PerLedgerStoreOptions } from './storage/per-ledger-store.js';
export { PgNameService, type PgNameServiceOptions } from './storage/pg-ns.js';
export { CredentialVendor, sessionPolicy, storeWithVendedCredentials, type CredentialVendorOptions, type VendedCredentials } from './storage/s3-vend.js';
