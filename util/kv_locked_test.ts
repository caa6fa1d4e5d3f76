import assert from "node:assert/strict";
import { retryWhileLocked } from "./kv_locked.ts";

Deno.test("retryWhileLocked: a commit the file's lock refused is tried again; others are not", async () => {
  let calls = 0;
  const locked = () => new TypeError("database is locked");
  assert.equal(
    await retryWhileLocked(() => ++calls < 3 ? Promise.reject(locked()) : Promise.resolve("ok")),
    "ok",
  );
  assert.equal(calls, 3);
  calls = 0;
  await assert.rejects(
    retryWhileLocked(() => (calls++, Promise.reject(new Error("disk full")))),
    /disk full/,
  );
  assert.equal(calls, 1, "another error is thrown at once");
  calls = 0;
  await assert.rejects(retryWhileLocked(() => (calls++, Promise.reject(locked())), 3), /locked/);
  assert.equal(calls, 3, "the last refusal is thrown");
});
