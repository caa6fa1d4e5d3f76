import assert from "node:assert/strict";
import { sleep } from "./sleep.ts";

Deno.test("sleep ends when its signal aborts, and at once on an aborted one", async () => {
  const stop = new AbortController();
  let woke = false;
  const sleeping = sleep(60_000, stop.signal).then(() => woke = true);
  await sleep(1);
  assert.equal(woke, false);
  stop.abort();
  await sleeping;
  assert.equal(woke, true);
  await sleep(60_000, stop.signal);
});
