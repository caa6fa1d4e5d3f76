import assert from "node:assert/strict";
import { MemoryAccountDirectory } from "../backends/memory.ts";
import { CachedAccountDirectory } from "./account_cache.ts";

const KEY = "1".repeat(64);
const ACCOUNT = { accountId: "0x" + "1".repeat(64), owner: "0x" + "a".repeat(64), active: true };

Deno.test("CachedAccountDirectory: keeps answers for their time; an aborted call is refused even when cached", async () => {
  const clock = { now: 0 };
  const inner = new MemoryAccountDirectory();
  const directory = new CachedAccountDirectory(inner, { now: () => clock.now });
  inner.add(ACCOUNT, [KEY]);
  assert.deepEqual(await directory.resolve(KEY), ACCOUNT);
  inner.remove(KEY);
  assert.deepEqual(await directory.resolve(KEY), ACCOUNT, "still cached");
  const signal = AbortSignal.abort();
  await assert.rejects(
    () => directory.resolve(KEY, undefined, { signal }),
    (e) => e === signal.reason,
  );
  clock.now += 60_001;
  assert.equal(await directory.resolve(KEY), null, "forgotten after a minute");
});
