/**
 * BLAKE2b (RFC 7693), keyed or not, with digests of 1 to 64 bytes: the keyed hashes of terms,
 * tags, threads and texts (`ranking/terms.ts`) and the addresses of keys. The compression runs
 * in WebAssembly (`blake2b.wat`, on 64-bit words), five to eight times as fast as the JavaScript
 * of `@noble/hashes` on the short inputs these are, with the same digests (the tests compare).
 *
 * The module is `blake2b.wat` compiled with wabt 1.0.39 and base64-encoded:
 * `npx -y -p wabt@1.0.39 wat2wasm blake2b.wat -o blake2b.wasm && base64 -w0 blake2b.wasm`.
 *
 * @example
 * ```ts
 * blake2b(new TextEncoder().encode("abc"), { dkLen: 32 }).toHex();
 * // "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319"
 * ```
 */

const MODULE =
  "AGFzbQEAAAABHQRgBn9/f39+fgBgA39/fwF+YAN/fn8AYAN/f38AAwUEAAECAwUDAQABBxECBm1lbW9yeQIABGhhc2gAAwqFBQR5AQR+IAApAwAgASkDAHwgBHwhBiADKQMAIAaFQiCKIQkgAikDACAJfCEIIAEpAwAgCIVCGIohByAGIAd8IAV8IQYgCSAGhUIQiiEJIAggCXwhCCAHIAiFQj+KIQcgACAGNwMAIAEgBzcDACACIAg3AwAgAyAJNwMACxMAIAAgASACai0AAEEDdGopAwAL9wIBAn9BwABBAEHAAPwKAABBgAFBgANBwAD8CgAAQaABQaABKQMAIAGFNwMAIAIEQEGwAUGwASkDAEJ/hTcDAAtBwAEhBANAQcAAQeAAQYABQaABIAAgBEEAEAEgACAEQQEQARAAQcgAQegAQYgBQagBIAAgBEECEAEgACAEQQMQARAAQdAAQfAAQZABQbABIAAgBEEEEAEgACAEQQUQARAAQdgAQfgAQZgBQbgBIAAgBEEGEAEgACAEQQcQARAAQcAAQegAQZABQbgBIAAgBEEIEAEgACAEQQkQARAAQcgAQfAAQZgBQaABIAAgBEEKEAEgACAEQQsQARAAQdAAQfgAQYABQagBIAAgBEEMEAEgACAEQQ0QARAAQdgAQeAAQYgBQbABIAAgBEEOEAEgACAEQQ8QARAAIARBEGohBCAEQYADSQ0ACwNAIAMgAykDACADQcAAaikDAIUgA0GAAWopAwCFNwMAIANBCGohAyADQcAASQ0ACwt8AQJ/QQBBgANBwAD8CgAAQQBBACkDAEGAgIQIIAJBCHQgAXJyrYU3AwBBgAghA0GACCAAQQFrQQd2QQd0aiEEIABFBEBBgAghBAsCQANAIAMgBE8NASADIANBgAFqQYAIa61BABACIANBgAFqIQMMAAsLIAMgAK1BARACCwuOAgIAQcABC8ABAAECAwQFBgcICQoLDA0ODw4KBAgJDw0GAQwAAgsHBQMLCAwABQIPDQoOAwYHAQkEBwkDAQ0MCw4CBgUKBAAPCAkABQcCBAoPDgELDAYIAw0CDAYKAAsIAwQNBwUPDgEJDAUBDw4NBAoABwYDCQIICw0LBw4MAQMJBQAPBAgGAgoGDw4JCwMACAwCDQcBBAoFCgIIBAcGAQUPCwkOAwwNAAABAgMEBQYHCAkKCwwNDg8OCgQICQ8NBgEMAAILBwUDAEGAAwtACMm882fmCWo7p8qEha5nuyv4lP5y82488TYdXzr1T6XRguatf1IOUR9sPiuMaAWba71B+6vZgx95IX4TGc3gWw==";

/** Where the input starts in the module's memory (below: the state and constants). */
const INPUT = 1024;
const BLOCK = 128;
const PAGE = 65_536;

const instance = new WebAssembly.Instance(new WebAssembly.Module(Uint8Array.fromBase64(MODULE)));
const memory = instance.exports.memory as WebAssembly.Memory;
const hash = instance.exports.hash as (length: number, out: number, keyLength: number) => void;

/** Options of {@link blake2b}. */
export interface Blake2bOptions {
  /** The key of a keyed hash (MAC), 1 to 64 bytes; none by default. */
  key?: Uint8Array;
  /** The digest's length in bytes, 1 to 64 (default 64). */
  dkLen?: number;
}

/** The BLAKE2b digest of `data`, a new array of `dkLen` bytes. */
export function blake2b(data: Uint8Array, options: Blake2bOptions = {}): Uint8Array<ArrayBuffer> {
  const { key, dkLen = 64 } = options;
  if (!Number.isInteger(dkLen) || dkLen < 1 || dkLen > 64) {
    throw new RangeError("Cannot hash with BLAKE2b: the digest length must be 1 to 64 bytes");
  }
  const keyLength = key?.length ?? 0;
  if (keyLength > 64) throw new RangeError("Cannot hash with BLAKE2b: the key is over 64 bytes");
  const prefix = keyLength > 0 ? BLOCK : 0;
  const length = prefix + data.length;
  // Whole blocks, at least one, zero after the input.
  const end = INPUT + Math.max(BLOCK, Math.ceil(length / BLOCK) * BLOCK);
  if (end > memory.buffer.byteLength) {
    memory.grow(Math.ceil((end - memory.buffer.byteLength) / PAGE));
  }
  const bytes = new Uint8Array(memory.buffer);
  bytes.fill(0, INPUT, end);
  if (key) bytes.set(key, INPUT);
  bytes.set(data, INPUT + prefix);
  hash(length, dkLen, keyLength);
  return bytes.slice(0, dkLen);
}
