import { describe, expect, it } from 'vitest';
import { md5, sha1, sha256, sha384, sha512, toHex, utf8Encode } from './hash.js';

// Vectors: FIPS 180-4 / RFC 1321 examples plus padding-boundary lengths (55/56, 111/112 bytes),
// multi-block input and non-ASCII (UTF-8) strings; expected digests computed with OpenSSL.
const VECTORS: [string, Record<string, string>][] = [
  ['', {
    md5: 'd41d8cd98f00b204e9800998ecf8427e',
    sha1: 'da39a3ee5e6b4b0d3255bfef95601890afd80709',
    sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    sha384: '38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b',
    sha512: 'cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e',
  }],
  ['abc', {
    md5: '900150983cd24fb0d6963f7d28e17f72',
    sha1: 'a9993e364706816aba3e25717850c26c9cd0d89d',
    sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    sha384: 'cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7',
    sha512: 'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
  }],
  ['a'.repeat(55), {
    md5: 'ef1772b6dff9a122358552954ad0df65',
    sha1: 'c1c8bbdc22796e28c0e15163d20899b65621d65a',
    sha256: '9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318',
    sha384: '5d91ac7e74e62b5c728904b40f10784d66b7af9cb6302123e48c92f0432ceb8d2a92c02de77dcb29ed75c4b42bde46f4',
    sha512: 'b0220c772cbf6c1822e2cb38a437d0e1d58772417a4bbb21c961364f8b6143e05aa6316dca8d1d7b19e16448419076395f6086cb55101fbd6d5497b148e1745f',
  }],
  ['a'.repeat(56), {
    md5: '3b0c8ac703f828b04c6c197006d17218',
    sha1: 'c2db330f6083854c99d4b5bfb6e8f29f201be699',
    sha256: 'b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a',
    sha384: '8a8d9649ea04e993a6ca7135af7e3392cc5fca84f8531cac7aa3feed4eb98f55dcbe0f3284b61c6f35f98b02cc644b4c',
    sha512: '962b64aae357d2a4fee3ded8b539bdc9d325081822b0bfc55583133aab44f18bafe11d72a7ae16c79ce2ba620ae2242d5144809161945f1367f41b3972e26e04',
  }],
  ['a'.repeat(111), {
    md5: '089f243d1e831c5879aa375ee364a06e',
    sha1: 'ac877859d427d9192054eea8feb3b8a403ef83a5',
    sha256: '6374f73208854473827f6f6a3f43b1f53eaa3b82c21c1a6d69a2110b2a79baad',
    sha384: '3c37955051cb5c3026f94d551d5b5e2ac38d572ae4e07172085fed81f8466b8f90dc23a8ffcdea0b8d8e58e8fdacc80a',
    sha512: 'fa9121c7b32b9e01733d034cfc78cbf67f926c7ed83e82200ef86818196921760b4beff48404df811b953828274461673c68d04e297b0eb7b2b4d60fc6b566a2',
  }],
  ['a'.repeat(112), {
    md5: '9146ef3527c7cfcc66dc615c3986e391',
    sha1: '689993727ba37386bb032495e9dbdfb4dd1ba744',
    sha256: 'f54353008a2553262ecdc4a34749563ba0950e8b0fc8652780b0a614b99683c1',
    sha384: '187d4e07cb306103c69967bf544d0dfbe9042577599c73c330abc0cb64c61236d5ed565ee19119d8c31779a38f791fcd',
    sha512: 'c01d080efd492776a1c43bd23dd99d0a2e626d481e16782e75d54c2503b5dc32bd05f0f1ba33e568b88fd2d970929b719ecbb152f58f130a407c8830604b70ca',
  }],
  ['a'.repeat(1000), {
    md5: 'cabe45dcc9ae5b66ba86600cca6b8ba8',
    sha1: '291e9a6c66994949b57ba5e650361e98fc36b1ba',
    sha256: '41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3',
    sha384: 'f54480689c6b0b11d0303285d9a81b21a93bca6ba5a1b4472765dca4da45ee328082d469c650cd3b61b16d3266ab8ced',
    sha512: '67ba5535a46e3f86dbfbed8cbbaf0125c76ed549ff8b0b9e03e0c88cf90fa634fa7b12b47d77b694de488ace8d9a65967dc96df599727d3292a8d9d447709c97',
  }],
  ['食べ物', {
    md5: 'e7ada485d13b1decf628c9211bc3a97b',
    sha1: 'caf1f189d7064f8987e972525091c29f7e462c74',
    sha256: '23ba21e7ed4e975785764eafbfc1414c19ad0a43355d14d99d7903c35d20c2fa',
    sha384: 'def0952dc3545a38e509596a762f3b906ff2f3643dc45fd39732078bd3ab1835b7d6776b2ab04bdab6bfe5611c693e3e',
    sha512: '7723341e7ee6a9e6df461e05dd887f5c05201c40e7fa731343cfe1fd2280e5e5429323626584df4c68bd82f094cf888843944b718f5cd70ecf831e9e37d19d09',
  }],
  ['\u{1F600}x', {
    md5: '387521b62098c4bb1c77dc464d1b265c',
    sha1: '8b1d691b0f3ce4ef62149b1718846cd1c3b6a0df',
    sha256: '10f5e9cdd01d869815a52f43599f9c372ffa4b41cda11b5180da85dc0928333c',
    sha384: 'e70068cec486b69c8fae732d97609b2ffc5f8c6328d03c1c4ac8d10b27632bf790eaa932a497fe11ee2d802144f9eb98',
    sha512: '8e4f3fc5a8c9ed39db38278b574a57051b2be44aa6baadedfc4e528914c01798645cac3e97095f20b471f7aa2f8758f37224dd0bbd54f2dc431370b0b7b4ee25',
  }],
  ['abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq', {
    md5: '8215ef0796a20bcaaae116d3876c664a',
    sha1: '84983e441c3bd26ebaae4aa1f95129e5e54670f1',
    sha256: '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    sha384: '3391fdddfc8dc7393707a65b1b4709397cf8b1d162af05abfe8f450de5f36bc6b0455a8520bc4e6f5fe95b1fe3c8452b',
    sha512: '204a8fc6dda82f0a0ced7beb8e08a41657c16ef468b228a8279be331a703c33596fd15c13b1b07f9aa1d3bea57789ca031ad85c7a71dd70354ec631238ca3445',
  }],
];

const FNS = { md5, sha1, sha256, sha384, sha512 } as const;

describe('hash functions', () => {
  for (const [input, digests] of VECTORS) {
    for (const [name, hex] of Object.entries(digests)) {
      it(`${name}(${input.length > 20 ? input.slice(0, 10) + '…' + input.length : JSON.stringify(input)})`, () => {
        expect(toHex(FNS[name as keyof typeof FNS](utf8Encode(input)))).toBe(hex);
      });
    }
  }

  it('encodes UTF-8 like TextEncoder, lone surrogates as U+FFFD', () => {
    for (const s of ['', 'abc', 'é', '食べ物', '\u{1F600}', 'a\uD800b', '\uDC00', '\u07FF\u0800\uFFFF']) {
      expect(Array.from(utf8Encode(s))).toEqual(Array.from(new TextEncoder().encode(s)));
    }
  });
});
