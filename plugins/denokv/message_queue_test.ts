import { messageQueueSuite } from "@svc/relayer/testing";
import { KvMessageQueue } from "./message_queue.ts";

messageQueueSuite("KvMessageQueue", async () => {
  const kv = await Deno.openKv(":memory:");
  return Object.assign(new KvMessageQueue(kv), {
    [Symbol.asyncDispose]: () => Promise.resolve(kv.close()),
  });
});
