import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { coalesced, scrubSqlite } from "./scrub.ts";

/** How many of `markers` the database's files at `path` hold. */
async function held(path: string, markers: string[]): Promise<number> {
  let bytes = Buffer.alloc(0);
  for (const suffix of ["", "-wal"]) {
    bytes = Buffer.concat([
      bytes,
      await Deno.readFile(path + suffix).catch(() => new Uint8Array()),
    ]);
  }
  return markers.filter((marker) => bytes.includes(marker)).length;
}

Deno.test("scrubSqlite: a Deno KV file open elsewhere keeps no trace of deleted values, and its live ones", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/keys.kv`;
  const kv = await Deno.openKv(path);
  try {
    const marker = (i: number) => `marker-${i}-`.padEnd(120, "x");
    for (let i = 0; i < 200; i++) await kv.set(["k", i], marker(i));
    const deleted = Array.from({ length: 100 }, (_, i) => marker(i));
    for (let i = 0; i < 100; i++) await kv.delete(["k", i]);
    assert.ok(await held(path, deleted) > 0, "SQLite keeps deleted values");
    await scrubSqlite(path);
    assert.equal(await held(path, deleted), 0);
    assert.equal((await kv.get(["k", 150])).value, marker(150));
    await kv.set(["k", 500], "after");
    assert.equal((await kv.get(["k", 500])).value, "after");
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("coalesced: calls during a run share the next one; runs never overlap", async () => {
  let runs = 0, running = 0;
  const gates: PromiseWithResolvers<void>[] = [];
  const run = coalesced(async () => {
    running++;
    assert.equal(running, 1);
    runs++;
    const gate = Promise.withResolvers<void>();
    gates.push(gate);
    await gate.promise;
    running--;
  });
  const first = run();
  assert.equal(run(), first, "a call before the run starts shares it");
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(runs, 1);
  const [second, third] = [run(), run()];
  assert.equal(second, third);
  assert.notEqual(second, first);
  gates[0].resolve();
  await first;
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(runs, 2);
  gates[1].resolve();
  await second;
  assert.equal(runs, 2);
});
