import assert from "node:assert/strict";
import { EmbedWorker } from "./embed_worker.ts";

const WORKER = new URL("../../tests/fixtures/counting_embed_worker.ts", import.meta.url);

Deno.test("EmbedWorker: queries waiting together run as one batch, up to its size; documents apart", async () => {
  const worker = await EmbedWorker.start(WORKER, {}, { batchSize: 4, what: "the test model" });
  try {
    const busy = worker.embed(["slow document"], "document");
    const queries = ["a", "b", "c", "d", "e"].map((text) => worker.embed([text], "query"));
    const documents = worker.embed(["x", "y"], "document");
    await busy;
    const sizes = (await Promise.all(queries)).map(([vector]) => vector[0]);
    // Four queries in the first run (the batch size), the fifth in the next; each its own vector.
    assert.deepEqual(sizes, [4, 4, 4, 4, 1]);
    assert.deepEqual((await documents).map((vector) => vector[0]), [2, 2]);
  } finally {
    await worker.close();
  }
});
