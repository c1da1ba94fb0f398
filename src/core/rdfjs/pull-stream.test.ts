import { describe, expect, it } from 'vitest';
import { PullStream } from './pull-stream.js';

async function* chunks<T>(...cs: T[][]): AsyncIterable<T[]> { for (const c of cs) yield c; }
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('PullStream (RDF/JS Stream)', () => {
  it('paused mode: readable / read() / end, and end only after a read finds nothing', async () => {
    const s = new PullStream(chunks([1, 2], [], [3]));
    const got: number[] = [];
    let ended = false;
    s.on('end', () => { ended = true; });
    await tick();
    expect(ended).toBe(false);
    await new Promise<void>((resolve) => {
      const drain = () => { for (let x = s.read(); x !== null; x = s.read()) got.push(x); };
      s.on('readable', drain);
      s.on('end', () => resolve());
    });
    expect(got).toEqual([1, 2, 3]);
  });

  it('an empty stream ends once read, not before', async () => {
    const s = new PullStream<number>(chunks());
    let ended = false;
    s.on('end', () => { ended = true; });
    await tick();
    expect(ended).toBe(false);
    s.on('readable', () => s.read());
    expect(s.read()).toBe(null);
    await tick();
    expect(ended).toBe(true);
  });

  it('flowing mode: data events then end', async () => {
    const s = new PullStream(chunks(['a'], ['b', 'c']));
    const got = await new Promise<string[]>((resolve, reject) => {
      const out: string[] = [];
      s.on('data', (x: string) => out.push(x)).on('end', () => resolve(out)).on('error', reject);
    });
    expect(got).toEqual(['a', 'b', 'c']);
  });

  it('async iteration, and source errors as error events', async () => {
    const out: number[] = [];
    for await (const x of new PullStream(chunks([1], [2, 3]))) out.push(x);
    expect(out).toEqual([1, 2, 3]);
    async function* failing(): AsyncIterable<number[]> { yield [1]; throw new Error('boom'); }
    const s = new PullStream(failing());
    await expect(new Promise((resolve, reject) => s.on('data', () => {}).on('end', resolve).on('error', reject))).rejects.toThrow('boom');
  });

  it('destroy stops the source', async () => {
    let closed = false;
    async function* endless(): AsyncIterable<number[]> { try { for (let i = 0; ; i++) yield [i]; } finally { closed = true; } }
    const s = new PullStream(endless());
    const first = await new Promise((resolve) => s.on('readable', () => resolve(s.read())));
    expect(first).toBe(0);
    s.destroy();
    await tick();
    expect(closed).toBe(true);
  });
});
