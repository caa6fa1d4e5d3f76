import assert from "node:assert/strict";
import { MemoryBlobStore, MemoryVectorStore } from "../backends/memory.ts";
import type { CallOptions } from "../backends/types.ts";
import { silentLogger } from "../log.ts";
import { createRememberPipeline } from "../pipeline/remember.ts";
import { LexicalIndex } from "../ranking/lexical_index.ts";
import { TermHasher } from "../ranking/terms.ts";
import { MemoryCipher } from "../backends/memory_cipher.ts";
import { MemoryEmbedder } from "../backends/memory_embedder.ts";
import { MemoryJobQueue } from "./memory_job_queue.ts";
import { createWorker } from "./worker.ts";

/** An embedder whose first call never answers (it only gives up when its signal aborts). */
class StallingOnceEmbedder extends MemoryEmbedder {
  calls = 0;
  override embed(texts: string[], options?: CallOptions): Promise<Float32Array[]> {
    if (++this.calls > 1) return super.embed(texts);
    return new Promise((_, reject) => {
      options?.signal?.addEventListener("abort", () => reject(options.signal!.reason));
    });
  }
}

Deno.test("worker: a call past its time limit fails the attempt by name; the retry keeps the blob", async () => {
  using queue = new MemoryJobQueue();
  const embedder = new StallingOnceEmbedder();
  const blobs = new MemoryBlobStore();
  const vectors = new MemoryVectorStore(embedder.dimensions);
  const pipeline = createRememberPipeline({
    cipher: new MemoryCipher(),
    blobs,
    embedder,
    vectors,
    hasher: await TermHasher.fromSecret(crypto.getRandomValues(new Uint8Array(32))),
    lexicon: new LexicalIndex((owner, namespace) => vectors.terms(owner, namespace)),
  });
  // Long enough for a first encryption on a busy machine; the stalled embedding never answers.
  const worker = createWorker({ queue, pipeline, logger: silentLogger, callTimeoutMs: 500 });
  const [job] = await queue.accept([{ owner: "o1", namespace: "n1", text: "I keep bees" }]);

  await worker.process(job.job_id);
  const retried = await queue.get(job.job_id);
  assert.equal(retried?.status, "pending");
  assert.equal(retried?.error, "Embedding timed out after 500 ms");
  assert.ok(retried?.blob_id, "the blob id was checkpointed before indexing");

  await worker.process(job.job_id);
  const done = await queue.get(job.job_id);
  assert.equal(done?.status, "done");
  assert.equal(done?.attempts, 2);
  assert.equal(done?.blob_id, retried.blob_id);
  assert.equal(done?.memory_id, job.job_id);
  assert.equal((await blobs.list("o1", "n1")).length, 1, "one blob");
  assert.deepEqual([...await vectors.has([job.job_id])], [job.job_id]);
  assert.equal(await queue.payload(job.job_id), null);
});
