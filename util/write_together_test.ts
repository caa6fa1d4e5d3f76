import assert from "node:assert/strict";
import { writeTogether } from "./write_together.ts";

Deno.test("writeTogether: one turn's calls go in one write; those made while it runs, in the next", async () => {
  const groups: number[][] = [];
  let release!: () => void;
  const double = writeTogether(async (items: number[]) => {
    groups.push(items);
    if (groups.length === 1) await new Promise<void>((resolve) => release = resolve);
    return items.map((n) => n * 2);
  });
  const first = [1, 2, 3].map(double);
  await Promise.resolve(); // the first write starts
  const later = [4, 5].map(double);
  release();
  assert.deepEqual(await Promise.all([...first, ...later]), [2, 4, 6, 8, 10]);
  assert.deepEqual(groups, [[1, 2, 3], [4, 5]]);
});

Deno.test("writeTogether: a group stays within each limit; an item over them goes alone", async () => {
  const groups: string[][] = [];
  const write = writeTogether((items: string[]) => {
    groups.push(items);
    return Promise.resolve();
  }, { limits: [3, 10], weigh: (item) => [1, item.length] });
  await Promise.all(["aa", "bb", "cc", "dd", "a-long-item", "e", "ffff", "gggggg"].map(write));
  assert.deepEqual(groups, [["aa", "bb", "cc"], ["dd"], ["a-long-item"], ["e", "ffff"], [
    "gggggg",
  ]]);
});

Deno.test("writeTogether: a failed write, or one that throws at once, fails its group only", async () => {
  const write = writeTogether((items: string[]) => {
    if (items.includes("bad")) throw new Error("refused");
    return Promise.resolve(items.map((item) => item.toUpperCase()));
  }, { limits: [2] });
  const results = await Promise.allSettled(["a", "bad", "c", "d"].map(write));
  assert.deepEqual(
    results.map((r) => r.status === "fulfilled" ? r.value : r.reason.message),
    ["refused", "refused", "C", "D"],
  );
  assert.equal(await write("e"), "E", "it goes on after a failure");
});
