import assert from "node:assert/strict";
import { freshRead } from "./fresh_read.ts";

Deno.test("fresh read: a call during a read waits for the next one, which later calls share", async () => {
  let reads = 0;
  const gates: (() => void)[] = [];
  const read = freshRead(() =>
    new Promise<number>((resolve) => gates.push(() => resolve(++reads)))
  );
  const first = read();
  const [second, third] = [read(), read()];
  assert.equal(gates.length, 1, "one read under way");
  gates[0]();
  assert.equal(await first, 1);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(gates.length, 2, "the queued read started once the first ended");
  gates[1]();
  assert.deepEqual([await second, await third], [2, 2]);
});

Deno.test("fresh read: a failed read does not stop the one queued behind it", async () => {
  let calls = 0;
  const read = freshRead(() =>
    ++calls === 1 ? Promise.reject(new Error("down")) : Promise.resolve(calls)
  );
  const [failed, next] = [read(), read()];
  await assert.rejects(failed, /down/);
  assert.equal(await next, 2);
});
