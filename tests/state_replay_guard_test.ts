import assert from "node:assert/strict";
import { KvStateStore } from "@svc/denokv";
import { fingerprintOf, SvcError } from "@svc/relayer/kit";
import { replayGuardSuite } from "@svc/relayer/testing";
import { StateReplayGuard, type StateReplayGuardOptions } from "../src/auth/state_replay_guard.ts";

/** The guard over Deno KV, as `openKvStores` opens it. */
const KvReplayGuard = {
  open: (kv: Deno.Kv, options?: StateReplayGuardOptions) =>
    StateReplayGuard.open(new KvStateStore(kv), options),
};

const TTL = 600_000;
const key = (n: number) => `nonce:${"ab".repeat(32)}:nonce-${n}-0123456789`;

/** A KV file in a fresh directory, opened as often as a test needs (as processes would). */
async function kvFile() {
  const dir = await Deno.makeTempDir({ prefix: "svc-replay-" });
  const handles: Deno.Kv[] = [];
  return {
    async open() {
      const kv = await Deno.openKv(`${dir}/jobs.kv`);
      handles.push(kv);
      return kv;
    },
    async [Symbol.asyncDispose]() {
      for (const kv of handles) {
        try {
          kv.close();
        } catch { /* closed by the test */ }
      }
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** The fingerprints of the batches stored in `kv`, as `hi:lo` strings. */
async function storedPrints(kv: Deno.Kv): Promise<string[]> {
  const prints: string[] = [];
  for await (const { value } of kv.list<{ prints: Uint8Array }>({ prefix: ["replay_claims"] })) {
    const view = new DataView(value.prints.buffer, value.prints.byteOffset);
    for (let i = 0; i < value.prints.length; i += 8) {
      prints.push(`${view.getUint32(i)}:${view.getUint32(i + 4)}`);
    }
  }
  return prints;
}
const printOf = (k: string) => {
  const { hi, lo } = fingerprintOf(k);
  return `${hi}:${lo}`;
};

Deno.test("StateReplayGuard over Deno KV: of concurrent claims of one key exactly one is accepted", async () => {
  await using file = await kvFile();
  const guard = await KvReplayGuard.open(await file.open());
  const outcomes = await Promise.all(Array.from({ length: 20 }, () => guard.claim(key(1), TTL)));
  assert.equal(outcomes.filter(Boolean).length, 1);
  assert.equal(await guard.claim(key(1), TTL), false);
  assert.equal(await guard.claim(key(2), TTL), true);
});

Deno.test("StateReplayGuard over Deno KV: a replay is refused across group commit boundaries", async () => {
  await using file = await kvFile();
  const kv = await file.open();
  // Batches of 3: the burst below is written in four commits, one after another.
  const guard = await KvReplayGuard.open(kv, { maxBatch: 3 });
  const first = Array.from({ length: 10 }, (_, i) => guard.claim(key(i), TTL));
  // Sent while the first batches are being written: refused from memory.
  const replays = Array.from({ length: 10 }, (_, i) => guard.claim(key(i), TTL));
  assert.deepEqual(await Promise.all(first), Array(10).fill(true));
  assert.deepEqual(await Promise.all(replays), Array(10).fill(false));
  // Every claim is in the store, in batches of at most 3.
  let batches = 0;
  for await (const { value } of kv.list<{ prints: Uint8Array }>({ prefix: ["replay_claims"] })) {
    batches++;
    assert.ok(value.prints.length <= 3 * 8);
  }
  assert.ok(batches >= 4, `${batches} batches`);
  assert.deepEqual(
    (await storedPrints(kv)).sort(),
    Array.from({ length: 10 }, (_, i) => printOf(key(i))).sort(),
  );
  // And after every batch is written, each key is still refused.
  for (let i = 0; i < 10; i++) assert.equal(await guard.claim(key(i), TTL), false);
});

Deno.test("StateReplayGuard over Deno KV: an accepted claim is in the store when it is answered", async () => {
  await using file = await kvFile();
  const guard = await KvReplayGuard.open(await file.open());
  const other = await file.open();
  for (let i = 0; i < 5; i++) {
    assert.equal(await guard.claim(key(i), TTL), true);
    // Read through another handle on the file, as a process started after a crash would.
    assert.ok((await storedPrints(other)).includes(printOf(key(i))), `claim ${i}`);
  }
});

/**
 * `kv`, whose commits after the first `after` fail `times` times, as SQLite does while another
 * handle holds the write lock.
 */
function lockedFor(kv: Deno.Kv, times: number, after = 0): Deno.Kv {
  return new Proxy(kv, {
    get(target, name) {
      if (name !== "atomic") {
        const value = Reflect.get(target, name);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return () => {
        const op = target.atomic();
        const commit = op.commit.bind(op);
        op.commit = () =>
          after-- <= 0 && times-- > 0
            ? Promise.reject(new TypeError("database is locked"))
            : commit();
        return op;
      };
    },
  });
}

Deno.test("StateReplayGuard over Deno KV: a commit met by a locked file is tried again; a file that stays locked answers 503", async () => {
  await using file = await kvFile();
  const kv = await file.open();
  const guard = await KvReplayGuard.open(lockedFor(kv, 2, 1));
  assert.equal(await guard.claim(key(1), TTL), true);
  assert.deepEqual(await storedPrints(kv), [printOf(key(1))]);

  const stuck = await KvReplayGuard.open(lockedFor(await file.open(), 100, 1));
  await assert.rejects(stuck.claim(key(2), TTL), (error: unknown) => {
    assert.ok(error instanceof SvcError);
    assert.equal(error.code, "backend_unavailable");
    return true;
  });
  assert.equal(await stuck.claim(key(2), TTL), false, "the key stays refused");
});

Deno.test("StateReplayGuard over Deno KV: the claims of the previous process are refused after a restart", async () => {
  await using file = await kvFile();
  const before = await KvReplayGuard.open(await file.open());
  for (let i = 0; i < 50; i++) assert.equal(await before.claim(key(i), TTL), true);
  const after = await KvReplayGuard.open(await file.open());
  assert.equal(after.stats().claims, 50, "read back at start");
  for (let i = 0; i < 50; i++) assert.equal(await after.claim(key(i), TTL), false, `key ${i}`);
  assert.equal(await after.claim(key(50), TTL), true);
});

Deno.test("StateReplayGuard over Deno KV: a fresh store reads back nothing, and expired batches are not read back", async () => {
  await using file = await kvFile();
  const clock = { now: 1_800_000_000_000 };
  const now = () => clock.now;
  const fresh = await KvReplayGuard.open(await file.open(), { now });
  assert.deepEqual(fresh.stats(), { claims: 0, bytes: 0, buckets: 0 });
  assert.equal(await fresh.claim(key(1), 1000), true);
  clock.now += 2000;
  const later = await KvReplayGuard.open(await file.open(), { now });
  assert.equal(later.stats().claims, 0);
  assert.equal(await later.claim(key(1), 1000), true, "expired: usable again");
});

Deno.test("StateReplayGuard over Deno KV: a second process opening the record takes it over; the first refuses", async () => {
  await using file = await kvFile();
  const first = await KvReplayGuard.open(await file.open());
  assert.equal(await first.claim(key(1), TTL), true);
  const second = await KvReplayGuard.open(await file.open());
  await assert.rejects(first.claim(key(2), TTL), (error: unknown) => {
    assert.ok(error instanceof SvcError);
    assert.equal(error.status, 503);
    assert.match(error.message, /one relayer per data directory/);
    return true;
  });
  await assert.rejects(first.claim(key(3), TTL), SvcError, "and keeps refusing");
  assert.equal(await second.claim(key(1), TTL), false);
  assert.equal(await second.claim(key(2), TTL), true, "never accepted by the first");
});

Deno.test("StateReplayGuard over Deno KV: a failing store answers 503 and the key stays refused", async () => {
  await using file = await kvFile();
  const kv = await file.open();
  const guard = await KvReplayGuard.open(kv);
  kv.close();
  await assert.rejects(guard.claim(key(1), TTL), (error: unknown) => {
    assert.ok(error instanceof SvcError);
    assert.equal(error.code, "backend_unavailable");
    return true;
  });
  assert.equal(await guard.claim(key(1), TTL), false);
});

Deno.test("StateReplayGuard over Deno KV: claims in the layout of earlier versions are looked up after an upgrade", async () => {
  await using file = await kvFile();
  const kv = await file.open();
  await kv.set(["replay", key(1)], Date.now() + TTL, { expireIn: TTL });
  await kv.set(["replay", key(2)], Date.now() - 1000);
  const guard = await KvReplayGuard.open(await file.open());
  assert.equal(await guard.claim(key(1), TTL), false);
  assert.equal(await guard.claim(key(2), TTL), true, "past its deadline");
  assert.equal(await guard.claim(key(3), TTL), true);
});

Deno.test("StateReplayGuard over Deno KV: a reserved claim is refused at once, and durable only once settled", async () => {
  await using file = await kvFile();
  const kv = await file.open();
  const guard = await KvReplayGuard.open(kv);
  const reserved = await guard.reserve(key(1), TTL);
  assert.ok(reserved);
  assert.equal(await guard.reserve(key(1), TTL), false);
  assert.equal(await guard.claim(key(1), TTL), false);
  assert.deepEqual(await storedPrints(kv), [], "nothing written before it is settled");
  // A process gone before the claim settled: the key was never durably claimed.
  assert.equal(await (await KvReplayGuard.open(await file.open())).claim(key(1), TTL), true);

  const again = await KvReplayGuard.open(await file.open());
  const claim = await again.reserve(key(2), TTL);
  assert.ok(claim);
  await Promise.all([claim.settle(), claim.settle()]);
  assert.deepEqual(await storedPrints(kv), [printOf(key(1)), printOf(key(2))]);
  assert.equal(await (await KvReplayGuard.open(await file.open())).claim(key(2), TTL), false);
});

Deno.test("StateReplayGuard: a claim carried by another batch on its store is written by that batch", async () => {
  await using file = await kvFile();
  const kv = await file.open();
  const state = new KvStateStore(kv);
  const guard = await StateReplayGuard.open(state);
  const claim = await guard.reserve(key(1), TTL);
  assert.ok(claim);
  const carried = claim.carriedBy?.(state);
  assert.ok(carried);
  const batch = state.batch().set(["job", "j1"], "accepted");
  carried.add(batch);
  assert.ok(await batch.commit());
  carried.landed();
  await claim.settle();
  assert.deepEqual(await storedPrints(kv), [printOf(key(1))], "written once, by the batch");
  assert.equal(await (await KvReplayGuard.open(await file.open())).claim(key(1), TTL), false);

  // Not on another store. And `guard` was taken over by the process opened just above: a
  // batch carrying its claim does not land, nor does the change it carries.
  const late = await guard.reserve(key(2), TTL);
  assert.ok(late);
  assert.equal(late.carriedBy?.(new KvStateStore(kv)), undefined);
  const stale = late.carriedBy?.(state);
  assert.ok(stale);
  const refused = state.batch().set(["job", "j2"], "accepted");
  stale.add(refused);
  assert.equal(await refused.commit(), false);
  assert.equal((await kv.get(["job", "j2"])).value, null);
  await assert.rejects(late.settle(), SvcError);
});

replayGuardSuite("StateReplayGuard over Deno KV", async (now) => {
  const file = await kvFile();
  const guard = await KvReplayGuard.open(await file.open(), { now, bucketMs: 60_000 });
  return Object.assign(guard, { [Symbol.asyncDispose]: () => file[Symbol.asyncDispose]() });
});
