import assert from "node:assert/strict";
import { MemoryBlobStore } from "../backends/memory.ts";
import { MemoryCipher } from "../testing/memory_cipher.ts";
import { MemoryEmbedder } from "../testing/memory_embedder.ts";
import { MemoryVectorIndexSet } from "../backends/memory_index_set.ts";
import type { CallOptions, Cipher, Embedder, TermsRow, VectorStore } from "../backends/types.ts";
import { SvcError } from "../errors.ts";
import { createLogger, type Logger } from "../log.ts";
import { timeOrderedId } from "../ids.ts";
import { AttributeSeal } from "../pipeline/attributes.ts";
import { createRememberPipeline } from "../pipeline/remember.ts";
import { VectorSeal } from "../pipeline/vector_seal.ts";
import { LexicalIndex } from "../ranking/lexicon.ts";
import { TermHasher } from "../ranking/terms.ts";
import { IndexSwitch } from "./index_switch.ts";
import { planReindex } from "./plan.ts";
import { Reindexer, type ReindexProgress } from "./reindexer.ts";
import { ReindexState } from "./state.ts";
import { MemoryStateStore } from "../state/memory_state_store.ts";
import type { StateStore } from "../state/state_store.ts";

/** Vectors of the same size as `MemoryEmbedder`'s that differ from them (reversed); counted. */
class CountingEmbedder implements Embedder {
  readonly name = "counting";
  readonly model: string;
  readonly dimensions: number;
  embedded = 0;
  /** Runs before each embedding call, with the number of calls made before it. */
  before?: (calls: number) => Promise<void>;
  #calls = 0;
  #inner: MemoryEmbedder;
  constructor(dimensions: number) {
    this.#inner = new MemoryEmbedder(dimensions);
    this.dimensions = dimensions;
    this.model = `counting-${dimensions}`;
  }
  async embed(texts: string[], options?: CallOptions): Promise<Float32Array[]> {
    await this.before?.(this.#calls++);
    this.embedded += texts.length;
    return (await this.#inner.embed(texts, options)).map((v) => v.reverse());
  }
}

const PLACES = [["0xalice", "default"], ["0xalice", "work"], ["0xbob", "default"]] as const;

/** An index set whose active index holds memories remembered through the pipeline. */
async function populated(count: number) {
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const oldEmbedder = new MemoryEmbedder(16);
  const indexes = new MemoryVectorIndexSet();
  const store = await indexes.open("index", oldEmbedder);
  const cipher = new MemoryCipher();
  const blobs = new MemoryBlobStore();
  const vectorSeal = await VectorSeal.fromSecret(secret);
  const pipeline = createRememberPipeline({
    cipher,
    blobs,
    embedder: oldEmbedder,
    vectors: store,
    hasher: await TermHasher.fromSecret(secret),
    lexicon: new LexicalIndex(store),
    vectorSeal,
    attributeSeal: await AttributeSeal.fromSecret(secret),
  });
  const texts = new Map<string, string>();
  for (let i = 0; i < count; i++) {
    const [owner, namespace] = PLACES[i % PLACES.length];
    const memory = { memoryId: timeOrderedId(), owner, namespace, createdAt: 1000 + i };
    const text = `memory number ${i} about topic ${i % 7}`;
    const blobId = await pipeline.store({ ...memory, text });
    const attributes = i % 5 === 0 ? { tags: [`tag${i}`], expiresAt: 9e15 } : undefined;
    await pipeline.index({ ...memory, blobId, text, attributes });
    texts.set(memory.memoryId, text);
  }
  /** A client-encrypted memory, with its vector (of the old index's size). */
  const manual = async () => {
    const memory = { memoryId: timeOrderedId(), owner: "0xalice", namespace: "default" };
    const vector = Array.from({ length: 16 }, (_, i) => (i === 1 ? 1 : 0));
    const full = { ...memory, createdAt: 5 };
    const blobId = await pipeline.store({ ...full, ciphertext: new Uint8Array([1, 2]), vector });
    await pipeline.index({ ...full, blobId, vector });
    return memory.memoryId;
  };
  return {
    secret,
    oldEmbedder,
    indexes,
    store,
    cipher,
    blobs,
    vectorSeal,
    texts,
    manual,
    pipeline,
  };
}

/** A reindex of `world` to `embedder`, as a start would set it up. */
async function reindexOf(
  world: Awaited<ReturnType<typeof populated>>,
  embedder: Embedder,
  kv: StateStore,
  options: { batchSize?: number; cipher?: Cipher; logger?: Logger } = {},
) {
  const state = await ReindexState.open(kv, world.secret);
  const plan = await planReindex(world.indexes, state, embedder);
  const source = await world.indexes.open(plan.from, world.oldEmbedder);
  const target = await world.indexes.open(plan.to, embedder);
  const indexes = new IndexSwitch({ name: plan.from, embedder: world.oldEmbedder, store: source });
  indexes.build({ name: plan.to, embedder, store: target });
  const reindexer = new Reindexer({
    indexes: world.indexes,
    switch: indexes,
    state,
    cipher: options.cipher ?? world.cipher,
    blobs: world.blobs,
    vectorSeal: world.vectorSeal,
    hasher: await TermHasher.fromSecret(world.secret),
    batchSize: options.batchSize ?? 4,
    graceMs: 0,
    logger: options.logger,
  });
  return { plan, indexes, reindexer, state, source, target };
}

const sorted = (rows: TermsRow[]) =>
  rows.map(({ id, blobId, createdAt, terms, info }) => ({ id, blobId, createdAt, terms, info }))
    .sort((a, b) => a.id < b.id ? -1 : 1);

async function catalog(store: VectorStore) {
  return await Promise.all(PLACES.map(async ([o, n]) => sorted(await store.terms(o, n))));
}

Deno.test("reindex: the new index holds every memory with its id, namespace, time, blob, terms and info, embedded anew; the old one is removed", async () => {
  const kv = new MemoryStateStore();
  const world = await populated(30);
  const before = await catalog(world.store);
  const embedder = new CountingEmbedder(16);
  const { reindexer, target } = await reindexOf(world, embedder, kv);
  const phases = new Set<string>();
  const summary = await reindexer.run({ onProgress: (p) => phases.add(p.phase) });
  assert.deepEqual([...phases], ["copying", "catching up", "switching", "retiring", "done"]);
  assert.equal(await world.indexes.active(), "index-2");
  assert.equal(await world.indexes.built("index"), null);
  assert.deepEqual(await catalog(target), before);
  assert.equal(summary.memories, 30);
  assert.equal(summary.written, 30);
  assert.equal(summary.resumed, 0);
  assert.deepEqual(summary.skipped, { manualDimensions: 0, unreadable: 0 });
  assert.deepEqual(summary.to, { index: "index-2", model: "counting-16", dimensions: 16 });
  for (const [id, text] of world.texts) {
    const [vector] = await embedder.embed([text]);
    const [owner, namespace] = PLACES[[...world.texts.keys()].indexOf(id) % PLACES.length];
    const [hit] = await target.search(owner, namespace, vector, 1, { ids: [id] });
    assert.ok(hit.distance < 1e-6, `${id} is indexed under the new embedder's vector`);
  }
  assert.equal(await (await ReindexState.open(kv, world.secret)).plan(), null);
});

Deno.test("reindex: a memory erased while it runs is no warning; one whose blob is gone is left out and named at the end", async () => {
  const kv = new MemoryStateStore();
  const world = await populated(12);
  const ids = [...world.texts.keys()];
  const rows = await world.store.terms(PLACES[0][0], PLACES[0][1]);
  const blobOf = (id: string) => rows.find((row) => row.id === id)!.blobId;
  await world.blobs.delete(blobOf(ids[0]), { memoryId: ids[0] }); // lost, still indexed
  const lines: { msg: string; memory_ids?: string[] }[] = [];
  const logger = createLogger("info", (line) => lines.push(JSON.parse(line)));
  const embedder = new CountingEmbedder(16);
  const { reindexer, source } = await reindexOf(world, embedder, kv, { logger, batchSize: 2 });
  // Erased while the first batch is embedded: its blob, then its row, as an erase goes.
  embedder.before = async (calls) => {
    if (calls !== 0) return;
    await world.blobs.delete(blobOf(ids[9]), { memoryId: ids[9] });
    await source.delete([ids[9]]);
  };
  const summary = await reindexer.run();
  assert.deepEqual(summary.skipped, { manualDimensions: 0, unreadable: 1 });
  assert.ok(!lines.some(({ msg }) => msg === "memory has no blob"), JSON.stringify(lines));
  const left = lines.find(({ msg }) => msg.startsWith("reindex: memories whose blob is missing"));
  assert.deepEqual(left?.memory_ids, [ids[0]]);
});

Deno.test("reindex: a client-encrypted memory keeps its sealed vector when the size matches, and is skipped when not", async () => {
  for (const dimensions of [16, 24]) {
    const kv = new MemoryStateStore();
    const world = await populated(6);
    const id = await world.manual();
    const { reindexer, target } = await reindexOf(world, new CountingEmbedder(dimensions), kv);
    const summary = await reindexer.run();
    const kept = dimensions === 16;
    assert.deepEqual([...await target.has([id])], kept ? [id] : []);
    assert.equal(summary.memories, kept ? 7 : 6);
    assert.deepEqual(summary.skipped, { manualDimensions: kept ? 0 : 1, unreadable: 0 });
  }
});

Deno.test("reindex: rows indexed before text digests and the manual mark gain them", async () => {
  const kv = new MemoryStateStore();
  const world = await populated(6);
  await world.manual();
  const want = await catalog(world.store);
  // As an older version indexed them: neither a digest (duplicates are found by it) nor a mark.
  for (const [owner, namespace] of PLACES) {
    const rows = await world.store.terms(owner, namespace);
    await world.store.upsert(rows.map(({ info, ...row }) => {
      const { digest: _, manual: __, ...older } = info ?? {};
      return { ...row, owner, namespace, vector: Array(16).fill(0.25), info: older };
    }));
  }
  assert.notDeepEqual(await catalog(world.store), want);
  const { reindexer, target } = await reindexOf(world, new CountingEmbedder(16), kv);
  await reindexer.run();
  assert.deepEqual(await catalog(target), want);
});

Deno.test("reindex: cut short, it resumes from its cursors instead of starting over", async () => {
  const kv = new MemoryStateStore();
  const world = await populated(60);
  const first = new CountingEmbedder(16);
  const stop = new AbortController();
  const run = await reindexOf(world, first, kv);
  const seen: ReindexProgress[] = [];
  await assert.rejects(run.reindexer.run({
    signal: stop.signal,
    onProgress(p) {
      seen.push(p);
      if (p.done >= 24) stop.abort(new Error("crash"));
    },
  }));
  assert.equal(await world.indexes.active(), "index", "not switched");
  const done = seen.at(-1)!.done;
  // Meanwhile, a relayer without SVC_REINDEX erased two memories the first run had copied.
  const copied = (await Promise.all(PLACES.map(([o, n]) => world.store.terms(o, n)))).flat()
    .map((row) => row.id).sort().slice(0, 2);
  await world.store.delete(copied);
  // A new process: the plan is resumed, the cursors skip what was done.
  const second = new CountingEmbedder(16);
  const again = await reindexOf(world, second, kv);
  assert.equal(again.plan.resumed, true);
  assert.equal(again.plan.to, "index-2");
  const reports: ReindexProgress[] = [];
  const summary = await again.reindexer.run({ onProgress: (p) => reports.push({ ...p }) });
  assert.equal(summary.resumed, done);
  assert.equal(second.embedded, 60 - done);
  assert.equal(summary.memories, 58);
  assert.ok(reports.every((p) => p.done <= p.memories), "never more done than there are");
  assert.equal(await world.indexes.active(), "index-2");
});

Deno.test("reindex: memories written to the old index alone, or erased from it, while no relayer wrote both, are caught up before the switch", async () => {
  const kv = new MemoryStateStore();
  const world = await populated(12);
  const embedder = new CountingEmbedder(16);
  const { reindexer, target, indexes } = await reindexOf(world, embedder, kv);
  const erased = [...world.texts.keys()][0];
  let added = "";
  embedder.before = async (calls) => {
    if (calls !== 2) return;
    // Behind the switch's back, as a relayer started without SVC_REINDEX=1 would, after the
    // first namespaces were copied.
    added = timeOrderedId();
    const memory = { memoryId: added, owner: "0xalice", namespace: "default", createdAt: 9 };
    const blobId = await world.pipeline.store({ ...memory, text: "added behind its back" });
    await world.pipeline.index({ ...memory, blobId, text: "added behind its back" });
    await world.store.delete([erased]);
    // Through the switch, an erase reaches both.
    await indexes.vectors.delete([[...world.texts.keys()][5]]);
  };
  await reindexer.run();
  assert.ok(added);
  const ids = new Set(
    (await Promise.all(PLACES.map(([o, n]) => target.terms(o, n)))).flat().map((r) => r.id),
  );
  assert.ok(ids.has(added), "the memory added behind its back is in the new index");
  assert.ok(!ids.has(erased), "the memory erased behind its back is not");
  assert.ok(!ids.has([...world.texts.keys()][5]));
  assert.equal(ids.size, 11);
});

Deno.test("reindex: a cipher that needs each caller's key is refused", async () => {
  const kv = new MemoryStateStore();
  const world = await populated(2);
  const cipher: Cipher = {
    name: "seal-like",
    encrypt: (o, p) => world.cipher.encrypt(o, p),
    decrypt: (o, c) => world.cipher.decrypt(o, c),
    erase: () => Promise.resolve(),
  };
  const { reindexer } = await reindexOf(world, new CountingEmbedder(16), kv, { cipher });
  await assert.rejects(
    reindexer.run(),
    (error) =>
      error instanceof SvcError && error.code === "conflict" && /seal-like/.test(error.message),
  );
});
