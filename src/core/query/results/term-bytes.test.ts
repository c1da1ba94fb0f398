import { describe, expect, it } from 'vitest';
import { TermBytes } from './term-bytes.js';

const text = (c: TermBytes, at: number): string => Buffer.from(c.ring.subarray(at, at + c.found)).toString('utf8');

describe('TermBytes', () => {
  it('keeps a fragment\'s UTF-8 bytes by (id space, id)', () => {
    const c = new TermBytes(1024, 64);
    const a = c.tag({}), b = c.tag({});
    expect(a).not.toBe(b);
    expect(c.find(a, 7)).toBe(-1);
    c.put(a, 7, '{"value":"été ☃"}');
    c.put(b, 7, '{"value":"other space"}');
    const at = c.find(a, 7);
    expect(at).toBeGreaterThanOrEqual(0);
    expect(c.found).toBe(Buffer.byteLength('{"value":"été ☃"}'));
    expect(text(c, at)).toBe('{"value":"été ☃"}');
    expect(text(c, c.find(b, 7))).toBe('{"value":"other space"}');
    // The same space object keeps its tag.
    const s = {};
    expect(c.tag(s)).toBe(c.tag(s));
  });

  it('an entry whose bytes the ring has overwritten is a miss; one still there is found', () => {
    const c = new TermBytes(200, 1024);
    const t = c.tag({});
    c.put(t, 1, 'x'.repeat(30)); // bytes 0-29
    c.put(t, 2, 'y'.repeat(30)); // 30-59 (170 left ≥ 3 × 30)
    expect(text(c, c.find(t, 1))).toBe('x'.repeat(30));
    c.put(t, 3, 'z'.repeat(30)); // 60-89
    c.put(t, 4, 'w'.repeat(30)); // 90-119
    // 80 left < 3 × 30: the next fragment starts the next lap, over id 1 (and only id 1).
    c.put(t, 5, 'v'.repeat(30));
    expect(c.find(t, 1)).toBe(-1);
    expect(text(c, c.find(t, 2))).toBe('y'.repeat(30));
    expect(text(c, c.find(t, 5))).toBe('v'.repeat(30));
    for (let id = 10; id < 100; id++) {
      c.put(t, id, String(id).repeat(5));
      expect(text(c, c.find(t, id))).toBe(String(id).repeat(5));
    }
    // Every entry that is found still holds its own text; the early ones are gone.
    let found = 0;
    for (let id = 10; id < 100; id++) {
      const at = c.find(t, id);
      if (at >= 0) { found++; expect(text(c, at)).toBe(String(id).repeat(5)); }
    }
    expect(found).toBeGreaterThan(10);
    expect(found).toBeLessThan(30);
    for (const id of [2, 3, 4, 5, 10]) expect(c.find(t, id)).toBe(-1);
  });

  it('finds fragments placed past 2^30 and 2^31 bytes written (a place is kept as two Int32s)', () => {
    const c = new TermBytes(1024, 64);
    const t = c.tag({});
    // As after a long life: gigabytes of fragments already written through the ring.
    for (const total of [2 ** 30 - 20, 2 ** 31 + 5, 3 * 2 ** 32 + 1000]) {
      (c as unknown as { total: number }).total = total;
      for (let id = 0; id < 8; id++) c.put(t, id, `frag-${total}-${id}`);
      for (let id = 0; id < 8; id++) expect(text(c, c.find(t, id))).toBe(`frag-${total}-${id}`);
    }
  });

  it('a full set forgets its oldest entry; a long fragment is not kept', () => {
    const c = new TermBytes(1 << 16, 8); // two sets of 4 ways
    const t = c.tag({});
    for (let id = 0; id < 100; id++) c.put(t, id, 'v' + id);
    let found = 0;
    for (let id = 0; id < 100; id++) {
      const at = c.find(t, id);
      if (at >= 0) { found++; expect(text(c, at)).toBe('v' + id); }
    }
    expect(found).toBe(8);
    // The last one put is always there.
    expect(text(c, c.find(t, 99))).toBe('v99');
    expect(c.put(t, 200, 'x'.repeat(5000))).toBe(-1);
    expect(c.find(t, 200)).toBe(-1);
    expect(() => new TermBytes(100, 4)).toThrow(RangeError);
  });
});
