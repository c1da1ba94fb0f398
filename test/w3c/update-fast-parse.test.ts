/**
 * The fast SPARQL update parser (update.ts / update-data.ts) against sparqljs on every update
 * file of the W3C suite (syntax tests, positive and negative, and the evaluation requests): the
 * same request when both accept, both reject otherwise. The file's IRI is the base, as in the suite.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareUpdateParsers } from '../support/update-parsers.js';
import { iriOf, W3C_DIR, w3cAvailable } from './manifest.js';

function updateFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? updateFiles(p) : f.endsWith('.ru') ? [p] : [];
  });
}

describe.skipIf(!w3cAvailable())('fast update parser = sparqljs on the W3C update files', () => {
  it('agrees on every .ru file', () => {
    const files = updateFiles(join(W3C_DIR, 'sparql11'));
    expect(files.length).toBeGreaterThan(140);
    const differ: string[] = [];
    let accepted = 0, rejected = 0, deferred = 0;
    for (const f of files) {
      const v = compareUpdateParsers(readFileSync(f, 'utf8'), { baseIri: iriOf(relative(W3C_DIR, f)) });
      if (v.kind === 'differ') differ.push(`${relative(W3C_DIR, f)}: ${v.detail}`);
      else if (v.kind === 'deferred') deferred++;
      else if (v.accepted) accepted++;
      else rejected++;
    }
    expect(differ).toEqual([]);
    // Every file is decided by the fast path; none is left to sparqljs.
    expect({ deferred, total: accepted + rejected }).toEqual({ deferred: 0, total: files.length });
  });
});
