import assert from "node:assert/strict";
import { MemoryBlobStore } from "../backends/memory.ts";
import { MemoryCipher } from "../testing/memory_cipher.ts";
import { MemoryEmbedder } from "../testing/memory_embedder.ts";
import type { CallOptions } from "../backends/types.ts";
import { SvcError } from "../errors.ts";
import { silentLogger } from "../log.ts";
import type { PreparedText } from "../pipeline/remember.ts";
import { testPipeline } from "../testing/job_fixtures.ts";
import { SlowEmbedder } from "../testing/slow_backends.ts";
import { MemoryJobQueue } from "../testing/memory_job_queue.ts";
import { createWorker } from "./worker.ts";

/** A cipher whose key server is down for one owner. */
class OwnerDownCipher extends MemoryCipher {
  constructor(readonly down: string) {
    super();
  }

  override encrypt(owner: string, plaintext: Uint8Array<ArrayBuffer>, options?: CallOptions) {
    if (owner === this.down) {
      return Promise.reject(new SvcError("backend_unavailable", "Cannot encrypt: key server down"));
    }
    return super.encrypt(owner, plaintext, options);
  }
}

Deno.test("a job dropping out of a batch before its embedding ends leaves each memory its own text's index entry", async () => {
  using queue = new MemoryJobQueue();
  const embedder = new SlowEmbedder(new MemoryEmbedder(), { delayMs: 300 });
  const inner = await testPipeline({
    cipher: new OwnerDownCipher("o2"),
    blobs: new MemoryBlobStore(),
    embedder,
  });
  const textOf = new WeakMap<PreparedText, string>();
  const indexed = new Map<string, string | undefined>();
  const pipeline: typeof inner = {
    ...inner,
    async prepare(memories, options) {
      const made = await inner.prepare(memories, options);
      made.forEach((prepared, i) => textOf.set(prepared, memories[i].text));
      return made;
    },
    indexMany(memories, options) {
      for (const memory of memories) {
        if ("prepared" in memory) indexed.set(memory.memoryId, textOf.get(memory.prepared));
      }
      return inner.indexMany(memories, options);
    },
  };
  const worker = createWorker({ queue, pipeline, logger: silentLogger });
  // One batch; the second job's owner cannot encrypt, so it leaves the batch while it embeds.
  const jobs = await queue.accept(["o1", "o2", "o1"].map((owner, i) => ({
    owner,
    namespace: "n1",
    text: `fact ${i}`,
  })));
  await Promise.all(jobs.map((job) => worker.process(job.job_id)));
  await worker.stop();
  assert.deepEqual(
    [...indexed].sort(),
    [[jobs[0].job_id, "fact 0"], [jobs[2].job_id, "fact 2"]].sort(),
  );
});
