import { accessLogStoreSuite } from "@svc/relayer/testing";
import { KvAccessLogStore } from "./access_log_store.ts";

accessLogStoreSuite("KvAccessLogStore", async () => {
  const kv = await Deno.openKv(":memory:");
  return Object.assign(new KvAccessLogStore(kv), {
    [Symbol.asyncDispose]: () => Promise.resolve(kv.close()),
  });
});
