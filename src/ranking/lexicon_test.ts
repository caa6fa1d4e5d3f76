import assert from "node:assert/strict";
import type { TermsRow, VectorRow } from "../backends/types.ts";
import { MemoryVectorStore, seededRandom } from "../testing/mod.ts";
import { NamespaceIndex } from "./lexical_index.ts";
import { LexicalIndex } from "./lexicon.ts";

/** A memory of namespace o/n whose one term is its id. */
const memory = (id: string): VectorRow => ({
  id,
  owner: "o",
  namespace: "n",
  blobId: `b-${id}`,
  vector: [1, 0],
  createdAt: 1,
  terms: [id],
});

/** What an index answers: its catalog in order, searches, threads, duplicates. */
function answers(index: NamespaceIndex, queries: string[][]) {
  return {
    entries: index.entries(),
    searches: queries.map((query) => index.search(query, 10).hits),
    neighbours: index.entries().map(({ id }) => index.neighbours(id, 2)),
    duplicates: index.entries().map(({ info }) => index.duplicateOf(info!.digest!, 0)),
    replaced: index.entries().map(({ id }) => index.replacedBy(id)),
  };
}

Deno.test("LexicalIndex: a namespace another writer changed is brought up to date from the rows it lacks, and answers as one read whole", async () => {
  const random = seededRandom(5);
  const store = new MemoryVectorStore(2);
  const read: string[] = [];
  const lexicon = new LexicalIndex({
    rowIds: (owner, namespace) => store.rowIds(owner, namespace),
    async terms(owner, namespace, options) {
      const rows = await store.terms(owner, namespace, options);
      read.push(...rows.map((row) => row.id));
      return rows;
    },
  });
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)];
  const words = Array.from({ length: 30 }, (_, i) => `w${i}`);
  let next = 0;
  const row = (): VectorRow => {
    const id = `m${String(next++).padStart(4, "0")}`;
    return {
      id,
      owner: "o",
      namespace: "n",
      blobId: `b-${id}`,
      vector: [random(), random()],
      createdAt: next,
      terms: Array.from({ length: 1 + Math.floor(random() * 6) }, () => pick(words)),
      info: {
        digest: `d-${id}`, // texts are not remembered twice
        ...(random() < 0.5 ? { thread: pick(["t1", "t2"]) } : {}),
        ...(random() < 0.2 && next > 1
          ? { supersedes: `m${String(next - 2).padStart(4, "0")}` }
          : {}),
      },
    };
  };
  await store.upsert(Array.from({ length: 40 }, row));
  const index = await lexicon.namespace("o", "n");
  const queries = Array.from({ length: 5 }, () => [pick(words), pick(words)]);
  for (let step = 0; step < 60; step++) {
    // Another writer adds and erases memories; this relayer hears of it.
    const added = Array.from({ length: Math.floor(random() * 4) }, row);
    await store.upsert(added);
    const ids = await store.rowIds("o", "n");
    const erased = ids.filter(() => random() < 0.05);
    await store.delete(erased);
    lexicon.drop("o", "n");
    read.length = 0;
    const updated = await lexicon.namespace("o", "n");
    assert.equal(updated, index, "the same index, brought up to date");
    assert.deepEqual(read.sort(), added.map((r) => r.id).filter((id) => !erased.includes(id)));
    const whole = NamespaceIndex.of(await store.terms("o", "n") as TermsRow[]);
    assert.deepEqual(answers(updated, queries), answers(whole, queries), `step ${step}`);
  }
});

Deno.test("LexicalIndex: a memory indexed or erased here while a namespace is brought up to date is kept in step", async () => {
  const store = new MemoryVectorStore(2);
  let gate = Promise.resolve();
  const lexicon = new LexicalIndex({
    rowIds: async (owner, namespace) => {
      const ids = await store.rowIds(owner, namespace);
      await gate;
      return ids;
    },
    terms: (owner, namespace, options) => store.terms(owner, namespace, options),
  });
  await store.upsert([memory("a"), memory("b")]);
  await lexicon.namespace("o", "n");
  await store.upsert([memory("c")]); // another writer's
  lexicon.drop("o", "n");
  const held = Promise.withResolvers<void>();
  gate = held.promise;
  const updating = lexicon.namespace("o", "n");
  // Meanwhile this relayer indexes one memory and erases another, store first as the pipeline does.
  await store.upsert([memory("d")]);
  const adding = lexicon.add("o", "n", { id: "d", terms: ["d"], blobId: "b-d", createdAt: 1 });
  await store.delete(["a"]);
  const removing = lexicon.remove("o", "n", ["a"]);
  held.resolve();
  await Promise.all([updating, adding, removing]);
  const index = await lexicon.namespace("o", "n");
  assert.deepEqual(index.entries().map((entry) => entry.id), ["b", "c", "d"]);
});

Deno.test("LexicalIndex: a namespace let go while marked changed is read whole when next used, then kept", async () => {
  const store = new MemoryVectorStore(2);
  let listed = 0;
  const lexicon = new LexicalIndex({
    rowIds: (owner, namespace) => (listed++, store.rowIds(owner, namespace)),
    terms: (owner, namespace, options) => store.terms(owner, namespace, options),
  });
  await store.upsert([memory("a")]);
  await lexicon.namespace("o", "n");
  lexicon.drop("o", "n");
  // Emptied here before it was used again: it is let go.
  await store.delete(["a"]);
  await lexicon.remove("o", "n", ["a"]);
  await store.upsert([memory("b")]);
  const index = await lexicon.namespace("o", "n");
  assert.equal(await lexicon.namespace("o", "n"), index);
  assert.deepEqual(index.entries().map((entry) => entry.id), ["b"]);
  assert.equal(listed, 0, "read whole, and not brought up to date after");
});
