/**
 * Two relayers on one PostgreSQL index (sharing, as deployed relayers do, the secret, cipher,
 * blobs and accounts): what one remembers or erases, the other's recall sees once notified,
 * its lexical index included.
 */
import assert from "node:assert/strict";
import { LocalCipher } from "../../plugins/local_cipher/mod.ts";
import { Database, PgIndexSet } from "../../plugins/postgres/mod.ts";
import { testDatabase } from "../../plugins/postgres/testing/test_server.ts";
import { LexicalEmbedder } from "../../plugins/lexical_embedder/mod.ts";
import { jsonOf, rememberAll, startTestRelayer } from "../fixtures.ts";

Deno.test("two relayers on one PostgreSQL index: a memory remembered on one is recalled on the other", async () => {
  await using db = await testDatabase();
  const databases = await Promise.all([1, 2].map(() => Database.open({ url: db.url, pool: 2 })));
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const cipher = await LocalCipher.open({ masterKey: crypto.getRandomValues(new Uint8Array(32)) });
  const embedder = new LexicalEmbedder();
  const embedding = { model: embedder.model, dimensions: embedder.dimensions };
  const sets = await Promise.all(
    databases.map((database) => PgIndexSet.open({ database, secret })),
  );
  try {
    await using a = await startTestRelayer({
      secret,
      cipher,
      vectors: await sets[0].open("index", embedding),
    });
    await using b = await startTestRelayer({
      secret,
      cipher,
      directory: a.directory,
      blobs: a.blobs,
      vectors: await sets[1].open("index", embedding),
    });
    const caller = await a.newCaller();
    const recallOn = async (relayer: typeof a, query: string) => {
      const res = await relayer.signed(caller, "POST", "/api/recall", { query, min_score: 0 });
      return (await jsonOf(res)).results.map((r: { text: string }) => r.text);
    };
    await rememberAll(a, caller, [{ text: "My sister lives in Lisbon" }]);
    // B reads the namespace (vectors and lexicon) before A's next memory.
    assert.deepEqual(await recallOn(b, "where does my sister live"), ["My sister lives in Lisbon"]);
    const changed = Promise.withResolvers<void>();
    b.vectors.onChanged?.(() => changed.resolve());
    await rememberAll(a, caller, [{ text: "I keep bees on the roof" }]);
    await changed.promise;
    assert.equal((await recallOn(b, "bees on the roof"))[0], "I keep bees on the roof");
    const listed = await jsonOf(await b.signed(caller, "GET", "/api/memories"));
    assert.deepEqual(listed.memories.map((m: { text: string }) => m.text).sort(), [
      "I keep bees on the roof",
      "My sister lives in Lisbon",
    ]);
    // An erase through B disappears from A.
    const [id] = listed.memories.filter((m: { text: string }) => m.text.includes("bees"))
      .map((m: { id: string }) => m.id);
    const erased = Promise.withResolvers<void>();
    a.vectors.onChanged?.(() => erased.resolve());
    await jsonOf(await b.signed(caller, "DELETE", `/api/memories/${id}`));
    await erased.promise;
    const left = await jsonOf(await a.signed(caller, "GET", "/api/memories"));
    assert.deepEqual(left.memories.map((m: { text: string }) => m.text), [
      "My sister lives in Lisbon",
    ]);
  } finally {
    for (const set of sets) await set.close();
    for (const database of databases) await database.close();
  }
});
