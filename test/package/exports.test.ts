/**
 * `import { … } from 'ledgraph'` as a user's project does it: the package (this package.json and a
 * fresh tsc build of src/ into a temp copy) is linked into a temp project's node_modules, then
 *   - Node runs a script that imports it by name (condition `node`): memory and file storage, a
 *     JSON-LD insert, JSON-LD and SPARQL queries, the RDF/JS store, the typed error; and the same
 *     program over the S3 content store (s3rver) with the PostgreSQL nameservice (a throwaway cluster);
 *   - Vite's `build` API bundles a tiny app importing it by name (condition `browser`): the bundle
 *     holds no node:* import and no file storage, Vite externalised no Node built-in, and the
 *     bundle, run as an ES module, answers the same queries over memory and IndexedDB storage.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPECTED } from '../../e2e/package-demo.js';
import { pgUnavailable, startPgCluster } from '../storage/pg-cluster.js';
import { startS3 } from '../storage/s3-server.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const DEMO = join(ROOT, 'e2e/package-demo.js');

describe('the ledgraph package imported by name', () => {
  let tmp: string;
  let app: string;

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'lg-package-'));
    // The package: this package.json, a fresh build, and its dependencies.
    const pkg = join(tmp, 'ledgraph');
    await mkdir(pkg);
    await cp(join(ROOT, 'package.json'), join(pkg, 'package.json'));
    await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(pkg, 'dist')], { cwd: ROOT });
    await symlink(join(ROOT, 'node_modules'), join(pkg, 'node_modules'), 'dir');
    // The user's project.
    app = join(tmp, 'app');
    await mkdir(join(app, 'node_modules'), { recursive: true });
    await symlink(pkg, join(app, 'node_modules/ledgraph'), 'dir');
    await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    await cp(DEMO, join(app, 'demo.js'));
  }, 120_000);
  afterAll(async () => { await rm(tmp, { recursive: true, force: true }); });

  it('Node: memory and file storage, queries, the RDF/JS store and errors', async () => {
    await writeFile(join(app, 'main.js'), `
import * as lib from 'ledgraph';
import { demo } from './demo.js';
const mem = await demo(lib, lib.openMemoryStorage());
const file = await demo(lib, await lib.openFileStorage(process.argv[2]));
console.log(JSON.stringify({ mem, file, hasFile: typeof lib.openFileStorage, resolved: import.meta.resolve('ledgraph') }));
`);
    const { stdout } = await run(process.execPath, ['main.js', join(tmp, 'files')], { cwd: app });
    const out = JSON.parse(stdout) as Record<string, unknown>;
    expect(out['mem']).toEqual(EXPECTED);
    expect(out['file']).toEqual(EXPECTED);
    expect(out['hasFile']).toBe('function');
    expect(out['resolved']).toMatch(/\/ledgraph\/dist\/index\.js$/);
  }, 60_000);

  it.skipIf(pgUnavailable() !== null)('Node: the S3 content store and the PostgreSQL nameservice, imported by name', async () => {
    const [s3, pg] = await Promise.all([startS3(['pkg']), startPgCluster()]);
    try {
      await writeFile(join(app, 's3pg.js'), `
import * as lib from 'ledgraph';
import { demo } from './demo.js';
const [endpoint, url] = process.argv.slice(2);
const content = new lib.S3ContentStore({ bucket: 'pkg', prefix: 'demo', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
const ns = await lib.PgNameService.open(url, { schema: 'pkg' });
const out = await demo(lib, { content, ns });
const policy = JSON.parse(lib.sessionPolicy('pkg', 'demo/', 'us-east-1')).Statement[0].Resource;
await content.close(); await ns.close();
console.log(JSON.stringify({ out, vendor: typeof lib.CredentialVendor, parsed: lib.parseS3Url('s3://pkg/demo'), policy }));
`);
      const { stdout } = await run(process.execPath, ['s3pg.js', s3.endpoint, pg.url], { cwd: app });
      expect(JSON.parse(stdout)).toEqual({ out: EXPECTED, vendor: 'function', parsed: { bucket: 'pkg', prefix: 'demo' }, policy: ['arn:aws:s3:::pkg/demo/*'] });
    } finally {
      await s3.stop();
      await pg.stop();
    }
  }, 90_000);

  it('Vite: the browser build has no node:* import and runs over memory and IndexedDB storage', async () => {
    await writeFile(join(app, 'entry.js'), `
import * as lib from 'ledgraph';
import { demo } from './demo.js';
export async function main() {
  return { mem: await demo(lib, lib.openMemoryStorage()), idb: await demo(lib, lib.openIndexedDbStorage('lg-test')), hasFile: 'openFileStorage' in lib };
}
`);
    const { build } = await import('vite');
    const warnings: string[] = [];
    const logger = {
      info: () => {}, warnOnce: (m: string) => warnings.push(m), warn: (m: string) => warnings.push(m), error: (m: string) => warnings.push(m),
      clearScreen: () => {}, hasErrorLogged: () => false, hasWarned: false,
    };
    await build({
      root: app, configFile: false, logLevel: 'warn', customLogger: logger,
      build: {
        outDir: join(app, 'dist'), emptyOutDir: true, minify: false, target: 'es2022',
        lib: { entry: join(app, 'entry.js'), formats: ['es'], fileName: 'bundle' },
      },
    });
    expect(warnings.filter((w) => /externalized for browser compatibility|node:/.test(w))).toEqual([]);
    const files = (await readdir(join(app, 'dist'))).filter((f) => f.endsWith('.js'));
    let code = '';
    for (const f of files) code += await readFile(join(app, 'dist', f), 'utf8');
    expect(code.length).toBeGreaterThan(100_000);
    expect(code).not.toMatch(/from\s*["']node:|import\(\s*["']node:|require\(\s*["']node:/);
    expect(code).not.toContain('__vite-browser-external');
    expect(code).not.toContain('class FileContentStore');
    // Run the browser bundle as an ES module, with an IndexedDB from fake-indexeddb.
    await import('fake-indexeddb/auto');
    const mod = await import(pathToFileURL(join(app, 'dist', files.find((f) => f.startsWith('bundle'))!)).href) as { main(): Promise<Record<string, unknown>> };
    const out = await mod.main();
    expect(out['mem']).toEqual(EXPECTED);
    expect(out['idb']).toEqual(EXPECTED);
    expect(out['hasFile']).toBe(false);
  }, 120_000);
});
