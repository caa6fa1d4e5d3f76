import { MemoryMessageQueue } from "./memory_message_queue.ts";
import { messageQueueSuite } from "./message_queue_suite.ts";

messageQueueSuite("MemoryMessageQueue", () => {
  const queue = new MemoryMessageQueue();
  return Promise.resolve(
    Object.assign(queue, { [Symbol.asyncDispose]: () => Promise.resolve(queue.close()) }),
  );
});
