import assert from "node:assert/strict";
import { MemoryAccountDirectory } from "../backends/memory.ts";
import { SvcError } from "../errors.ts";
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

Deno.test("CachedAccountDirectory: a key past its expiry is refused, cached or not", async () => {
  const clock = { now: 1_000 };
  const inner = new MemoryAccountDirectory();
  const directory = new CachedAccountDirectory(inner, { now: () => clock.now });
  inner.add({ ...ACCOUNT, expiresAt: 5_000 }, [KEY]);
  assert.equal((await directory.resolve(KEY))?.expiresAt, 5_000);
  clock.now = 4_999;
  assert.equal((await directory.resolve(KEY))?.accountId, ACCOUNT.accountId, "cached, valid");
  clock.now = 5_000;
  await assert.rejects(
    () => directory.resolve(KEY),
    (e: SvcError) => e.status === 401 && e.details.reason === "expired_key",
  );
  const uncached = new CachedAccountDirectory(inner, { positiveTtlMs: 0, now: () => clock.now });
  await assert.rejects(() => uncached.resolve(KEY), (e: SvcError) => e.status === 401);
});

Deno.test("CachedAccountDirectory: a TTL of 0 asks the directory every time", async () => {
  const inner = new MemoryAccountDirectory();
  const directory = new CachedAccountDirectory(inner, { positiveTtlMs: 0, negativeTtlMs: 0 });
  assert.equal(await directory.resolve(KEY), null);
  inner.add(ACCOUNT, [KEY]);
  assert.deepEqual(await directory.resolve(KEY), ACCOUNT, "not remembered as unknown");
  inner.remove(KEY);
  assert.equal(await directory.resolve(KEY), null, "not remembered as found");
});

Deno.test("CachedAccountDirectory: an owner's account is kept as a key's is, its absence for less", async () => {
  const clock = { now: 0 };
  let asked = 0;
  const inner = new MemoryAccountDirectory();
  const resolveOwner = inner.resolveOwner.bind(inner);
  inner.resolveOwner = (owner, options) => (asked++, resolveOwner(owner, options));
  const directory = new CachedAccountDirectory(inner, { now: () => clock.now });
  assert.equal(await directory.resolveOwner(ACCOUNT.owner), null);
  inner.add(ACCOUNT, [KEY]);
  assert.equal(await directory.resolveOwner(ACCOUNT.owner), null, "its absence, for 10 s");
  clock.now += 10_001;
  assert.equal((await directory.resolveOwner(ACCOUNT.owner))?.accountId, ACCOUNT.accountId);
  assert.equal((await directory.resolveOwner(ACCOUNT.owner))?.accountId, ACCOUNT.accountId);
  assert.equal(asked, 2, "asked once each time it was not kept");
});
