import assert from "node:assert/strict";
import { MemoryStateStore } from "./memory_state_store.ts";
import { stateStoreSuite } from "../testing/state_store_suite.ts";

stateStoreSuite("MemoryStateStore", () => Promise.resolve(new MemoryStateStore()));

Deno.test("MemoryStateStore: an expired entry is gone from reads", async () => {
  let now = 1_000;
  const state = new MemoryStateStore(() => now);
  await state.set(["a"], 1, { expireIn: 100 });
  await state.set(["b"], 2);
  now += 99;
  assert.equal((await state.get(["a"]))?.value, 1);
  now += 1;
  assert.equal(await state.get(["a"]), null);
  const listed = [];
  for await (const { key } of state.list({ start: ["a"], end: ["z"] })) listed.push(key);
  assert.deepEqual(listed, [["b"]]);
});
