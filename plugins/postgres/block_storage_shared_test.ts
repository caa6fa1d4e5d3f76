/**
 * The encrypted index shared by relayers: two pools on one database act as two relayers, each
 * with its own store (and memory) over the same index.
 */
import assert from "node:assert/strict";
import { createLogger, type VectorRow } from "@svc/relayer/kit";
import { EncryptedVectorStore } from "@svc/encrypted-index";
import type { BlockStorage } from "@svc/encrypted-index/storage";
import { PgBlockStorage } from "./block_storage.ts";
import { Database } from "./database.ts";
import { testDatabase } from "./testing/test_server.ts";

const secret = crypto.getRandomValues(new Uint8Array(32));
const unit = (i: number) => Array.from({ length: 4 }, (_, j) => (j === i % 4 ? 1 : 0.01 * i));
const row = (id: string, i: number, namespace = "n"): VectorRow => ({
  id,
  owner: "o",
  namespace,
  blobId: `blob-${id}`,
  vector: unit(i),
  createdAt: i,
  terms: [`t${i}`],
});

/** `storage`, but for the calls `change` answers instead. */
function altered(storage: BlockStorage, change: Partial<BlockStorage>): BlockStorage {
  return {
    meta: () => storage.meta(),
    setMeta: (meta) => storage.setMeta(meta),
    note: (name) => storage.note(name),
    setNote: (name, value) => storage.setNote(name, value),
    header: (ref) => storage.header(ref),
    headers: (owner) => storage.headers(owner),
    blocks: (ref, version, held) => storage.blocks(ref, version, held),
    locate: (ids) => storage.locate(ids),
    commit: (change) => storage.commit(change),
    watch: (watcher) => storage.watch!(watcher),
    close: () => storage.close(),
    ...change,
  };
}

/** `storage`, except that it tells of no other writer's commit (as if notifications were lost). */
const deaf = (storage: BlockStorage) => altered(storage, { watch: () => () => {} });

/** Two relayers (a pool and a store each) on one fresh database, closed on dispose. */
async function twoRelayers(
  options: { revalidateMs?: number; storage?: (s: PgBlockStorage) => BlockStorage } = {},
) {
  const db = await testDatabase();
  const logged: { level: string; msg: string; reason?: string }[] = [];
  const logger = createLogger("warn", (line) => void logged.push(JSON.parse(line)));
  const databases = await Promise.all(
    [1, 2].map(() => Database.open({ url: db.url, pool: 2, logger })),
  );
  const stores: EncryptedVectorStore[] = [];
  for (const database of databases) {
    const storage = await PgBlockStorage.open(database, "index");
    stores.push(
      await EncryptedVectorStore.open({
        storage: options.storage?.(storage) ?? storage,
        secret,
        model: "m",
        dimensions: 4,
        revalidateMs: options.revalidateMs,
      }),
    );
  }
  return {
    a: stores[0],
    b: stores[1],
    databases,
    logged,
    async [Symbol.asyncDispose]() {
      for (const store of stores) await store.close();
      for (const database of databases) await database.close();
      await db[Symbol.asyncDispose]();
    },
  };
}

const ids = async (store: EncryptedVectorStore, namespace = "n") =>
  (await store.search("o", namespace, unit(0), 100)).map((hit) => hit.id).sort();

/** The next namespace `store` hears another writer changed. */
function nextChange(store: EncryptedVectorStore): Promise<string> {
  const heard = Promise.withResolvers<string>();
  store.onChanged((owner, namespace) => heard.resolve(`${owner}/${namespace}`));
  return heard.promise;
}

Deno.test("index on PostgreSQL: a memory added on one relayer is found on another once notified", async () => {
  // Trust lasts a minute: what B sees next comes from the notification, not a revalidation.
  await using relayers = await twoRelayers({ revalidateMs: 60_000 });
  const { a, b } = relayers;
  await a.upsert([row("m1", 1)]);
  assert.deepEqual(await ids(b), ["m1"]);
  assert.equal(b.memoryStats().namespaces, 1, "B holds the namespace");
  const changed = nextChange(b);
  await a.upsert([row("m2", 2)]);
  assert.equal(await changed, "o/n");
  assert.deepEqual(await ids(b), ["m1", "m2"]);
  assert.deepEqual((await b.terms("o", "n")).map((t) => t.id).sort(), ["m1", "m2"]);
  // B's own writes do not come back to it as another's.
  let heard = 0;
  b.onChanged(() => heard++);
  const toA = nextChange(a);
  await b.upsert([row("m3", 3)]);
  assert.equal(await toA, "o/n");
  assert.equal(heard, 0);
});

Deno.test("index on PostgreSQL: an erase on one relayer disappears on the other", async () => {
  await using relayers = await twoRelayers({ revalidateMs: 60_000 });
  const { a, b } = relayers;
  await a.upsert([row("m1", 1), row("m2", 2)]);
  assert.deepEqual(await ids(b), ["m1", "m2"]);
  let changed = nextChange(b);
  await a.delete(["m1"]);
  await changed;
  assert.deepEqual(await ids(b), ["m2"]);
  assert.deepEqual([...await b.has(["m1", "m2"])], ["m2"]);
  changed = nextChange(b);
  await a.delete(["m2"]);
  await changed;
  assert.deepEqual(await ids(b), []);
  assert.equal(await b.count({ owner: "o", namespace: "n" }), 0);
  assert.equal(b.memoryStats().namespaces, 0, "nothing of the erased namespace kept");
});

Deno.test("index on PostgreSQL: concurrent commits to one namespace from two relayers all land", async () => {
  await using relayers = await twoRelayers();
  const { a, b } = relayers;
  await a.upsert([row("seed", 0)]);
  assert.deepEqual(await ids(b), ["seed"]);
  // Each relayer writes one at a time (its single writer), both at once: they conflict often.
  const writes: Promise<void>[] = [];
  for (let i = 1; i <= 12; i++) {
    writes.push(a.upsert([row(`a${i}`, i)]), b.upsert([row(`b${i}`, i)]));
  }
  writes.push(a.delete(["seed"]));
  await Promise.all(writes);
  const expected = [...Array(12)].flatMap((_, i) => [`a${i + 1}`, `b${i + 1}`]).sort();
  for (const store of [a, b]) {
    assert.deepEqual(await ids(store), expected);
    assert.equal(await store.count({ owner: "o", namespace: "n" }), 24);
  }
  const [{ located }] = await relayers.databases[0].sql`
    select count(*)::int as located from svc_index_ids where index_name = 'index'`;
  assert.equal(located, 24);
});

Deno.test("index on PostgreSQL: with notifications lost, a relayer sees others' writes after revalidateMs", async () => {
  // B's storage tells it nothing: only the revalidation can show it A's writes.
  await using relayers = await twoRelayers({
    revalidateMs: 100,
    storage: (storage) => deaf(storage),
  });
  const { a, b } = relayers;
  await a.upsert([row("m1", 1)]);
  assert.deepEqual(await ids(b), ["m1"]);
  const changed: string[] = [];
  b.onChanged((owner, namespace) => changed.push(`${owner}/${namespace}`));
  await a.upsert([row("m2", 2)]);
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.deepEqual(await ids(b), ["m1", "m2"]);
  // What B's listeners hold of the namespace (the relayer's lexicon) is stale too: they hear it.
  assert.deepEqual(changed, ["o/n"]);
});

Deno.test("index on PostgreSQL: revalidate shows a relayer another's write at once, notified or not, and tells its listeners", async () => {
  await using relayers = await twoRelayers({
    revalidateMs: 60_000,
    storage: (storage) => deaf(storage),
  });
  const { a, b } = relayers;
  await a.upsert([row("m1", 1)]);
  assert.deepEqual(await ids(b), ["m1"]);
  const changed: string[] = [];
  b.onChanged((owner, namespace) => changed.push(`${owner}/${namespace}`));
  await b.revalidate("o", "n");
  assert.deepEqual(changed, [], "nothing changed: nothing told");
  await a.upsert([row("m2", 2)]);
  assert.deepEqual(await ids(b), ["m1"], "trusted for a minute, B has not heard");
  await b.revalidate("o", "n");
  assert.deepEqual(changed, ["o/n"]);
  assert.deepEqual(await ids(b), ["m1", "m2"]);
  // An erase of the namespace's last memory (its header gone) too.
  await a.delete(["m1", "m2"]);
  await b.revalidate("o", "n");
  assert.deepEqual(changed, ["o/n", "o/n"]);
  assert.deepEqual(await ids(b), []);
});

Deno.test("index on PostgreSQL: a relayer whose notifications were interrupted no longer trusts what it holds", async () => {
  // Each relayer's reads of a namespace's stored version, counted.
  const headerReads: number[] = [];
  await using relayers = await twoRelayers({
    revalidateMs: 60_000,
    storage: (storage) => {
      const relayer = headerReads.push(0) - 1;
      return altered(storage, {
        header: (ref) => (headerReads[relayer]++, storage.header(ref)),
      });
    },
  });
  const { a, b } = relayers;
  await a.upsert([row("m1", 1)]);
  assert.deepEqual(await ids(b), ["m1"]);
  const reads = headerReads[1];
  assert.deepEqual(await ids(b), ["m1"]);
  assert.equal(headerReads[1], reads, "trusted for a minute");
  const replaced = Promise.withResolvers<void>();
  b.onReplaced(() => replaced.resolve());
  // Every listening connection is cut; the pool is renewed and listens again, then tells the store.
  await relayers.databases[0].sql`
    select pg_terminate_backend(pid) from pg_stat_activity where query like 'listen%'`;
  await replaced.promise;
  assert.deepEqual(await ids(b), ["m1"]);
  assert.ok(headerReads[1] > reads, "the stored version read again");
  const renewed = relayers.logged.find((entry) => entry.msg === "database connections renewed");
  assert.equal(renewed?.level, "warn");
  assert.equal(renewed?.reason, "the connection was lost");
  const changed = nextChange(b);
  await a.upsert([row("m2", 2)]);
  await changed; // listening again
  assert.deepEqual(await ids(b), ["m1", "m2"]);
});

Deno.test("PgBlockStorage: a storage's own commit to several namespaces is not another writer's", async () => {
  await using db = await testDatabase();
  const database = await Database.open({ url: db.url, pool: 2 });
  const storage = await PgBlockStorage.open(database, "index");
  try {
    const heard: string[] = [];
    storage.watch({ changed: (ref, version) => heard.push(`${ref.ns}@${version}`), lost() {} });
    const header = (ns: string) => ({
      ref: { owner: "o", ns },
      header: { name: new Uint8Array([1]), count: 1 },
    });
    const version = await storage.commit({
      expect: [],
      headers: [header("a"), header("b"), header("c")],
      putBlocks: [],
      deleteBlocks: [],
      putIds: [],
      deleteIds: [],
    });
    assert.ok(version);
    // Its notifications come back on the same connection, after a round trip at most.
    await database.sql`select pg_notify('svc_test_flush', '')`;
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(heard, []);
  } finally {
    storage.close();
    await database.close();
  }
});
