import assert from "node:assert/strict";
import { keyPairFromSeed, sha256Hex } from "./keys.ts";

Deno.test("sha256Hex: the same digest as WebCrypto at every size, for bytes and text", async () => {
  for (const size of [0, 1, 55, 56, 64, 1023, 1024, 1025, 4096, 100_000]) {
    const bytes = crypto.getRandomValues(new Uint8Array(Math.min(size, 65_536)));
    const data = size > 65_536 ? new Uint8Array(size).fill(7) : bytes;
    const expected = new Uint8Array(await crypto.subtle.digest("SHA-256", data)).toHex();
    assert.equal(await sha256Hex(data), expected, `${size} bytes`);
  }
  const text = "svc ✓ ".repeat(300);
  assert.equal(
    await sha256Hex(text),
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))).toHex(),
  );
  assert.equal(
    await sha256Hex(""),
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
});

Deno.test("keyPairFromSeed: a malformed seed is a rejected promise, not a thrown error", async () => {
  for (const seed of ["", "ab".repeat(31), "AB".repeat(32), "zz".repeat(32), "ab".repeat(33)]) {
    const loading = keyPairFromSeed(seed);
    await assert.rejects(loading, { name: "TypeError", message: /64 lowercase hex/ });
  }
});
