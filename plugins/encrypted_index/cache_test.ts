import assert from "node:assert/strict";
import { createLogger } from "../../src/kit.ts";
import { NamespaceCache } from "./cache.ts";
import { IndexKeys } from "./keys.ts";
import type { BlockStorage, StoredHeader } from "./storage.ts";

const ref = { owner: "o".repeat(22), ns: "n".repeat(22) };

/** A namespace whose header says `count` rows and whose blocks hold none, at `version()`. */
async function loadWith(version: () => string, count: number): Promise<string[]> {
  const warnings: string[] = [];
  const storage = {
    header: (): Promise<StoredHeader> =>
      Promise.resolve({ ref, version: version(), header: { name: new Uint8Array(), count } }),
    async *blocks() {},
  } as unknown as BlockStorage;
  const logger = createLogger("warn", (line) => warnings.push(JSON.parse(line).msg));
  const keys = await IndexKeys.derive(new Uint8Array(32));
  await new NamespaceCache(storage, keys, 4, 1 << 20, logger).get(ref);
  return warnings;
}

Deno.test("NamespaceCache: rows and header of one version that disagree are logged", async () => {
  assert.deepEqual(await loadWith(() => "v1", 3), [
    "vector index namespace count differs from its rows",
  ]);
  assert.deepEqual(await loadWith(() => "v1", 0), []);
});

Deno.test("NamespaceCache: a header newer than the rows, under writes, is not a disagreement", async () => {
  let commits = 0;
  assert.deepEqual(await loadWith(() => `v${++commits}`, 3), []);
});
