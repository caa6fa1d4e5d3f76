import { lifecycleRecordStoreSuite } from "../testing/lifecycle_records_suite.ts";
import { LifecycleRecords } from "./lifecycle_records.ts";

lifecycleRecordStoreSuite("LifecycleRecords (Deno KV)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-lifecycle-" });
  const kv = await Deno.openKv(`${dir}/jobs.kv`);
  return Object.assign(new LifecycleRecords(kv), {
    async [Symbol.asyncDispose]() {
      kv.close();
      await Deno.remove(dir, { recursive: true });
    },
  });
});
