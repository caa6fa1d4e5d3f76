import assert from "node:assert/strict";
import { compareBytes, decodeKey, encodeKey, selectorRange } from "./state_key.ts";

Deno.test("state keys: decoding gives back the key; byte order is key order", () => {
  const keys = [
    [],
    [""],
    ["\u0000", "a\u0000b"],
    ["a", -0.5, "é", 1e15],
    [-1e300, 0, 3],
  ];
  for (const key of keys) assert.deepEqual(decodeKey(encodeKey(key)), key);
  assert.ok(compareBytes(encodeKey(["a"]), encodeKey(["a", 1])) < 0, "a prefix first");
  assert.ok(compareBytes(encodeKey(["a\u0000"]), encodeKey(["a", ""])) > 0);
  assert.ok(compareBytes(encodeKey(["z"]), encodeKey([-5])) < 0, "strings before numbers");
  assert.ok(compareBytes(encodeKey([-5]), encodeKey([-4.5])) < 0);
});

Deno.test("state keys: a part that is neither a string nor a finite number is refused", () => {
  assert.throws(() => encodeKey(["a", NaN]), TypeError);
  assert.throws(() => encodeKey([true as unknown as string]), TypeError);
  assert.throws(() => decodeKey(new Uint8Array([0x02, 0x61])), TypeError);
});

Deno.test("state selectors: a start or an end outside the prefix is refused, as Deno KV does", () => {
  assert.throws(() => selectorRange({ prefix: ["a"], start: ["b"] }), TypeError);
  assert.throws(() => selectorRange({ prefix: ["a"], end: [1] }), TypeError);
  assert.throws(() => selectorRange({ prefix: ["a"], start: ["a", 1], end: ["a", 2] } as never));
  const [from, to] = selectorRange({ prefix: ["a"], start: ["a", 1] });
  assert.ok(compareBytes(from, to) < 0);
});
