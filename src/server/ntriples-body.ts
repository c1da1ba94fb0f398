/**
 * An N-Triples request body read from its bytes as they arrive, with the bulk load's byte reader
 * (rdf/ntriples-bytes.ts, checked against the W3C suites) instead of n3's TriG parser: a string
 * only for a term spelling's first occurrence, and the statements kept as numbers into those keys
 * (transact/key-rows.ts), without term objects or quads per statement. It reads only plain
 * N-Triples; the first line it cannot read (Turtle written as N-Triples, a relative IRI, a syntax
 * error) hands the whole body back to the n3 path (rdf-body.ts), so what is accepted, how it is
 * read and every error stay those of n3's parse.
 */
import { isUtf8 } from 'node:buffer';
import { badRequest } from '../core/errors.js';
import { NTriplesByteReader } from '../core/rdf/ntriples-bytes.js';
import { rdf } from '../core/rdf/vocab.js';
import { KeyRowsSink } from '../core/transact/key-rows.js';
import type { KeyRows } from '../core/transact/txn-request.js';

/** The longest line (in bytes) the reader waits for; longer ones go to n3. */
export const MAX_LINE_BYTES = 1 << 20;
const DIR_LANG_STRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString';
// n3 refuses rdf:langString and rdf:dirLangString written as datatypes: its error is the answer.
const EXPLICIT_LANG = ['"' + rdf.langString + '||', '"' + DIR_LANG_STRING + '||'];

/** Statements of a plain N-Triples body, or `failed` once a line is not plain N-Triples. */
export class NTriplesBody {
  failed = false;
  private readonly sink = new KeyRowsSink(checkKey);
  private readonly reader: NTriplesByteReader;
  private readonly utf8: Utf8Check | null;
  /** The last byte fed was a carriage return (a line end only when a line feed follows). */
  private cr = false;
  /** Bytes since the last line feed. */
  private lineBytes = 0;

  /**
   * `checkUtf8` false: the bytes were checked already (body-thread.ts checks them on the main
   * thread). `atStart` false: the bytes are a later piece of the body, cut after a line feed (its
   * first line is not the document's, so a byte-order mark there is not dropped).
   */
  constructor(checkUtf8 = true, atStart = true) {
    this.utf8 = checkUtf8 ? new Utf8Check() : null;
    this.reader = new NTriplesByteReader(false, this.sink, atStart ? 1 : 2);
  }

  /**
   * Read the complete lines of the next bytes (false: not plain N-Triples, stop feeding). Throws
   * the 400 for bytes that are not UTF-8, as decoding the body would, whatever else it holds.
   */
  feed(chunk: Uint8Array): boolean {
    this.utf8?.push(chunk);
    if (this.failed || chunk.length === 0) return !this.failed;
    // A bare carriage return ends a line in n3's reading; the reader takes only \n (and \r\n).
    if (this.cr && chunk[0] !== 10) return this.fail();
    for (let k = chunk.indexOf(13); k >= 0 && k + 1 < chunk.length; k = chunk.indexOf(13, k + 1)) {
      if (chunk[k + 1] !== 10) return this.fail();
    }
    this.cr = chunk[chunk.length - 1] === 13;
    const nl = chunk.lastIndexOf(10);
    this.lineBytes = nl < 0 ? this.lineBytes + chunk.length : chunk.length - nl - 1;
    // A line this long is left to n3, so an unfinished line is never held in bulk beside the body.
    if (this.lineBytes > MAX_LINE_BYTES) return this.fail();
    try {
      this.reader.push(chunk);
    } catch {
      return this.fail();
    }
    return true;
  }

  /** The last line (false: not plain N-Triples). */
  end(): boolean {
    this.utf8?.end();
    if (this.failed) return false;
    if (this.cr) return this.fail();
    try {
      this.reader.end();
    } catch {
      return this.fail();
    }
    return true;
  }

  /** The statements read (after a successful end()). */
  rows(): KeyRows {
    return this.sink.rows();
  }

  private fail(): false {
    this.failed = true;
    return false;
  }
}

/** Labels both grammars read alike; others (letters and digits beyond ASCII, where Unicode's classes and Turtle's ranges differ) go to n3. */
const PLAIN_LABEL = /^_:[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?$/;

/** Refuse (throw) a key n3 reads otherwise than the line reader: the body then goes to n3. */
function checkKey(key: string): void {
  const c = key.charCodeAt(0);
  if (c === 95 /* _ */ && !PLAIN_LABEL.test(key)) throw new Error('blank node label for n3');
  if (c === 34 /* " */ && (key.startsWith(EXPLICIT_LANG[0]!) || key.startsWith(EXPLICIT_LANG[1]!))) throw new Error('explicit language-string datatype');
}

/**
 * UTF-8 validation of a byte stream without decoding it: each chunk is checked up to its last
 * complete character as it arrives, the few bytes of a character cut by the chunk's end with the
 * next chunk, so invalid bytes are refused in the chunk a streaming decoder would refuse them.
 */
export class Utf8Check {
  private tail = new Uint8Array(0);

  /** Check the next bytes (throws the 400 at the first invalid ones). */
  push(chunk: Uint8Array): void {
    let b = chunk;
    if (this.tail.length > 0) {
      b = new Uint8Array(this.tail.length + chunk.length);
      b.set(this.tail);
      b.set(chunk, this.tail.length);
    }
    const cut = completeEnd(b);
    if (!isUtf8(b.subarray(0, cut))) invalid();
    this.tail = b.slice(cut);
    // The cut character so far must be a valid beginning (a streaming decoder refuses it now otherwise).
    if (this.tail.length > 0) {
      try { new TextDecoder('utf-8', { fatal: true }).decode(this.tail, { stream: true }); } catch { invalid(); }
    }
  }

  /** The end of the bytes: a character cut there is invalid. */
  end(): void {
    if (this.tail.length > 0) invalid();
  }
}

/** Where the last character of `b` ends, if it is complete; else where it starts. */
function completeEnd(b: Uint8Array): number {
  // Back over at most three continuation bytes to a lead byte.
  for (let k = b.length - 1, cont = 0; k >= 0 && cont <= 3; k--, cont++) {
    const x = b[k]!;
    if ((x & 0xc0) === 0x80) continue;
    const need = x >= 0xf0 ? 4 : x >= 0xe0 ? 3 : x >= 0xc0 ? 2 : 1;
    return b.length - k >= need ? b.length : k;
  }
  return b.length;
}

function invalid(): never {
  throw badRequest('the request body is not valid UTF-8');
}
