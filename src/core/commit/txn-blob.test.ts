import { describe, expect, test } from 'vitest';
import { Utf8Text, decodeTxnBlob, encodeTxnBlob, encodeTxnBlobSliced, txnBlobWithCid, type TxnBlob } from './txn-blob.js';
import { TimeSlice } from '../util/next-turn.js';
import { Codec, cidOf, digestHex, parseCid, verifyCid } from './cid.js';
import { expect422 } from '../test-support/expect-error.js';

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
const EXAMPLE = '{"type":"application/json","body":{"@context":{"ex":"http://example.org/"},"insert":{"@id":"ex:alice","ex:name":"Alice"}},"identity":null,"jws":null}';

describe('replication.md §4 example', () => {
  const blob: TxnBlob = {
    type: 'application/json',
    body: { '@context': { ex: 'http://example.org/' }, insert: { '@id': 'ex:alice', 'ex:name': 'Alice' } },
    identity: null,
    jws: null,
  };

  test('bytes, digest and CID of §1', async () => {
    const bytes = encodeTxnBlob(blob);
    expect(new TextDecoder().decode(bytes)).toBe(EXAMPLE);
    expect(bytes.length).toBe(149);
    const { cid } = await txnBlobWithCid(blob);
    expect(digestHex(cid)).toBe('9e09d6719a681b56bacc18aa457b7f3815a8fd36baf8e9308f0e5bc1e417ca2d');
    expect(hex(cid.bytes)).toBe('018280c00112209e09d6719a681b56bacc18aa457b7f3815a8fd36baf8e9308f0e5bc1e417ca2d');
    expect(cid.toString()).toBe('bagbibqabciqj4cowogngqg2wxlgbrksfpn7tqfni7u3lv6hjgchq4w6b4ql4uli');
    expect(digestHex(cid).slice(0, 6)).toBe('9e09d6');
    expect(cid.code).toBe(Codec.txn);
    expect(await verifyCid(parseCid('bagbibqabciqj4cowogngqg2wxlgbrksfpn7tqfni7u3lv6hjgchq4w6b4ql4uli'), bytes)).toBe(true);
  });

  test('key order is fixed whatever order the object was built in', async () => {
    const shuffled = { jws: null, identity: null, body: blob.body, type: 'application/json' } as TxnBlob;
    expect(hex(encodeTxnBlob(shuffled))).toBe(hex(encodeTxnBlob(blob)));
    expect((await cidOf(Codec.txn, encodeTxnBlob(shuffled))).toString()).toBe('bagbibqabciqj4cowogngqg2wxlgbrksfpn7tqfni7u3lv6hjgchq4w6b4ql4uli');
  });

  test('decode', () => {
    expect(decodeTxnBlob(new TextEncoder().encode(EXAMPLE))).toEqual(blob);
  });
});

describe('other bodies', () => {
  test('text bodies, identity and JWS round-trip', () => {
    const blob: TxnBlob = { type: 'application/sparql-update', body: 'INSERT DATA { <a:b> <a:c> "d" }', identity: 'did:key:z6Mk', jws: 'eyJ.eyJ.sig' };
    const bytes = encodeTxnBlob(blob);
    expect(new TextDecoder().decode(bytes)).toBe('{"type":"application/sparql-update","body":"INSERT DATA { <a:b> <a:c> \\"d\\" }","identity":"did:key:z6Mk","jws":"eyJ.eyJ.sig"}');
    expect(decodeTxnBlob(bytes)).toEqual(blob);
  });

  test('unknown keys are ignored on decode', () => {
    expect(decodeTxnBlob(new TextEncoder().encode('{"type":"text/turtle","body":"","identity":null,"jws":null,"future":1}')))
      .toEqual({ type: 'text/turtle', body: '', identity: null, jws: null });
  });
});

describe('malformed blobs', () => {
  const dec = (s: string) => () => decodeTxnBlob(new TextEncoder().encode(s));
  test('decode rejections', () => {
    expect422(() => decodeTxnBlob(Uint8Array.of(0x7b, 0xff, 0x7d)), 'malformed transaction blob: invalid UTF-8');
    expect422(dec('{"type":'), 'malformed transaction blob: not JSON');
    expect422(dec('[1]'), 'malformed transaction blob: not a JSON object');
    expect422(dec('{"body":1,"identity":null,"jws":null}'), 'malformed transaction blob: type must be a non-empty string');
    expect422(dec('{"type":"a/b","identity":null,"jws":null}'), 'malformed transaction blob: body is missing');
    expect422(dec('{"type":"a/b","body":1,"jws":null}'), 'malformed transaction blob: identity must be a string or null');
    expect422(dec('{"type":"a/b","body":1,"identity":null,"jws":5}'), 'malformed transaction blob: jws must be a string or null');
  });
  test('encode rejections', () => {
    expect422(() => encodeTxnBlob({ type: '', body: 1, identity: null, jws: null }), 'malformed transaction blob: type must be a non-empty string');
    expect422(() => encodeTxnBlob({ type: 'a/b', body: undefined, identity: null, jws: null }), 'malformed transaction blob: body is missing');
  });
});

describe('encodeTxnBlobSliced', () => {
  test('the same bytes as encodeTxnBlob for a multi-megabyte text body with quotes, escapes and surrogate pairs', async () => {
    const { encodeTxnBlobSliced } = await import('./txn-blob.js');
    const { TimeSlice } = await import('../util/next-turn.js');
    // A pair straddles every possible piece boundary: the unit before it shifts by one each line.
    let body = '';
    for (let i = 0; body.length < 1_200_000; i++) body += `<http://ex.org/s${i}> <http://ex.org/p> "v \\"${i}\\" ${'x'.repeat(i % 7)}\u{1F600}\n\t\u0001" .\n`;
    for (const b of [body, body.slice(1), 'short']) {
      const blob: TxnBlob = { type: 'application/n-triples', body: b, identity: 'did:key:z6Mk', jws: null };
      const got = await encodeTxnBlobSliced(blob, new TimeSlice(0)), want = encodeTxnBlob(blob);
      expect(got.length).toBe(want.length);
      let diff = -1;
      for (let i = 0; i < want.length && diff < 0; i++) if (got[i] !== want[i]) diff = i;
      expect(diff).toBe(-1);
    }
  });
});

describe('a text body held as UTF-8 bytes (Utf8Text)', () => {
  /** Every control character, quotes, backslashes, DEL, U+2028/9, 2-, 3- and 4-byte characters. */
  const texts = [
    Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)).join('') + '"\\/\u007f\u2028\u2029é€😀 end',
    '\uFEFF<http://a.example/s> <http://a.example/p> "BOM first" .\n',
    'a\uFEFFb',
    '',
    ('<http://ex.org/s> <http://ex.org/p> "wert — ünï \\"q\\" 🙂\\n" .\r\n').repeat(40000),
    // A 4-byte character across the first 1 MiB slice boundary, a 3-byte one across the second.
    'a'.repeat(2 ** 20 - 1) + '😀' + 'b'.repeat(2 ** 20 - 5) + '€\n"',
    // A byte-order mark inside the body, opening the second slice: text, kept.
    'a'.repeat(2 ** 20) + '\uFEFFx',
  ];
  const blobOf = (body: unknown): TxnBlob => ({ type: 'application/n-triples', body, identity: 'did:key:x', jws: null });

  test('encodes exactly the bytes of the decoded text, whole and sliced', async () => {
    for (const text of texts) {
      const bytes = new TextEncoder().encode(text);
      const want = encodeTxnBlob(blobOf(new TextDecoder().decode(bytes)));
      const same = (got: Uint8Array) => got.length === want.length && got.every((b, i) => b === want[i]);
      expect(same(encodeTxnBlob(blobOf(new Utf8Text(bytes))))).toBe(true);
      const sliced = await encodeTxnBlobSliced(blobOf(new Utf8Text(bytes)), new TimeSlice(0));
      expect(same(sliced)).toBe(true);
      if (text.length < 100) expect(hex(sliced)).toBe(hex(want));
      expect(decodeTxnBlob(want).body).toBe(new TextDecoder().decode(bytes));
    }
  });
});
