import assert from "node:assert/strict";
import { lifecycleRecordStoreSuite } from "../testing/lifecycle_records_suite.ts";
import { MemoryStateStore } from "../state/memory_state_store.ts";
import type { StateStore } from "../state/state_store.ts";
import { StateLifecycleRecords } from "./lifecycle_records.ts";

lifecycleRecordStoreSuite("StateLifecycleRecords", () =>
  Promise.resolve(
    new StateLifecycleRecords(new MemoryStateStore(), crypto.getRandomValues(new Uint8Array(32))),
  ));

/** The expiry schedule's values as text: a clear one as JSON, a sealed one's bytes as they are. */
async function stored(state: StateStore): Promise<string> {
  const values = await Array.fromAsync(state.list<object>({ prefix: ["expiry"] }), (e) => e.value);
  return values.map((value) =>
    "sealed" in value
      ? new TextDecoder("latin1").decode(value.sealed as Uint8Array)
      : JSON.stringify(value)
  ).join("\n");
}

Deno.test("StateLifecycleRecords: the expiry schedule names owners and namespaces only sealed", async () => {
  const state = new MemoryStateStore();
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const records = new StateLifecycleRecords(state, secret);
  const expiry = { memoryId: "m1", owner: "0xfeedbeef", namespace: "oncology", expiresAt: 5 };
  await records.schedule([expiry]);
  assert.doesNotMatch(await stored(state), /oncology|feedbeef/);
  assert.deepEqual(await records.due(10, 10), [expiry]);

  // One an earlier version kept in clear is read, then sealed.
  const old = { memoryId: "m2", owner: "0xfeedbeef", namespace: "dermatology", expiresAt: 6 };
  await state.set(["expiry", 6, "m2"], { owner: old.owner, namespace: old.namespace });
  assert.deepEqual(await records.due(10, 10), [expiry, old]);
  assert.equal(await records.sealStored(), 1);
  assert.equal(await records.sealStored(), 0);
  assert.doesNotMatch(await stored(state), /dermatology|feedbeef/);
  assert.deepEqual(await records.due(10, 10), [expiry, old]);
  // Another secret cannot read them.
  await assert.rejects(() => new StateLifecycleRecords(state, new Uint8Array(32)).due(10, 10));
});

Deno.test("StateLifecycleRecords: erased memories are filed under a keyed hash of their owner", async () => {
  const state = new MemoryStateStore();
  const records = new StateLifecycleRecords(state, crypto.getRandomValues(new Uint8Array(32)));
  const owner = "0x" + "fe".repeat(32);
  await records.markErased(owner, [{ memoryId: "m1" }], 5);
  // One an earlier version filed under the address is read after sealStored moves it.
  await state.set(["erased", owner, "m2"], 6);
  const keys = async () => await Array.fromAsync(state.list({ prefix: ["erased"] }), (e) => e.key);
  assert.equal(await records.sealStored(), 1);
  assert.equal(await records.sealStored(), 0);
  assert.doesNotMatch(JSON.stringify(await keys()), /fefe/);
  assert.deepEqual(await records.erased(owner, ["m1", "m2", "m3"]), new Set(["m1", "m2"]));
  assert.deepEqual(
    await Array.fromAsync(state.list({ prefix: ["erased"] }), (e) => [e.key[2], e.value]),
    [["m1", 5], ["m2", 6]],
  );
});
