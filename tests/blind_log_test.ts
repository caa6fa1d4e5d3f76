import { KvStateStore } from "@svc/denokv";
import { blindLogSuite } from "../src/testing/blind_log_suite.ts";
import { MemoryStateStore } from "../src/state/memory_state_store.ts";

blindLogSuite("BlindLog over Deno KV", async () => {
  const kv = await Deno.openKv(":memory:");
  const state = new KvStateStore(kv);
  return {
    states: [state, new KvStateStore(kv)],
    [Symbol.asyncDispose]: () => Promise.resolve(kv.close()),
  };
});

blindLogSuite("BlindLog in memory", () => {
  const state = new MemoryStateStore();
  return Promise.resolve({ states: [state, state] });
});
