/**
 * Incremental, verifying decoder of pack streams and `.flpack` archives (replication.md §8–9). It
 * reads frame by frame from any byte source, holding at most one frame, refuses a frame above the
 * caller's limit before allocating it, and verifies every Data frame against its CID before
 * yielding it. Structure errors (preamble, frame type, lengths, truncation) are 400; a Data frame
 * whose bytes do not match its CID is 422; a frame over the limit is 413.
 */
import { CID } from 'multiformats/cid';
import { verifyCid } from '../commit/cid.js';
import { badRequest, constraintViolation, LedgraphError } from '../errors.js';
import {
  FRAME_DATA, FRAME_END, FRAME_ERROR, FRAME_HEADER, FRAME_MANIFEST, MAX_CID_BYTES, PREAMBLE, type PackHeader,
} from './frames.js';

export type PackFrame =
  | { type: 'header'; header: PackHeader }
  | { type: 'data'; cid: CID; bytes: Uint8Array }
  | { type: 'manifest'; manifest: { phase: string } & Record<string, unknown> }
  | { type: 'error'; message: string }
  | { type: 'end' };

export interface ReadOptions {
  /** Largest frame payload accepted (413 above). */
  maxFrameBytes: number;
  /** Accept a stream whose last frame is a nameservice Manifest without End (archives, §9). */
  archive?: boolean;
}

/** Bytes pulled from a source on demand, consumed front to back without quadratic copying. */
class ByteSource {
  private readonly it: AsyncIterator<Uint8Array>;
  private readonly chunks: Uint8Array[] = [];
  private avail = 0;
  /** Bytes consumed so far (offsets in errors). */
  offset = 0;
  done = false;

  constructor(source: AsyncIterable<Uint8Array>) {
    this.it = source[Symbol.asyncIterator]();
  }

  /** Make `n` bytes available; false when the source ended first. */
  async ensure(n: number): Promise<boolean> {
    while (this.avail < n) {
      if (this.done) return false;
      const r = await this.it.next();
      if (r.done) { this.done = true; return false; }
      if (r.value.length > 0) { this.chunks.push(r.value); this.avail += r.value.length; }
    }
    return true;
  }

  /** True when no byte is left (pulls once to find out). */
  async atEnd(): Promise<boolean> {
    return !(await this.ensure(1));
  }

  /** Consume `n` available bytes. */
  take(n: number): Uint8Array {
    const first = this.chunks[0]!;
    let out: Uint8Array;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift(); else this.chunks[0] = first.subarray(n);
    } else {
      out = new Uint8Array(n);
      let k = 0;
      while (k < n) {
        const c = this.chunks[0]!;
        const m = Math.min(c.length, n - k);
        out.set(c.subarray(0, m), k);
        k += m;
        if (m === c.length) this.chunks.shift(); else this.chunks[0] = c.subarray(m);
      }
    }
    this.avail -= n;
    this.offset += n;
    return out;
  }

  /** Stop reading the source. */
  async close(): Promise<void> {
    if (!this.done) await this.it.return?.();
    this.done = true;
  }
}

const dec = new TextDecoder('utf-8', { fatal: true });

/** A little-endian u32 from 4 bytes (any view: Node Buffers share pooled memory, so no `.buffer`). */
function u32(b: Uint8Array): number {
  return (b[0]! | (b[1]! << 8) | (b[2]! << 16) | (b[3]! << 24)) >>> 0;
}

function truncated(at: number): LedgraphError {
  return badRequest(`pack stream truncated at byte ${at}: no End frame`);
}

function tooLarge(n: number, max: number): LedgraphError {
  return new LedgraphError(413, 'err:db/PayloadTooLarge', `pack frame of ${n} bytes is above the ${max}-byte limit`);
}

function parseJson(bytes: Uint8Array, what: string): unknown {
  let v: unknown;
  try { v = JSON.parse(dec.decode(bytes)); } catch { throw badRequest(`pack ${what} frame is not UTF-8 JSON`); }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw badRequest(`pack ${what} frame is not a JSON object`);
  return v;
}

/** Decode a pack stream frame by frame; the generator ends after End (or an archive's final manifest). */
export async function* readPack(source: AsyncIterable<Uint8Array>, opts: ReadOptions): AsyncGenerator<PackFrame> {
  const s = new ByteSource(source);
  try {
    if (!(await s.ensure(PREAMBLE.length))) throw badRequest('not a pack stream: the preamble FPK1 is missing');
    const pre = s.take(PREAMBLE.length);
    if (PREAMBLE.some((b, i) => pre[i] !== b)) throw badRequest('not a ledgraph-pack-v1 stream: bad preamble or version');
    let sawHeader = false;
    let lastWasNameservice = false;
    for (;;) {
      const at = s.offset;
      if (!(await s.ensure(1))) {
        if (opts.archive && lastWasNameservice) return;
        throw truncated(at);
      }
      const type = s.take(1)[0]!;
      if (type === FRAME_END) {
        if (!sawHeader) throw badRequest('pack stream ends before its Header frame');
        if (!(await s.atEnd())) throw badRequest(`pack stream has bytes after its End frame (byte ${s.offset})`);
        yield { type: 'end' };
        return;
      }
      if (type === FRAME_DATA) {
        if (!sawHeader) throw badRequest('pack Data frame before the Header frame');
        if (!(await s.ensure(2))) throw truncated(at);
        const head = s.take(2);
        const cidLen = head[0]! | (head[1]! << 8);
        if (cidLen === 0 || cidLen > MAX_CID_BYTES) throw badRequest(`pack Data frame at byte ${at}: CID length ${cidLen} is not 1..${MAX_CID_BYTES}`);
        if (!(await s.ensure(cidLen + 4))) throw truncated(at);
        let cid: CID;
        try { cid = CID.decode(new Uint8Array(s.take(cidLen))); } catch { throw badRequest(`pack Data frame at byte ${at}: invalid CID`); }
        const n = u32(s.take(4));
        if (n > opts.maxFrameBytes) throw tooLarge(n, opts.maxFrameBytes);
        if (!(await s.ensure(n))) throw truncated(at);
        const bytes = s.take(n);
        if (!(await verifyCid(cid, bytes))) throw constraintViolation(`pack Data frame at byte ${at}: the bytes do not match CID ${cid.toString()}`);
        lastWasNameservice = false;
        yield { type: 'data', cid, bytes };
        continue;
      }
      if (type !== FRAME_HEADER && type !== FRAME_ERROR && type !== FRAME_MANIFEST) throw badRequest(`pack stream: unknown frame type 0x${type.toString(16).padStart(2, '0')} at byte ${at}`);
      if (!(await s.ensure(4))) throw truncated(at);
      const n = u32(s.take(4));
      if (n > opts.maxFrameBytes) throw tooLarge(n, opts.maxFrameBytes);
      if (!(await s.ensure(n))) throw truncated(at);
      const payload = s.take(n);
      if (type === FRAME_ERROR) {
        let message: string;
        try { message = dec.decode(payload); } catch { message = '(undecodable error message)'; }
        yield { type: 'error', message };
        return;
      }
      if (type === FRAME_HEADER) {
        if (sawHeader) throw badRequest('pack stream has a second Header frame');
        const header = parseJson(payload, 'Header') as PackHeader;
        if (header.protocol !== undefined && header.protocol !== 'ledgraph-pack-v1') throw badRequest(`pack protocol ${String(header.protocol)} is not ledgraph-pack-v1`);
        sawHeader = true;
        yield { type: 'header', header };
        continue;
      }
      if (!sawHeader) throw badRequest('pack Manifest frame before the Header frame');
      const manifest = parseJson(payload, 'Manifest') as { phase: string };
      if (typeof manifest.phase !== 'string') throw badRequest('pack Manifest frame has no phase');
      lastWasNameservice = manifest.phase === 'nameservice';
      yield { type: 'manifest', manifest };
    }
  } finally {
    await s.close();
  }
}
