import assert from "node:assert/strict";
import { inTurn } from "./in_turn.ts";

Deno.test("inTurn: each task starts once the one before settled, a failure included", async () => {
  const turn = inTurn();
  const order: string[] = [];
  let release!: () => void;
  const first = turn(() =>
    new Promise<void>((resolve) => release = resolve).then(() => {
      order.push("first");
      throw new Error("first failed");
    })
  );
  const second = turn(() => Promise.resolve(order.push("second")));
  await Promise.resolve();
  assert.deepEqual(order, []);
  release();
  await assert.rejects(first, /first failed/);
  assert.equal(await second, 2);
  assert.deepEqual(order, ["first", "second"]);
});
