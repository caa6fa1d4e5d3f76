import assert from "node:assert/strict";
import { silentLogger } from "@svc/relayer/kit";
import { StateLifecycleRecords } from "@svc/relayer/testing";
import { readConfig } from "./config.ts";
import { openState } from "./relayer_state.ts";

Deno.test("openState: erases an earlier version filed under the owner's address are found, once moved", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-state-" });
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const owner = "0x" + "ab".repeat(32);
  try {
    // jobs.kv as the version before left it: sealed (its mark set), erases under the address.
    const kv = await Deno.openKv(`${dataDir}/jobs.kv`);
    await kv.set(["at_rest", "names_sealed"], true);
    await kv.set(["erased", owner, "m1"], 1_000);
    kv.close();
    const result = readConfig({ SVC_DATA_DIR: dataDir });
    assert.ok(result.ok);
    const opened = await openState(result.config, secret, undefined, silentLogger);
    try {
      const state = opened.shared.state!;
      const records = new StateLifecycleRecords(state, secret);
      assert.deepEqual(await records.erased(owner, ["m1", "m2"]), new Set(["m1"]));
      const keys = await Array.fromAsync(state.list({ prefix: ["erased"] }), ({ key }) => key[1]);
      assert.equal(keys.length, 1);
      assert.doesNotMatch(String(keys[0]), /abab/, "the address is gone from jobs.kv");
      assert.equal(await records.sealStored(), 0);
    } finally {
      await opened.close();
      await opened.keyStore?.close();
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
