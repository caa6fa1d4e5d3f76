import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { EncryptedVectorStore } from "../../plugins/encrypted_index/mod.ts";
import { createLogger, type VectorStore } from "../../src/kit.ts";
import { MemoryVectorStore } from "../../src/testing/mod.ts";
import { DIMENSIONS, writeAt } from "../fixtures/index_writer.ts";

const WRITER = fileURLToPath(new URL("../fixtures/index_writer.ts", import.meta.url));
const NAMESPACES = ["a", "b", "c"];

/** Every row of the index: namespace and id, sorted. */
async function contents(store: VectorStore): Promise<string[]> {
  const out: string[] = [];
  for (const namespace of NAMESPACES) {
    const hits = await store.search("o", namespace, [1, 0, 0, 0, 0, 0, 0, 0], 1_000_000);
    out.push(...hits.map((h) => `${namespace}/${h.id}`));
  }
  return out.sort();
}

/** The index after the first `n` writes of the sequence. */
async function expected(n: number): Promise<string[]> {
  const reference = new MemoryVectorStore(DIMENSIONS);
  for (let i = 0; i < n; i++) {
    const write = writeAt(i);
    if (write.kind === "upsert") await reference.upsert(write.rows);
    else await reference.delete(write.ids);
  }
  return await contents(reference);
}

Deno.test("encrypted index: SIGKILL while writing leaves every write whole or absent", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-encidx-crash-" });
  const path = `${dir}/index.sqlite`;
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const warnings: string[] = [];
  const logger = { ...createLogger("error"), warn: (msg: string) => warnings.push(msg) };
  const options = { path, secret, model: "crash-test", dimensions: DIMENSIONS, logger };
  try {
    // The writer is killed and restarted at the write it was doing, twelve times.
    let next = 0;
    for (let kill = 0; kill < 12; kill++) {
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-all", "--unstable-kv", WRITER, path, secret.toHex(), `${next}`],
        stdout: "piped",
        stderr: "inherit",
      }).spawn();
      let printed = "";
      let killed = false;
      for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
        printed += chunk;
        if (!killed && printed.split("\n").length > 8 + 3 * kill) {
          // Some milliseconds into a write, at a different point each time.
          setTimeout(() => child.kill("SIGKILL"), (kill * 13) % 40);
          killed = true;
        }
      }
      await child.status;
      const acknowledged = printed.trim().split("\n").filter(Boolean);
      if (acknowledged.length) next = Number(acknowledged.at(-1)) + 1;
      const store = await EncryptedVectorStore.open(options);
      const found = (await contents(store)).join();
      const before = (await expected(next)).join(), after = (await expected(next + 1)).join();
      assert.ok(found === before || found === after, `after ${next} acknowledged writes`);
      assert.equal(await store.count(), found.split(",").length, "the counts agree with the rows");
      await store.close();
    }
    assert.deepEqual(warnings, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
