import assert from "node:assert/strict";
import { MemoryBlobStore, MemoryVectorStore } from "../backends/memory.ts";
import type { BlobMeta, CallOptions, VectorRow } from "../backends/types.ts";
import { MemoryCipher } from "../testing/memory_cipher.ts";
import { MemoryEmbedder } from "../testing/memory_embedder.ts";
import { LexicalIndex } from "../ranking/lexicon.ts";
import { TermHasher } from "../ranking/terms.ts";
import { createRememberPipeline, type RememberPipelineDependencies } from "./remember.ts";
import { VectorSeal } from "./vector_seal.ts";
import { AttributeSeal } from "./attributes.ts";

type Seen = (what: string, options?: CallOptions) => void;

/** In-memory backends that report the options of each write. */
class RecordingBlobStore extends MemoryBlobStore {
  constructor(readonly seen: Seen) {
    super();
  }
  override put(bytes: Uint8Array<ArrayBuffer>, meta: BlobMeta, options?: CallOptions) {
    this.seen("put", options);
    return super.put(bytes, meta);
  }
}

class RecordingVectorStore extends MemoryVectorStore {
  constructor(dimensions: number, readonly seen: Seen) {
    super(dimensions);
  }
  override upsert(rows: VectorRow[], options?: CallOptions) {
    this.seen("upsert", options);
    return super.upsert(rows);
  }
}

class RecordingEmbedder extends MemoryEmbedder {
  constructor(readonly seen: Seen) {
    super();
  }
  override embed(texts: string[], options?: CallOptions) {
    this.seen("embed", options);
    return super.embed(texts);
  }
}

/** The pipeline on in-memory backends, recording the signal each backend call was given. */
async function setUp(overrides: Partial<RememberPipelineDependencies> = {}) {
  const signals: [string, AbortSignal | undefined][] = [];
  const seen: Seen = (what, options) => signals.push([what, options?.signal]);
  const cipher = new MemoryCipher();
  const embedder = new RecordingEmbedder(seen);
  const vectors = new RecordingVectorStore(embedder.dimensions, seen);
  const deps = {
    cipher: {
      name: cipher.name,
      encrypt(owner: string, plaintext: Uint8Array<ArrayBuffer>, options?: CallOptions) {
        seen("encrypt", options);
        return cipher.encrypt(owner, plaintext);
      },
      decrypt: cipher.decrypt.bind(cipher),
      erase: cipher.erase.bind(cipher),
    },
    blobs: new RecordingBlobStore(seen),
    embedder,
    vectors,
    hasher: await TermHasher.fromSecret(crypto.getRandomValues(new Uint8Array(32))),
    vectorSeal: await VectorSeal.fromSecret(crypto.getRandomValues(new Uint8Array(32))),
    attributeSeal: await AttributeSeal.fromSecret(crypto.getRandomValues(new Uint8Array(32))),
    lexicon: new LexicalIndex(vectors),
  };
  return { ...deps, pipeline: createRememberPipeline({ ...deps, ...overrides }), signals };
}

const memory = { memoryId: "m1", owner: "o1", namespace: "n1", createdAt: 7 };

Deno.test("remember pipeline: a text is encrypted, stored, embedded and indexed with its terms", async () => {
  const { pipeline, cipher, blobs, embedder, vectors, lexicon } = await setUp();
  await lexicon.namespace("o1", "n1"); // loaded, so the new memory's terms are added to it
  const blobId = await pipeline.store({ ...memory, text: "I keep bees in Oslo" });
  const [entry] = await blobs.list("o1", "n1");
  assert.deepEqual(entry, { blobId, meta: memory }, "the blob's metadata has no vector");
  const stored = (await blobs.get(blobId))!;
  assert.ok(!new TextDecoder().decode(stored).includes("bees"));
  assert.equal(new TextDecoder().decode(await cipher.decrypt("o1", stored)), "I keep bees in Oslo");

  await pipeline.index({ ...memory, blobId, text: "I keep bees in Oslo" });
  const [query] = await embedder.embed(["I keep bees in Oslo"]);
  const [hit] = await vectors.search("o1", "n1", query, 1);
  assert.deepEqual(hit, { id: "m1", blobId, distance: hit.distance, createdAt: 7 });
  assert.ok(hit.distance < 1e-6);
  const [row] = await vectors.terms("o1", "n1");
  assert.equal(row.terms.length, 3, "keep, bee, oslo");
  const index = await lexicon.namespace("o1", "n1");
  assert.equal(index.search(row.terms, 5).hits[0]?.id, "m1");
});

Deno.test("remember pipeline: a manual memory keeps the client's ciphertext and its vector sealed", async () => {
  const { pipeline, blobs, vectors, signals } = await setUp();
  const ciphertext = new Uint8Array([1, 2, 3]);
  const vector = Array.from({ length: vectors.dimensions }, (_, i) => (i === 0 ? 1 : i / 1000));
  const blobId = await pipeline.store({ ...memory, ciphertext, vector });
  assert.deepEqual(await blobs.get(blobId), ciphertext);
  const { meta } = (await blobs.list("o1", "n1"))[0];
  const { sealedVector, ...rest } = meta;
  assert.deepEqual(rest, memory, "no clear vector in the metadata");
  assert.ok(sealedVector && !sealedVector.includes("0.001"));
  assert.deepEqual(await pipeline.openVector(memory, sealedVector), vector);
  assert.equal(await pipeline.openVector({ ...memory, memoryId: "m2" }, sealedVector), null);
  await pipeline.index({ ...memory, blobId, vector });
  const [hit] = await vectors.search("o1", "n1", vector, 1);
  assert.equal(hit.id, "m1");
  assert.ok(hit.distance < 1e-6);
  assert.deepEqual(await vectors.terms("o1", "n1"), [{
    id: "m1",
    terms: [],
    blobId,
    createdAt: 7,
    info: { manual: true }, // reads answer its text as null without trying
  }]);
  assert.deepEqual(signals.map(([what]) => what), ["put", "upsert"], "no encryption, no embedding");
});

Deno.test("remember pipeline: every backend call gets the step's signal", async () => {
  const { pipeline, signals } = await setUp();
  const { signal } = new AbortController();
  const blobId = await pipeline.store({ ...memory, text: "signalled" }, { signal });
  await pipeline.index({ ...memory, blobId, text: "signalled" }, { signal });
  assert.deepEqual(signals, [
    ["encrypt", signal],
    ["put", signal],
    ["embed", signal],
    ["upsert", signal],
  ]);
});

Deno.test("remember pipeline: with a time limit, each call gets its own signal and a slow one fails by name", async () => {
  const { pipeline, signals } = await setUp();
  const outer = new AbortController();
  const blobId = await pipeline.store({ ...memory, text: "timed" }, {
    signal: outer.signal,
    timeoutMs: 10_000,
  });
  const [[, encrypt], [, put]] = signals;
  assert.ok(encrypt && put && encrypt !== put, "one signal per call");
  outer.abort();
  assert.ok(encrypt.aborted, "the caller's abort reaches the call");

  const { pipeline: stalled } = await setUp({
    embedder: {
      name: "stalled",
      model: "stalled",
      dimensions: 4,
      embed: (_texts, options) =>
        new Promise((_, reject) => {
          const signal = options?.signal;
          signal?.addEventListener("abort", () => reject(signal.reason));
        }),
    },
  });
  await assert.rejects(
    () => stalled.index({ ...memory, blobId, text: "timed" }, { timeoutMs: 5 }),
    { message: "Embedding timed out after 5 ms" },
  );
});

Deno.test("remember pipeline: prepare embeds texts in one call; indexMany writes what it made in one upsert", async () => {
  const { pipeline, vectors, lexicon, signals } = await setUp();
  await lexicon.namespace("o1", "n1");
  const memories = ["I keep bees in Oslo", "My sister lives in Lisbon"].map((text, i) => ({
    ...memory,
    memoryId: `m${i}`,
    text,
  }));
  const prepared = await pipeline.prepare(memories);
  assert.equal(prepared.length, 2);
  assert.equal(prepared[0].terms.length, 3, "keep, bee, oslo");
  await pipeline.indexMany(
    memories.map((m, i) => ({ ...m, blobId: `b${i}`, prepared: prepared[i] })),
  );
  assert.deepEqual(signals.map(([what]) => what), ["embed", "upsert"], "one call each");
  const [hit] = await vectors.search("o1", "n1", prepared[1].vector, 1);
  assert.deepEqual([hit.id, hit.blobId], ["m1", "b1"]);
  assert.deepEqual(await vectors.terms("o1", "n1"), [
    { id: "m0", terms: prepared[0].terms, blobId: "b0", createdAt: 7, info: prepared[0].info },
    { id: "m1", terms: prepared[1].terms, blobId: "b1", createdAt: 7, info: prepared[1].info },
  ]);
  assert.match(prepared[0].info.digest!, /^[0-9a-f]{32}$/, "the text's keyed digest");
  assert.equal(prepared[0].info.tags, undefined, "no tags given, none kept");
  const index = await lexicon.namespace("o1", "n1");
  assert.equal(index.search(prepared[1].terms, 5).hits[0]?.id, "m1");
  assert.equal(index.duplicateOf(prepared[1].info.digest!, Date.now()), "m1");
  const again = await pipeline.duplicates([
    { ...memory, memoryId: "m2", text: "  my SISTER lives\tin Lisbon " },
    { ...memory, memoryId: "m3", text: "I have a cat" },
    { ...memory, memoryId: "m4", text: "i have a CAT" },
  ]);
  assert.deepEqual(
    again.map(({ original }) => original),
    ["m1", undefined, "m3"],
    "the namespace's, then the batch's own",
  );
  assert.equal(again[1].place, again[2].place, "one place for one text");
  assert.notEqual(again[0].place, again[1].place);
});
