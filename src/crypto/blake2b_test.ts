import assert from "node:assert/strict";
import { blake2b as reference } from "@noble/hashes/blake2";
import { blake2b } from "./blake2b.ts";

const encoder = new TextEncoder();

Deno.test("blake2b: the RFC 7693 example, and an empty input keyed and not", () => {
  assert.equal(
    blake2b(encoder.encode("abc")).toHex(),
    "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1" +
      "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923",
  );
  const key = new Uint8Array(64).map((_, i) => i);
  assert.equal(
    blake2b(new Uint8Array(), { key }).toHex(),
    reference(new Uint8Array(), { key }).toHex(),
  );
  assert.equal(blake2b(new Uint8Array()).toHex(), reference(new Uint8Array()).toHex());
});

Deno.test("blake2b: the digests of @noble/hashes, at every length around the blocks, keyed or not", () => {
  const lengths = [...Array(300).keys(), 383, 384, 385, 1023, 1024, 1025];
  for (const length of lengths) {
    const data = crypto.getRandomValues(new Uint8Array(length));
    for (const keyLength of [0, 1, 31, 64]) {
      const key = keyLength ? crypto.getRandomValues(new Uint8Array(keyLength)) : undefined;
      for (const dkLen of [1, 8, 16, 32, 63, 64]) {
        assert.equal(
          blake2b(data, { key, dkLen }).toHex(),
          reference(data, { key, dkLen }).toHex(),
          `length ${length}, key ${keyLength}, digest ${dkLen}`,
        );
      }
    }
  }
});

Deno.test("blake2b: an input past the module's memory grows it; later short ones are unchanged", () => {
  const key = crypto.getRandomValues(new Uint8Array(32));
  const large = new Uint8Array(1_048_576 + 77).map((_, i) => (i * 31 + 7) & 255);
  assert.equal(
    blake2b(large, { key, dkLen: 16 }).toHex(),
    reference(large, { key, dkLen: 16 }).toHex(),
  );
  const short = encoder.encode("text\0i keep bees");
  assert.equal(
    blake2b(short, { key, dkLen: 16 }).toHex(),
    reference(short, { key, dkLen: 16 }).toHex(),
  );
});

Deno.test("blake2b: a digest length or key out of range is refused", () => {
  const data = encoder.encode("x");
  for (const dkLen of [0, 65, 1.5]) assert.throws(() => blake2b(data, { dkLen }), RangeError);
  assert.throws(() => blake2b(data, { key: new Uint8Array(65) }), RangeError);
});
