/**
 * The narrow interfaces the write side works on. The pipeline, push, import, bulk load, the indexer
 * and drop see only a ledger's state plus these stores; `Connection` (the facade above them)
 * implements them, so the arrows point one way: connection → transact/index → ledger state.
 */
import type { LeafCache } from '../index/tree.js';
import type { ContentStore, NameService } from '../store.js';
import type { Ledger } from './ledger.js';

/** The content store, the nameservice and the decoded-leaf cache shared by the ledgers over them. */
export interface LedgerStores {
  /** The content store a ledger (`name:branch` or bare name) reads and writes (content-scope.ts); never the store itself. */
  contentFor(ledgerId: string): ContentStore;
  /** Which partition a ledger's objects live in ('' for all under a shared layout): objects are shared only within one. */
  partitionOf(ledgerId: string): string;
  readonly ns: NameService;
  readonly leafCache: LeafCache;
  /** Index roots no record names any more (an index published for nothing, a head moved to another chain): collected later. */
  retireIndex?(ledgerId: string, roots: readonly (string | null)[]): void;
  /** Run deletes while no index writer of this connection runs (an index job may be writing an equal object). */
  exclusively?<T>(fn: () => Promise<T>): Promise<T>;
}

/** Write and indexing settings (ConnectionOptions with defaults applied). */
export interface WriteSettings {
  reindexMinBytes: number;
  reindexMaxBytes: number;
  indexingEnabled: boolean;
  storeTxn: boolean;
  leafCacheBytes: number;
  termCacheBytes: number;
}

/** What a write path needs: the stores, the settings, and a way to ask for a background index job. */
export interface WriteEnv extends LedgerStores {
  readonly opts: WriteSettings;
  /** Start a background index job when the ledger's novelty passed reindex_min_bytes. */
  maybeIndex(ledger: Ledger): void;
}

/** Finds loaded ledgers by id (404 when absent); policy resolution needs no more of a connection. */
export interface LedgerLookup {
  ledger(ledgerId: string): Promise<Ledger>;
}
