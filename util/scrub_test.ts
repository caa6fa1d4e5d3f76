import assert from "node:assert/strict";
import { Buffer } from "node:buffer";

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

Deno.test("scrubSqlite: a Deno KV file keeps no trace of deleted values, and keeps its live ones", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/jobs.kv`;
  try {
    const marker = (i: number) => `marker-${i}-`.padEnd(120, "x");
    const kv = await Deno.openKv(path);
    for (let i = 0; i < 200; i++) await kv.set(["k", i], marker(i), { expireIn: 3_600_000 });
    const deleted = Array.from({ length: 100 }, (_, i) => marker(i));
    for (let i = 0; i < 100; i++) await kv.delete(["k", i]);
    await kv.enqueue("a message");
    kv.close();
    assert.ok(await held(path, deleted) > 0, "SQLite keeps deleted values");
    // As the relayer runs it: with no permission beyond reading and writing files.
    const script = `import { scrubSqlite } from "${new URL("./scrub.ts", import.meta.url)}";\n` +
      `await scrubSqlite(${JSON.stringify(path)});`;
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "--no-prompt", "--allow-read", "--allow-write", script],
    }).output();
    assert.equal(code, 0, new TextDecoder().decode(stderr));
    assert.equal(await held(path, deleted), 0);
    const reopened = await Deno.openKv(path);
    try {
      assert.equal((await reopened.get(["k", 150])).value, marker(150));
      assert.equal((await reopened.get(["k", 50])).value, null);
      await reopened.set(["k", 500], "after");
      assert.equal((await reopened.get(["k", 500])).value, "after");
      const message = Promise.withResolvers<unknown>();
      const listening = reopened.listenQueue((value) => message.resolve(value));
      assert.equal(await message.promise, "a message");
      reopened.close();
      await listening;
    } finally {
      try {
        reopened.close();
      } catch { /* closed */ }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
