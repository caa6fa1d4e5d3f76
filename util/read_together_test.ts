import assert from "node:assert/strict";
import { readTogether } from "./read_together.ts";

Deno.test("readTogether: the calls of one turn are read in groups of at most `size`, each answered with its own result", async () => {
  const groups: number[][] = [];
  const double = readTogether(4, (items: number[]) => {
    groups.push(items);
    return Promise.resolve(items.map((n) => n * 2));
  });
  assert.deepEqual(await Promise.all([1, 2, 3, 4, 5, 6].map(double)), [2, 4, 6, 8, 10, 12]);
  assert.deepEqual(groups, [[1, 2, 3, 4], [5, 6]]);
  // A call of a later turn is read on its own.
  assert.equal(await double(7), 14);
  assert.deepEqual(groups.at(-1), [7]);
});

Deno.test("readTogether: a group that fails, or throws at once, fails each of its calls and no other", async () => {
  const read = readTogether(2, (items: string[]) => {
    if (items.includes("bad")) throw new Error("refused");
    if (items.includes("worse")) return Promise.reject(new Error("gone"));
    return Promise.resolve(items.map((item) => item.toUpperCase()));
  });
  const results = await Promise.allSettled(["a", "bad", "c", "d", "worse", "f"].map(read));
  assert.deepEqual(results.map((r) => r.status === "fulfilled" ? r.value : r.reason.message), [
    "refused",
    "refused",
    "C",
    "D",
    "gone",
    "gone",
  ]);
});
