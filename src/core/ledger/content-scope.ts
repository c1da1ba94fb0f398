/**
 * Which part of a content store a ledger's objects live in. Most stores keep one shared,
 * content-addressed space (an object stored once however many ledgers hold it); a store laid out
 * per ledger (ContentStore.forLedger: S3 with --s3-ledger-prefixes) keeps each ledger's objects
 * under its own prefix, shared by its branches, so credentials can be scoped to one ledger.
 * Every read and write made for a ledger resolves its store here.
 */
import type { ContentStore } from '../store.js';
import { splitLedgerId } from './ledger-id.js';

/** The store a ledger (`name:branch` or a bare name) reads and writes: its own view under a per-ledger layout, else the store itself. */
export function ledgerContent(content: ContentStore, ledgerId: string): ContentStore {
  return content.forLedger ? content.forLedger(splitLedgerId(ledgerId).name) : content;
}

/**
 * The partition of a ledger's objects: its name under a per-ledger layout, '' when every ledger
 * shares one space. Objects are shared (and must be kept by garbage collection) only within a partition.
 */
export function contentPartition(content: ContentStore, ledgerId: string): string {
  return content.forLedger ? splitLedgerId(ledgerId).name : '';
}
