/**
 * The public API of `ledgraph` in Node (package condition `node`): everything the browser entry
 * has, plus file storage.
 */
export * from './browser.js';
export { openFileStorage, FileContentStore, FileNameService, type FileStoreOptions, type Durability } from './storage/index.js';
