/**
 * A test vector of the storage-proxy flake format (docs/formats.md "Storage-proxy flakes"): two
 * flakes and their exact bytes, shared by the Node unit test and the browser self-test.
 */
import type { WireFlake } from './flakes-codec.js';

export const FLAKES_VECTOR: WireFlake[] = [
  { s: { ns: 100, name: 'alice' }, p: { ns: 100, name: 'age' }, o: { type: 'long', value: 42 }, dt: { ns: 1, name: 'integer' }, t: 3, op: true },
  { s: { ns: 100, name: 'alice' }, p: { ns: 100, name: 'name' }, o: { type: 'string', value: 'Alice' }, dt: { ns: 2, name: 'langString' }, t: 2, op: false, lang: 'en' },
];

/** `FLKB 01 000000` then the CBOR array (map keys in length-first canonical order). */
export const FLAKES_VECTOR_HEX =
  '464c4b420100000082a6616fa26474797065646c6f6e676576616c7565182a6170a2626e731864646e616d65636167656173a2626e731864646e616d6565616c69636561740362'
  + '6474a2626e7301646e616d6567696e7465676572626f70f5a7616fa2647479706566737472696e676576616c756565416c6963656170a2626e731864646e616d65646e616d6561'
  + '73a2626e731864646e616d6565616c696365617402626474a2626e7302646e616d656a6c616e67537472696e67626f70f4646c616e6762656e';
