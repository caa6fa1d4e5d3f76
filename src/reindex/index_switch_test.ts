import assert from "node:assert/strict";
import { cosineDistance, MemoryVectorStore } from "../backends/memory.ts";
import { MemoryEmbedder } from "../testing/memory_embedder.ts";
import type { CallOptions, Embedder, VectorRow } from "../backends/types.ts";
import { SvcError } from "../errors.ts";
import { IndexSwitch } from "./index_switch.ts";
import { WriteGate } from "./write_gate.ts";

/** An embedder of the same size as `MemoryEmbedder` whose vectors differ: reversed. */
class ReversedEmbedder implements Embedder {
  readonly name = "reversed";
  readonly model: string;
  readonly dimensions: number;
  #inner: MemoryEmbedder;
  calls = 0;
  constructor(dimensions: number) {
    this.#inner = new MemoryEmbedder(dimensions);
    this.dimensions = dimensions;
    this.model = `reversed-${dimensions}`;
  }
  async embed(texts: string[], options?: CallOptions): Promise<Float32Array[]> {
    this.calls += texts.length;
    return (await this.#inner.embed(texts, options)).map((v) => v.reverse());
  }
}

const OWNER = "0xowner";
const NS = "default";

function setup(newDimensions = 16) {
  const oldEmbedder = new MemoryEmbedder(16);
  const newEmbedder = new ReversedEmbedder(newDimensions);
  const oldStore = new MemoryVectorStore(16);
  const newStore = new MemoryVectorStore(newDimensions);
  const indexes = new IndexSwitch({ name: "index", embedder: oldEmbedder, store: oldStore });
  return { oldEmbedder, newEmbedder, oldStore, newStore, indexes };
}

async function rowOf(embedder: Embedder, id: string, text: string): Promise<VectorRow> {
  const [vector] = await embedder.embed([text]);
  return { id, owner: OWNER, namespace: NS, blobId: `blob-${id}`, vector, createdAt: 1 };
}

/** The vector a store holds for `id`, found by a search restricted to it. */
async function distanceTo(store: MemoryVectorStore, id: string, query: Float32Array) {
  const [hit] = await store.search(OWNER, NS, query, 1, { ids: [id] });
  return hit?.distance;
}

Deno.test("index switch: while building, a remembered memory lands in both indexes, each with its embedder's vector", async () => {
  const { oldEmbedder, newEmbedder, oldStore, newStore, indexes } = setup();
  indexes.build({ name: "index-2", embedder: newEmbedder, store: newStore });
  const text = "I commute by bicycle";
  await indexes.vectors.upsert([await rowOf(indexes.embedder, "a", text)]);
  const [oldVector] = await oldEmbedder.embed([text]);
  const [newVector] = await newEmbedder.embed([text]);
  assert.ok(Math.abs((await distanceTo(oldStore, "a", oldVector))!) < 1e-6);
  assert.ok(Math.abs((await distanceTo(newStore, "a", newVector))!) < 1e-6);
  assert.ok(cosineDistance(oldVector, newVector) > 0.1, "the two embedders differ");
  await indexes.vectors.delete(["a"]);
  assert.equal(await oldStore.count(), 0);
  assert.equal(await newStore.count(), 0);
});

Deno.test("index switch: a search goes to the index of the embedder that made its vector, and is refused once that index is retired", async () => {
  const { oldEmbedder, newEmbedder, oldStore, newStore, indexes } = setup();
  await oldStore.upsert([await rowOf(oldEmbedder, "old-only", "red apples")]);
  await newStore.upsert([await rowOf(newEmbedder, "new-only", "red apples")]);
  indexes.build({ name: "index-2", embedder: newEmbedder, store: newStore });
  const [before] = await indexes.embedder.embed(["red apples"]);
  const replaced = await indexes.complete(() => Promise.resolve(), () => Promise.resolve());
  assert.equal(replaced.name, "index");
  assert.equal(indexes.active.name, "index-2");
  assert.equal(indexes.embedder.model, newEmbedder.model);
  const [after] = await indexes.embedder.embed(["red apples"]);
  // A recall that embedded before the switch ends on the old index, one after on the new.
  assert.deepEqual((await indexes.vectors.search(OWNER, NS, before, 5)).map((h) => h.id), [
    "old-only",
  ]);
  assert.deepEqual((await indexes.vectors.search(OWNER, NS, after, 5)).map((h) => h.id), [
    "new-only",
  ]);
  await indexes.retire(replaced);
  await assert.rejects(
    indexes.vectors.search(OWNER, NS, before, 5),
    (error) => error instanceof SvcError && error.code === "backend_unavailable",
  );
  assert.deepEqual((await indexes.vectors.search(OWNER, NS, after, 5)).map((h) => h.id), [
    "new-only",
  ]);
});

Deno.test("index switch: a memory embedded before the switch and written after is embedded again for the new index", async () => {
  const { newEmbedder, newStore, indexes, oldStore } = setup();
  indexes.build({ name: "index-2", embedder: newEmbedder, store: newStore });
  const row = await rowOf(indexes.embedder, "late", "My sister lives in Lyon");
  const replaced = await indexes.complete(() => Promise.resolve(), () => Promise.resolve());
  await indexes.retire(replaced);
  await indexes.vectors.upsert([row]);
  assert.equal(await oldStore.count(), 0);
  const [newVector] = await newEmbedder.embed(["My sister lives in Lyon"]);
  assert.ok(Math.abs((await distanceTo(newStore, "late", newVector))!) < 1e-6);
});

Deno.test("index switch: a client's vector is copied to the new index only when it has its size", async () => {
  const same = setup(16);
  same.indexes.build({ name: "index-2", embedder: same.newEmbedder, store: same.newStore });
  const vector = Array.from({ length: 16 }, (_, i) => (i === 3 ? 1 : 0));
  const manual = { id: "m", owner: OWNER, namespace: NS, blobId: "b", vector, createdAt: 1 };
  await same.indexes.vectors.upsert([manual]);
  assert.deepEqual([...await same.newStore.has(["m"])], ["m"]);

  const other = setup(24);
  other.indexes.build({ name: "index-2", embedder: other.newEmbedder, store: other.newStore });
  await other.indexes.vectors.upsert([manual]);
  assert.deepEqual([...await other.oldStore.has(["m"])], ["m"]);
  assert.equal(await other.newStore.count(), 0);
});

Deno.test("index switch: copy writes only the memories the active index still holds", async () => {
  const { newEmbedder, newStore, oldStore, oldEmbedder, indexes } = setup();
  await oldStore.upsert([await rowOf(oldEmbedder, "kept", "a kept memory")]);
  indexes.build({ name: "index-2", embedder: newEmbedder, store: newStore });
  const written = await indexes.copy([
    await rowOf(newEmbedder, "kept", "a kept memory"),
    await rowOf(newEmbedder, "erased", "an erased memory"),
  ]);
  assert.equal(written, 1);
  assert.deepEqual([...await newStore.has(["kept", "erased"])], ["kept"]);
});

Deno.test("index switch: writes wait while the switch completes, then land in the new index", async () => {
  const { newEmbedder, newStore, oldStore, indexes } = setup();
  indexes.build({ name: "index-2", embedder: newEmbedder, store: newStore });
  const row = await rowOf(indexes.embedder, "during", "written during the switch");
  let write: Promise<void> | undefined;
  const replaced = await indexes.complete(async () => {
    write = indexes.vectors.upsert([row]);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(await oldStore.count(), 0, "held back during the final pass");
  }, () => Promise.resolve());
  await write;
  assert.equal(await oldStore.count(), 0);
  assert.deepEqual([...await newStore.has(["during"])], ["during"]);
  await indexes.retire(replaced);
});

Deno.test("index switch: its listeners hear of the switch, and again once the old index is closed", async () => {
  const { newEmbedder, newStore, indexes } = setup();
  let heard = 0;
  indexes.vectors.onReplaced?.(() => heard++);
  indexes.build({ name: "index-2", embedder: newEmbedder, store: newStore });
  const replaced = await indexes.complete(() => Promise.resolve(), () => Promise.resolve());
  assert.equal(heard, 1);
  await indexes.retire(replaced);
  assert.equal(heard, 2);
});

Deno.test("write gate: an exclusive task waits for the writes under way and holds back new ones", async () => {
  const gate = new WriteGate();
  const order: string[] = [];
  let release!: () => void;
  const first = gate.shared(async () => {
    order.push("write 1 starts");
    await new Promise<void>((r) => release = r);
    order.push("write 1 ends");
  });
  const exclusive = gate.exclusive(() => {
    order.push("exclusive");
    return Promise.resolve();
  });
  const second = gate.shared(() => {
    order.push("write 2");
    return Promise.resolve();
  });
  await new Promise((r) => setTimeout(r, 10));
  release();
  await Promise.all([first, exclusive, second]);
  assert.deepEqual(order, ["write 1 starts", "write 1 ends", "exclusive", "write 2"]);
});

/** A memory store that can say another writer changed a namespace, or anything. */
class SharedStore extends MemoryVectorStore {
  #changed: ((owner: string, namespace: string) => void)[] = [];
  #replaced: (() => void)[] = [];
  onChanged(listener: (owner: string, namespace: string) => void): void {
    this.#changed.push(listener);
  }
  onReplaced(listener: () => void): void {
    this.#replaced.push(listener);
  }
  changed(owner: string, namespace: string): void {
    for (const listener of this.#changed) listener(owner, namespace);
  }
  lost(): void {
    for (const listener of this.#replaced) listener();
  }
}

Deno.test("index switch: it passes on other writers' changes of the active index only", async () => {
  const oldStore = new SharedStore(16), newStore = new SharedStore(16);
  const indexes = new IndexSwitch({
    name: "index",
    embedder: new MemoryEmbedder(16),
    store: oldStore,
  });
  const heard: string[] = [];
  indexes.vectors.onChanged?.((owner, namespace) => heard.push(`${owner}/${namespace}`));
  indexes.vectors.onReplaced?.(() => heard.push("all"));
  indexes.build({ name: "index-2", embedder: new ReversedEmbedder(16), store: newStore });
  oldStore.changed("o", "a");
  newStore.changed("o", "b"); // not active yet
  oldStore.lost();
  newStore.lost();
  assert.deepEqual(heard, ["o/a", "all"]);
  await indexes.complete(() => Promise.resolve(), () => Promise.resolve());
  assert.deepEqual(heard.splice(0), ["o/a", "all", "all"], "the switch itself replaced all");
  oldStore.changed("o", "c");
  newStore.changed("o", "d");
  assert.deepEqual(heard, ["o/d"]);
});

Deno.test("index switch: an embedder opened for the old index closes with it, once", async () => {
  const oldStore = new MemoryVectorStore(16);
  let closed = 0;
  const indexes = new IndexSwitch({
    name: "index",
    embedder: new MemoryEmbedder(16),
    store: oldStore,
    closeEmbedder: () => Promise.resolve(void closed++),
  });
  indexes.build({
    name: "index-2",
    embedder: new ReversedEmbedder(16),
    store: new MemoryVectorStore(16),
  });
  const replaced = await indexes.complete(() => Promise.resolve(), () => Promise.resolve());
  assert.equal(closed, 0, "still serving searches with its vectors");
  await indexes.retire(replaced);
  assert.equal(closed, 1);
  await indexes.close();
  assert.equal(closed, 1, "not again when the switch closes");
});

Deno.test("index switch: closing during a build closes the old index's embedder too", async () => {
  let closed = 0;
  const indexes = new IndexSwitch({
    name: "index",
    embedder: new MemoryEmbedder(16),
    store: new MemoryVectorStore(16),
    closeEmbedder: () => Promise.resolve(void closed++),
  });
  indexes.build({
    name: "index-2",
    embedder: new ReversedEmbedder(16),
    store: new MemoryVectorStore(16),
  });
  await indexes.close();
  assert.equal(closed, 1);
});

Deno.test("index switch: a retired index's embedder is closed only after the embedding it was doing", async () => {
  let release = () => {};
  let closed = false;
  const slow: Embedder = {
    name: "slow",
    model: "memory-16",
    dimensions: 16,
    async embed(texts) {
      await new Promise<void>((resolve) => release = resolve);
      assert.equal(closed, false, "still open while it embeds");
      return await new MemoryEmbedder(16).embed(texts);
    },
  };
  const indexes = new IndexSwitch({
    name: "index",
    embedder: slow,
    store: new MemoryVectorStore(16),
    closeEmbedder: () => Promise.resolve(void (closed = true)),
  });
  const embedding = indexes.embedder.embed(["began before the switch"]);
  indexes.build({
    name: "index-2",
    embedder: new ReversedEmbedder(16),
    store: new MemoryVectorStore(16),
  });
  const replaced = await indexes.complete(() => Promise.resolve(), () => Promise.resolve());
  const retiring = indexes.retire(replaced);
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(closed, false);
  release();
  await embedding;
  await retiring;
  assert.equal(closed, true);
});
