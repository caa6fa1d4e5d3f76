/**
 * The conformance suite of `MessageQueue`: every message is delivered as enqueued, delayed or
 * not, one whose handler rejected again, and nothing reaches a listener that stopped.
 */
import assert from "node:assert/strict";
import type { MessageQueue } from "../jobs/message_queue.ts";
import { until } from "./job_fixtures.ts";

/** Registers the suite's tests for the queues `open` makes (each test gets an empty one). */
export function messageQueueSuite(
  name: string,
  open: () => Promise<MessageQueue & Partial<AsyncDisposable>>,
): void {
  const test = (title: string, body: (queue: MessageQueue) => Promise<void>) =>
    Deno.test(`${name}: ${title}`, async () => {
      const queue = await open();
      try {
        await body(queue);
      } finally {
        await queue[Symbol.asyncDispose]?.();
      }
    });

  /** Listens to `queue`, gathering what it delivers, until `stop`. */
  const gather = (queue: MessageQueue, handle = (_: unknown) => Promise.resolve()) => {
    const delivered: unknown[] = [];
    const done = new AbortController();
    const listening = queue.listen(async (message) => {
      await handle(message);
      delivered.push(message);
    }, done.signal);
    return { delivered, stop: () => (done.abort(), listening) };
  };

  test("delivers each message as enqueued, delayed or not", async (queue) => {
    const { delivered, stop } = gather(queue);
    const messages = [{ job_id: "late" }, { job_ids: ["a", "b"], failures: 1 }, "plain"];
    await queue.enqueue(messages[0], { delayMs: 300 });
    await queue.enqueue(messages[1]);
    await queue.enqueue(messages[2]);
    await until("all three arrive", () => delivered.length === 3);
    const sorted = (list: unknown[]) => list.map((m) => JSON.stringify(m)).sort();
    assert.deepEqual(sorted(delivered), sorted(messages));
    await stop();
  });

  test("delivers a message whose handler rejected again", async (queue) => {
    let failures = 1;
    const { delivered, stop } = gather(
      queue,
      () => failures-- > 0 ? Promise.reject(new Error("not yet")) : Promise.resolve(),
    );
    await queue.enqueue({ job_id: "retried" });
    await until("the message comes back", () => delivered.length === 1, 10_000);
    assert.deepEqual(delivered, [{ job_id: "retried" }]);
    await stop();
  });

  test("a stopped listener resolves and hears nothing more", async (queue) => {
    const { delivered, stop } = gather(queue);
    await stop();
    await queue.enqueue({ job_id: "after" });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(delivered, []);
  });
}
