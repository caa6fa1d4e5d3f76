import assert from "node:assert/strict";
import { MemoryBlobStore, MemoryVectorStore } from "../backends/memory.ts";
import type { BlobMeta, CallOptions } from "../backends/types.ts";
import { SvcError } from "../errors.ts";
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

/** A blob store that stores the first upload and then loses its answer, as a cut connection does. */
class AnswerLostOnceBlobStore extends MemoryBlobStore {
  puts = 0;
  override async put(bytes: Uint8Array<ArrayBuffer>, meta: BlobMeta) {
    await super.put(bytes, meta);
    if (++this.puts === 1) throw new SvcError("backend_unavailable", "Cannot store: cut off");
    return await super.put(bytes, meta);
  }
}

Deno.test("worker: an upload whose answer was lost is retried with the same ciphertext, so one blob", async () => {
  using queue = new MemoryJobQueue();
  const blobs = new AnswerLostOnceBlobStore();
  const embedder = new MemoryEmbedder();
  const vectors = new MemoryVectorStore(embedder.dimensions);
  const pipeline = createRememberPipeline({
    cipher: new MemoryCipher(),
    blobs,
    embedder,
    vectors,
    hasher: await TermHasher.fromSecret(crypto.getRandomValues(new Uint8Array(32))),
    lexicon: new LexicalIndex((owner, namespace) => vectors.terms(owner, namespace)),
  });
  const worker = createWorker({ queue, pipeline, logger: silentLogger });
  const [job] = await queue.accept([{ owner: "o1", namespace: "n1", text: "I keep bees" }]);

  await worker.process(job.job_id);
  const retried = await queue.get(job.job_id);
  assert.equal(retried?.status, "pending");
  assert.equal(retried?.blob_id, undefined, "the upload's answer never came");
  assert.ok(retried?.ciphertext, "the ciphertext was checkpointed before the upload");
  await worker.process(job.job_id);
  const done = await queue.get(job.job_id);
  assert.equal(done?.status, "done");
  assert.equal(done?.ciphertext, undefined, "dropped once the blob id is saved");
  const stored = await blobs.list("o1", "n1");
  assert.deepEqual(stored.map((entry) => entry.blobId), [done?.blob_id], "one blob");
});
