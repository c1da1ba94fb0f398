/**
 * No import cycles in src/ (type-only imports included): checked with dpdm, a maintained
 * dependency analyser, so `npm test` fails on the first cycle anyone introduces.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCircular, parseDependencyTree } from 'dpdm';

const root = resolve(import.meta.dirname, '../..');

/** Every import cycle among the .ts files matched by `glob` under `cwd`, as relative paths. */
async function cycles(cwd: string, glob: string): Promise<string[][]> {
  const tree = await parseDependencyTree(glob, { cwd, context: cwd, transform: false, skipDynamicImports: false });
  return parseCircular(tree).map((c) => c.map((f) => relative(cwd, resolve(cwd, f))));
}

describe('import cycles', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'lg-cycles-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('the checker sees a cycle, including a type-only one', async () => {
    writeFileSync(join(tmp, 'a.ts'), "import type { B } from './b';\nexport interface A { b?: B }\n");
    writeFileSync(join(tmp, 'b.ts'), "import type { A } from './a';\nexport interface B { a?: A }\n");
    const found = await cycles(tmp, 'a.ts');
    expect(found).toEqual([['a.ts', 'b.ts']]);
  });

  it('src/ has none', async () => {
    expect(await cycles(root, 'src/**/*.ts')).toEqual([]);
  }, 120_000);
});
