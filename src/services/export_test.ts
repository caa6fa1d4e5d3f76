import assert from "node:assert/strict";
import type { Memory } from "../client/types.ts";
import type { VectorStore } from "../backends/types.ts";
import { createLogger } from "../log.ts";
import { createExportService } from "./export.ts";
import type { LifecycleService } from "./lifecycle.ts";

const memory = (id: string): Memory => ({
  id,
  text: `memory ${id}`,
  tags: [],
  namespace: "default",
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
} as unknown as Memory);

Deno.test("export: a reader that goes while a batch is read ends the stream quietly", async () => {
  const lines: string[] = [];
  const reading = Promise.withResolvers<void>();
  const gate = Promise.withResolvers<void>();
  const done = Promise.withResolvers<void>();
  let reads = 0;
  const lifecycle = {
    async memories(_owner: string, _namespace: string, ids: string[]) {
      if (reads++ > 0) {
        reading.resolve();
        await gate.promise;
        setTimeout(done.resolve);
      }
      return ids.map(memory);
    },
  } as unknown as LifecycleService;
  const service = createExportService({
    lifecycle,
    vectors: {} as VectorStore,
    logger: createLogger("warn", (line) => lines.push(line)),
  });
  const sent: string[] = [];
  const stream = await service.stream("0xabc", [{ namespace: "default", ids: ["a", "b"] }], {
    batch: 1,
    sent: (_namespace, ids) => sent.push(...ids),
  });
  const reader = stream.getReader();
  assert.match(new TextDecoder().decode((await reader.read()).value), /memory a/);
  const pending = reader.read();
  await reading.promise;
  await reader.cancel();
  gate.resolve();
  assert.equal((await pending).done, true);
  await done.promise;
  assert.deepEqual(lines, [], "nothing is logged");
  assert.deepEqual(sent, ["a"], "the batch read after the reader went is not sent");
});

Deno.test("export: a stream that cannot go on logs why once and is cut off without its stack", async () => {
  const lines: string[] = [];
  let reads = 0;
  const lifecycle = {
    memories(_owner: string, _namespace: string, ids: string[]) {
      if (reads++ > 0) return Promise.reject(new Error("the blob store went away"));
      return Promise.resolve(ids.map(memory));
    },
  } as unknown as LifecycleService;
  const service = createExportService({
    lifecycle,
    vectors: {} as VectorStore,
    logger: createLogger("warn", (line) => lines.push(line)),
  });
  const stream = await service.stream("0xabc", [{ namespace: "default", ids: ["a", "b"] }], {
    batch: 1,
  });
  const reader = stream.getReader();
  assert.match(new TextDecoder().decode((await reader.read()).value), /memory a/);
  // Deno writes the reason of a response stream's failure on stderr as it is: not an Error.
  assert.equal(await reader.read().then(() => "read", (reason) => reason), "");
  assert.deepEqual(lines.map((line) => JSON.parse(line)), [{
    time: JSON.parse(lines[0]).time,
    level: "warn",
    msg: "export stopped",
    error: { name: "Error", message: "the blob store went away" },
  }]);
});
