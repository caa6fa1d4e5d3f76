import { stateStoreSuite } from "@svc/relayer/testing";
import { KvStateStore } from "./state_store.ts";

stateStoreSuite("KvStateStore", async () => {
  const kv = await Deno.openKv(":memory:");
  return Object.assign(new KvStateStore(kv), {
    [Symbol.asyncDispose]: () => Promise.resolve(kv.close()),
  });
});
