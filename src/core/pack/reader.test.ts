import { describe, expect, it } from 'vitest';
import { Codec, cidOf } from '../commit/cid.js';
import { LedgraphError } from '../errors.js';
import { dataFrame, endFrame, errorFrame, headerFrame, manifestFrame, preamble, PACK_PROTOCOL } from './frames.js';
import { readPack, type PackFrame } from './reader.js';
import { reframe } from './writer.js';

const enc = new TextEncoder();
const header = { protocol: PACK_PROTOCOL, capabilities: ['commits', 'txns'], commit_count: 0, estimated_total_bytes: 0, server_max_frame_bytes: 1024 };

function join(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let k = 0;
  for (const p of parts) { out.set(p, k); k += p.length; }
  return out;
}

async function* pieces(b: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < b.length; i += size) yield b.slice(i, i + size);
}

async function all(b: Uint8Array, size = b.length, max = 1024, archive = false): Promise<PackFrame[]> {
  const out: PackFrame[] = [];
  for await (const f of readPack(pieces(b, size), { maxFrameBytes: max, archive })) out.push(f);
  return out;
}

async function failure(p: Promise<unknown>): Promise<[number, string]> {
  const e = await p.then(() => null, (x: unknown) => x);
  expect(e).toBeInstanceOf(LedgraphError);
  return [(e as LedgraphError).status, (e as LedgraphError).message];
}

describe('readPack', () => {
  it('decodes the same frames whatever the chunking, down to one byte at a time', async () => {
    const obj = enc.encode('{"type":"application/json","body":{},"identity":null,"jws":null}');
    const cid = await cidOf(Codec.txn, obj);
    const stream = join(preamble(), headerFrame(header), dataFrame(cid, obj), manifestFrame({ phase: 'indexes', root_id: 'x', artifact_count: 0 }), endFrame());
    const expected: PackFrame[] = [
      { type: 'header', header }, { type: 'data', cid, bytes: obj },
      { type: 'manifest', manifest: { phase: 'indexes', root_id: 'x', artifact_count: 0 } }, { type: 'end' },
    ];
    for (const size of [stream.length, 7, 1]) expect(await all(stream, size)).toEqual(expected);
    // Re-encoding the decoded frames gives the same bytes.
    const again: Uint8Array[] = [];
    for await (const p of reframe(readPack(pieces(stream, 3), { maxFrameBytes: 1024 }), null)) again.push(p);
    expect(join(...again)).toEqual(stream);
  });

  it('refuses bad preambles, unknown frames, oversized frames, bytes after End, and hands over Error frames', async () => {
    expect(await failure(all(enc.encode('PK\x03\x04xx')))).toEqual([400, 'not a ledgraph-pack-v1 stream: bad preamble or version']);
    expect(await failure(all(join(preamble(), headerFrame(header), Uint8Array.of(0x07))))).toEqual([400, 'pack stream: unknown frame type 0x07 at byte ' + (5 + headerFrame(header).length)]);
    const [status] = await failure(all(join(preamble(), headerFrame(header)), undefined, 16));
    expect(status).toBe(413);
    expect((await failure(all(join(preamble(), headerFrame(header), endFrame(), Uint8Array.of(0)))))[1]).toContain('bytes after its End frame');
    expect(await all(join(preamble(), headerFrame(header), errorFrame('disk on fire'), endFrame()))).toEqual([{ type: 'header', header }, { type: 'error', message: 'disk on fire' }]);
  });

  it('accepts an archive whose last frame is the nameservice manifest without End (§9), and nothing else without End', async () => {
    const ns = { phase: 'nameservice', ledger_id: 'a:main', name: 'a', branch: 'main', commit_head_id: 'c', commit_t: 0, index_head_id: null, index_t: 0 } as const;
    const noEnd = join(preamble(), headerFrame(header), manifestFrame(ns));
    expect((await all(noEnd, 4, 1024, true)).map((f) => f.type)).toEqual(['header', 'manifest']);
    expect((await failure(all(noEnd, 4, 1024, false)))[1]).toContain('truncated');
  });
});
