import assert from "node:assert/strict";
import { lifecycleRecordStoreSuite } from "@svc/relayer/testing";
import { LifecycleRecords } from "./lifecycle_records.ts";

lifecycleRecordStoreSuite("LifecycleRecords (Deno KV)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-lifecycle-" });
  const kv = await Deno.openKv(`${dir}/jobs.kv`);
  return Object.assign(new LifecycleRecords(kv, crypto.getRandomValues(new Uint8Array(32))), {
    async [Symbol.asyncDispose]() {
      kv.close();
      await Deno.remove(dir, { recursive: true });
    },
  });
});

/** The expiry schedule's values as text: a clear one as JSON, a sealed one's bytes as they are. */
async function stored(kv: Deno.Kv): Promise<string> {
  const values = await Array.fromAsync(kv.list<object>({ prefix: ["expiry"] }), (e) => e.value);
  return values.map((value) =>
    "sealed" in value
      ? new TextDecoder("latin1").decode(value.sealed as Uint8Array)
      : JSON.stringify(value)
  ).join("\n");
}

Deno.test("LifecycleRecords: the expiry schedule names owners and namespaces only sealed", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const secret = crypto.getRandomValues(new Uint8Array(32));
    const records = new LifecycleRecords(kv, secret);
    const expiry = { memoryId: "m1", owner: "0xfeedbeef", namespace: "oncology", expiresAt: 5 };
    await records.schedule([expiry]);
    assert.doesNotMatch(await stored(kv), /oncology|feedbeef/);
    assert.deepEqual(await records.due(10, 10), [expiry]);

    // One an earlier version kept in clear is read, then sealed.
    const old = { memoryId: "m2", owner: "0xfeedbeef", namespace: "dermatology", expiresAt: 6 };
    await kv.set(["expiry", 6, "m2"], { owner: old.owner, namespace: old.namespace });
    assert.deepEqual(await records.due(10, 10), [expiry, old]);
    assert.equal(await records.sealStored(), 1);
    assert.equal(await records.sealStored(), 0);
    assert.doesNotMatch(await stored(kv), /dermatology|feedbeef/);
    assert.deepEqual(await Array.fromAsync(records.expiries()), [expiry, old]);
    // Another secret cannot read them.
    await assert.rejects(() => new LifecycleRecords(kv, new Uint8Array(32)).due(10, 10));
  } finally {
    kv.close();
  }
});
