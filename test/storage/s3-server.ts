/** An S3-protocol server for tests: s3rver in-process on a free loopback port, data in a temp dir. */
import type { Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

/** A running s3rver with one bucket. */
export interface TestS3 {
  endpoint: string;
  port: number;
  /** Credentials s3rver accepts. */
  credentials: { accessKeyId: string; secretAccessKey: string };
  stop(): Promise<void>;
}

/** Start s3rver on 127.0.0.1 with the given buckets. */
export async function startS3(buckets: string[]): Promise<TestS3> {
  const dir = await mkdtemp(join(tmpdir(), 'ledgraph-s3-'));
  const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: buckets.map((name) => ({ name })) }) as unknown as
    { run(): Promise<{ port: number }>; close(): Promise<void>; httpServer?: Server };
  const { port } = await s3.run();
  return {
    endpoint: `http://127.0.0.1:${port}`, port,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    stop: async () => {
      s3.httpServer?.closeAllConnections(); // a dropped large-object body can leave one open
      await s3.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
