/**
 * The encrypted index on PostgreSQL: the vector store's conformance suite, and what is specific
 * to sharing (two pools on one database acting as two relayers).
 */
import assert from "node:assert/strict";
import type { VectorRow, VectorStore } from "../../src/kit.ts";
import { vectorStoreSuite, type VectorStoreUnderTest } from "../../src/testing/mod.ts";
import { EncryptedVectorStore } from "../encrypted_index/mod.ts";
import { PgBlockStorage } from "./block_storage.ts";
import { Database } from "./database.ts";
import { testDatabase } from "./test_server.ts";

/** A store on `database`'s index `name`, which it can reopen; `dispose` runs after it closes. */
async function onDatabase(
  database: Database,
  secret: Uint8Array<ArrayBuffer>,
  dimensions: number,
  dispose: () => Promise<void>,
): Promise<VectorStoreUnderTest> {
  const store = await EncryptedVectorStore.open({
    storage: await PgBlockStorage.open(database, "index"),
    secret,
    model: "test",
    dimensions,
  });
  return Object.assign(store, {
    reopen: async () => {
      await store.close();
      return await onDatabase(database, secret, dimensions, dispose);
    },
    [Symbol.asyncDispose]: async () => {
      await store.close();
      await dispose();
    },
  });
}

vectorStoreSuite("EncryptedVectorStore on PostgreSQL", async (dimensions) => {
  const db = await testDatabase();
  const database = await Database.open({ url: db.url, pool: 3 });
  const secret = crypto.getRandomValues(new Uint8Array(32));
  return await onDatabase(database, secret, dimensions, async () => {
    await database.close();
    await db[Symbol.asyncDispose]();
  });
});
