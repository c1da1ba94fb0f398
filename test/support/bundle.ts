/** Bundle a TypeScript entry into one ESM file so child processes can run real source code (Node 20 cannot load .ts). */
import { build } from 'rolldown';

/** Bundle `entry` (absolute path) to `outFile`. */
export async function bundleForNode(entry: string, outFile: string): Promise<void> {
  await build({
    input: entry,
    platform: 'node',
    logLevel: 'silent',
    resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
    output: { file: outFile, format: 'esm', codeSplitting: false },
  });
}
