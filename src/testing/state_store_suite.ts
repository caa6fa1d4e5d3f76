/**
 * The conformance suite of `StateStore`: values come back as written; keys are ordered as Deno KV
 * orders them (strings by their bytes, before numbers, numbers by value); a list selects by
 * prefix, start and end, in either order and up to a limit; a batch writes all or nothing; of
 * concurrent batches checking the same version exactly one commits.
 */
import assert from "node:assert/strict";
import { type StateKey, type StateStore, writeInBatches } from "../state/state_store.ts";

/** Registers the suite's tests for the stores `open` makes (each test gets an empty one). */
export function stateStoreSuite(
  name: string,
  open: () => Promise<StateStore & Partial<AsyncDisposable>>,
): void {
  const test = (title: string, body: (state: StateStore) => Promise<void>) =>
    Deno.test(`${name}: ${title}`, async () => {
      const state = await open();
      try {
        await body(state);
      } finally {
        await state[Symbol.asyncDispose]?.();
      }
    });

  const keys = async (state: StateStore, ...args: Parameters<StateStore["list"]>) => {
    const found: StateKey[] = [];
    for await (const { key } of state.list(...args)) found.push(key);
    return found;
  };

  test("a value comes back as it was written; a deleted one is gone", async (state) => {
    const value = { n: 1.5, s: "ü\u0000x", list: [1, "a", null], bytes: new Uint8Array([0, 255]) };
    await state.set(["a", 1], value);
    const entry = await state.get<typeof value>(["a", 1]);
    assert.deepEqual(entry?.key, ["a", 1]);
    assert.deepEqual(entry?.value, value);
    assert.ok(entry!.value.bytes instanceof Uint8Array);
    assert.equal(await state.get(["a", "1"]), null, "a string part is not a number part");
    await state.delete(["a", 1]);
    assert.equal(await state.get(["a", 1]), null);
    await state.delete(["never"]);
  });

  test("getMany answers each key in order, null where there is none", async (state) => {
    for (let i = 0; i < 25; i++) await state.set(["k", i], i * 10);
    const found = await state.getMany<number>([["k", 3], ["k", 99], ["k", 24], ["x"]]);
    assert.deepEqual(found.map((entry) => entry?.value ?? null), [30, null, 240, null]);
    const many = await state.getMany<number>(Array.from({ length: 25 }, (_, i) => ["k", i]));
    assert.deepEqual(
      many.map((entry) => entry?.value),
      Array.from({ length: 25 }, (_, i) => i * 10),
    );
  });

  test("keys are ordered part by part: strings by bytes, then numbers by value", async (state) => {
    const order: StateKey[] = [
      ["p", ""],
      ["p", "\u0000"],
      ["p", "A"],
      ["p", "a"],
      ["p", "a", "b"],
      ["p", "a", 1],
      ["p", "ab"],
      ["p", "é"],
      ["p", -1e300],
      ["p", -2.5],
      ["p", -0.5],
      ["p", 0],
      ["p", 0.25],
      ["p", 3],
      ["p", 1e15],
    ];
    for (const key of [...order].reverse()) await state.set(key, true);
    await state.set(["p"], "the prefix itself");
    await state.set(["q", ""], "after");
    assert.deepEqual(await keys(state, { prefix: ["p"] }), order);
    assert.deepEqual(await keys(state, { prefix: ["p"] }, { reverse: true }), [...order].reverse());
    assert.deepEqual(await keys(state, { prefix: ["p"] }, { limit: 3 }), order.slice(0, 3));
    assert.deepEqual(
      await keys(state, { prefix: ["p"] }, { limit: 2, reverse: true }),
      order.slice(-2).reverse(),
    );
  });

  test("a long list comes whole and in order, either way, up to its limit", async (state) => {
    const keys = Array.from({ length: 1_201 }, (_, i) => ["long", i] as StateKey);
    await writeInBatches(state, keys, (batch, key) => batch.set(key, key[1]), "cannot write");
    const values = async (...args: Parameters<StateStore["list"]>) =>
      await Array.fromAsync(state.list<number>(...args), ({ value }) => value);
    assert.deepEqual(await values({ prefix: ["long"] }), keys.map((key) => key[1]));
    const reversed = await values({ prefix: ["long"] }, { reverse: true, limit: 1_100 });
    assert.deepEqual(reversed, keys.map((key) => key[1]).reverse().slice(0, 1_100));
  });

  test("start is inclusive and end exclusive, alone or with a prefix", async (state) => {
    for (const t of [5, 10, 15, 20]) await state.set(["expiry", t, "m"], t);
    await state.set(["other", 1], 1);
    assert.deepEqual(await keys(state, { start: ["expiry"], end: ["expiry", 15] }), [
      ["expiry", 5, "m"],
      ["expiry", 10, "m"],
    ]);
    assert.deepEqual(await keys(state, { prefix: ["expiry"], start: ["expiry", 10, "m"] }), [
      ["expiry", 10, "m"],
      ["expiry", 15, "m"],
      ["expiry", 20, "m"],
    ]);
    assert.deepEqual(await keys(state, { prefix: ["expiry"], end: ["expiry", 10] }), [
      ["expiry", 5, "m"],
    ]);
    assert.deepEqual(await keys(state, { start: ["expiry", 20], end: ["z"] }), [
      ["expiry", 20, "m"],
      ["other", 1],
    ]);
  });

  test("a batch writes everything or, when a check fails, nothing", async (state) => {
    assert.equal(await state.batch().check(["plan"], null).set(["plan"], 1).commit(), true);
    const first = await state.get<number>(["plan"]);
    assert.equal(
      await state.batch().check(["plan"], null).set(["plan"], 2).set(["other"], 2).commit(),
      false,
    );
    assert.equal((await state.get(["plan"]))?.value, 1);
    assert.equal(await state.get(["other"]), null, "nothing of a failed batch is written");
    assert.equal(
      await state.batch().check(["plan"], first!.version).set(["plan"], 3).delete(["gone"])
        .commit(),
      true,
    );
    const second = await state.get<number>(["plan"]);
    assert.equal(second?.value, 3);
    assert.notEqual(second?.version, first?.version, "a write changes the version");
    assert.equal(
      await state.batch().check(["plan"], first!.version).delete(["plan"]).commit(),
      false,
    );
    assert.equal(
      await state.batch().check(["plan"], second!.version).delete(["plan"]).commit(),
      true,
    );
    assert.equal(await state.get(["plan"]), null);
  });

  test("of concurrent batches checking one version, exactly one commits", async (state) => {
    await state.set(["claim"], "nobody");
    const { version } = (await state.get(["claim"]))!;
    const results = await Promise.all(
      Array.from(
        { length: 8 },
        (_, i) => state.batch().check(["claim"], version).set(["claim"], `holder ${i}`).commit(),
      ),
    );
    assert.equal(results.filter(Boolean).length, 1);
    const absent = await Promise.all(
      Array.from(
        { length: 8 },
        (_, i) => state.batch().check(["fresh"], null).set(["fresh"], i).commit(),
      ),
    );
    assert.equal(absent.filter(Boolean).length, 1);
  });

  test("an entry set to expire is there until it does", async (state) => {
    await state.set(["session"], "open", { expireIn: 3_600_000 });
    await state.batch().set(["batched"], "open", { expireIn: 3_600_000 }).commit();
    assert.equal((await state.get(["session"]))?.value, "open");
    assert.equal((await state.get(["batched"]))?.value, "open");
  });
}
