/**
 * State keys as bytes whose byte order is the keys' order (as Deno KV and FoundationDB's tuple
 * layer encode them): a string is 0x02, its UTF-8 bytes with each 0x00 written 0x00 0xFF, then
 * 0x00; a number is 0x21 and its float64, big-endian, with the sign bit flipped (every bit, for a
 * negative number). A key's encoding starts with its prefix's, so a prefix selects a byte range.
 *
 * @example
 * ```ts
 * const [from, to] = selectorRange({ prefix: ["expiry"] });
 * compareBytes(encodeKey(["expiry", 5]), to) < 0; // true
 * ```
 * @module
 */
import type { StateKey, StateSelector } from "./state_store.ts";

const STRING = 0x02;
const NUMBER = 0x21;

/** A float64's bytes, sign bit flipped (every bit when `negative`): ordered as the numbers. */
function flipped(raw: Uint8Array<ArrayBuffer>, negative: boolean): Uint8Array<ArrayBuffer> {
  return raw.map((byte, i) => negative ? ~byte & 0xff : i === 0 ? byte ^ 0x80 : byte);
}

/** The bytes of `key`; throws on a part that is neither a string nor a finite number. */
export function encodeKey(key: StateKey): Uint8Array<ArrayBuffer> {
  const bytes: number[] = [];
  for (const part of key) {
    if (typeof part === "string") {
      bytes.push(STRING);
      for (const byte of new TextEncoder().encode(part)) {
        bytes.push(byte);
        if (byte === 0) bytes.push(0xff);
      }
      bytes.push(0);
    } else if (typeof part === "number" && Number.isFinite(part)) {
      const view = new DataView(new ArrayBuffer(8));
      view.setFloat64(0, part);
      const raw = new Uint8Array(view.buffer);
      bytes.push(NUMBER, ...flipped(raw, (raw[0] & 0x80) !== 0));
    } else {
      throw new TypeError(`A state key part is a string or a finite number, not ${String(part)}`);
    }
  }
  return new Uint8Array(bytes);
}

/** The key `bytes` encode. */
export function decodeKey(bytes: Uint8Array): StateKey {
  const key: (string | number)[] = [];
  let i = 0;
  while (i < bytes.length) {
    const tag = bytes[i++];
    if (tag === STRING) {
      const part: number[] = [];
      for (; !(bytes[i] === 0 && bytes[i + 1] !== 0xff); i++) {
        if (i >= bytes.length) throw new TypeError("Not a state key: a string is not ended");
        part.push(bytes[i]);
        if (bytes[i] === 0) i++;
      }
      i++;
      key.push(new TextDecoder().decode(new Uint8Array(part)));
    } else if (tag === NUMBER) {
      const raw = bytes.slice(i, i + 8);
      key.push(new DataView(flipped(raw, (raw[0] & 0x80) === 0).buffer).getFloat64(0));
      i += 8;
    } else {
      throw new TypeError(`Not a state key: byte ${tag} at ${i - 1}`);
    }
  }
  return key;
}

/** Bytes compared as unsigned, left to right; a prefix sorts first. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** The keys `selector` selects, as encoded bytes: from (inclusive) and to (exclusive). */
export function selectorRange(selector: StateSelector): [Uint8Array, Uint8Array] {
  const { prefix, start, end } = selector;
  const under = prefix && encodeKey(prefix);
  const from = start ? encodeKey(start) : under && new Uint8Array([...under, 0x00]);
  const to = end ? encodeKey(end) : under && new Uint8Array([...under, 0xff]);
  const outside = (key: Uint8Array | undefined) =>
    under && key && compareBytes(key.subarray(0, under.length), under) !== 0;
  if (!from || !to || (under && start && end) || outside(from) || outside(to)) {
    throw new TypeError(
      "A state selector is a prefix, with a start or an end under it, or a start and an end",
    );
  }
  return [from, to];
}
