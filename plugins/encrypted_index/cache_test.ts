import assert from "node:assert/strict";
import { createLogger } from "@svc/relayer/kit";
import { encodeBlock } from "./block.ts";
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

Deno.test("NamespaceCache: a load that writes outpaced is the base of the next, which reads only new blocks", async () => {
  const keys = await IndexKeys.derive(new Uint8Array(32));
  const stored = new Map<string, Uint8Array<ArrayBuffer>>();
  const put = async (id: string, rows: number) => {
    const block = Array.from({ length: rows }, (_, i) => ({
      id: `${id}-${i}`,
      blobId: `b-${id}-${i}`,
      createdAt: i,
      vector: new Float32Array([1, 0, 0, 0]),
      terms: "",
      info: "",
    }));
    stored.set(id, await keys.sealBlock(ref, id, encodeBlock(block, 4)));
  };
  for (const id of ["a", "b", "c"]) await put(id, 2);
  // Another writer commits all the time: the version differs at every read.
  let commits = 0, read = 0;
  const storage = {
    header: (): Promise<StoredHeader> =>
      Promise.resolve({
        ref,
        version: `v${String(++commits).padStart(4, "0")}`,
        header: { name: new Uint8Array(), count: stored.size * 2 },
      }),
    async *blocks(_ref: unknown, _version: string, held = new Set<string>()) {
      for (const [id, bytes] of stored) {
        if (!held.has(id)) read++;
        yield { id, bytes: held.has(id) ? null : bytes };
      }
    },
  } as unknown as BlockStorage;
  const cache = new NamespaceCache(storage, keys, 4, 1 << 20, createLogger("warn", () => {}));
  const first = await cache.get(ref);
  assert.equal(first.count, 6);
  assert.equal(read, 3, "each block read once, though every attempt was outpaced");
  await put("d", 2);
  stored.delete("a");
  const next = await cache.get(ref, (await storage.header(ref))!);
  assert.deepEqual([...next.blocks.keys()].sort(), ["b", "c", "d"]);
  assert.equal(next.count, 6);
  assert.equal(read, 4, "only the new block read");
});
