/**
 * The layering rule of DESIGN.md: src/core and src/peer run in Node and in browsers, so they import
 * nothing from node:*, and neither reaches up into src/storage or src/server (core not into peer).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [join(dir, e.name)] : []);
}

/** Import specifiers of a file (static, dynamic and type-only). */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);
}

function violations(layer: string, forbidden: string[]): string[] {
  const out: string[] = [];
  for (const f of files(join(root, 'src', layer))) {
    for (const spec of imports(f)) {
      const target = spec.startsWith('.') ? relative(join(root, 'src'), resolve(f, '..', spec)) : spec;
      if (spec.startsWith('node:') || forbidden.some((p) => target.startsWith(p + '/'))) out.push(`${relative(root, f)} -> ${spec}`);
    }
  }
  return out;
}

describe('layers', () => {
  it('the checker sees imports of node:* and of a forbidden layer', () => {
    const server = violations('server', ['storage']);
    expect(server.some((v) => v.includes('-> node:'))).toBe(true);
    expect(server.some((v) => v.includes('/storage/'))).toBe(true);
  });
  it('src/core imports no node:*, storage, server or peer', () => {
    expect(violations('core', ['storage', 'server', 'peer'])).toEqual([]);
  });
  it('src/peer imports no node:*, storage or server', () => {
    expect(violations('peer', ['storage', 'server'])).toEqual([]);
  });
});
