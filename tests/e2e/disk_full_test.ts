/**
 * A full disk, survived: a relayer process runs on a small filesystem of its own (a tmpfs the
 * test mounts, which needs root; without it the test says so and is skipped). Filled past
 * `SVC_MIN_FREE_MB`, the relayer stays up: remembering is refused with 503 `disk_full` and
 * `Retry-After`, recall and erase work, `/health` says `writes: "refused"`; freed, writes resume
 * without a restart and every memory acknowledged is there. A start on the full disk is refused
 * in one line naming the data directory.
 */
import assert from "node:assert/strict";
import { SvcClient } from "../../src/client/mod.ts";
import { freeBytes } from "@svc/util/free_bytes";
import type { SvcError } from "../../src/errors.ts";
import { jobIdOf, newAccountClient, startRelayer } from "../relayer_process.ts";

const MB = 1024 * 1024;

/** Mounts a tmpfs of `mb` MB at a new folder; `undefined` where mounting is not allowed. */
async function mountTmpfs(mb: number): Promise<string | undefined> {
  const dir = await Deno.makeTempDir({ prefix: "svc-disk-full-" });
  const mounted = await new Deno.Command("mount", {
    args: ["-t", "tmpfs", "-o", `size=${mb}m,mode=0700`, "tmpfs", dir],
    stdout: "null",
    stderr: "null",
  }).output().catch(() => ({ success: false }));
  if (mounted.success) return dir;
  await Deno.remove(dir);
  return undefined;
}

/** Whether this machine lets the test mount a filesystem (tried, then undone). */
async function mountable(): Promise<boolean> {
  const probe = await mountTmpfs(1);
  if (probe) await unmount(probe);
  return probe !== undefined;
}

async function unmount(dir: string): Promise<void> {
  await new Deno.Command("umount", { args: [dir] }).output();
  await Deno.remove(dir);
}

/** Fills the disk of `dir` until `leftMb` MB are free (one file, returned). */
async function fill(dir: string, leftMb: number): Promise<string> {
  const path = `${dir}/filler`;
  const bytes = Math.max(0, await freeBytes(dir) - leftMb * MB);
  await Deno.writeFile(path, new Uint8Array(bytes), { append: true });
  return path;
}

/** `/health` once its `writes` is `expected` (the relayer reads the space every 2 s). */
async function healthOnce(url: string, expected: "accepted" | "refused") {
  for (let i = 0; i < 300; i++) {
    const health = await (await fetch(`${url}/health`)).json();
    if (health.writes === expected) return health;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`/health never said writes: ${expected}`);
}

const allowed = await mountable();
if (!allowed) console.warn("disk_full_test: skipped, mounting a tmpfs is not permitted here");

Deno.test({
  name: "a full disk: writes refused and resumed without a restart, nothing lost, start refused",
  ignore: !allowed,
  async fn() {
    const mount = (await mountTmpfs(48))!;
    const dataDir = `${mount}/data`;
    const env = { SVC_MIN_FREE_MB: "12" };
    try {
      await using relayer = await startRelayer(dataDir, env);
      const { client, privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
      // Not asked again after the 503: its Retry-After is 30 s.
      const once = await SvcClient.create({
        baseUrl: relayer.url,
        privateKey,
        accountId,
        retries: 0,
      });
      const before = await Promise.all(
        Array.from({ length: 8 }, (_, i) => client.remember(`I keep bee hive number ${i}`)),
      );
      for (const answer of before) {
        assert.equal((await client.waitForJob(jobIdOf(answer))).status, "done");
      }
      assert.equal((await healthOnce(relayer.url, "accepted")).status, "ok");

      const filler = await fill(mount, 6);
      await healthOnce(relayer.url, "refused");
      const refused = await fetch(`${relayer.url}/api/remember`, { method: "POST" });
      assert.equal(refused.status, 401, "an unsigned request learns nothing more");
      await refused.body?.cancel();
      await assert.rejects(once.remember("I keep a wasp nest"), (error: SvcError) => {
        assert.equal(error.status, 503);
        assert.match(error.message, /disk is full/);
        assert.equal(error.details.reason, "disk_full");
        return true;
      });
      const found = await client.recall("bee hive number 3", { limit: 1 });
      assert.equal(found.results[0].text, "I keep bee hive number 3");
      await client.forget(jobIdOf(before[0]));

      await Deno.remove(filler);
      await healthOnce(relayer.url, "accepted");
      const after = await client.remember("I keep a wasp nest");
      assert.equal((await client.waitForJob(jobIdOf(after))).status, "done");
      const listed = await client.list({ limit: 50 });
      assert.equal(listed.memories.length, 8, "7 kept, 1 erased, 1 after");
      await relayer.stop();

      const again = await fill(mount, 6);
      const start = startRelayer(dataDir, env);
      await assert.rejects(start, (error: Error) => {
        const lines = error.message.split("\n").filter((line) => line.startsWith("svc:"));
        assert.equal(lines.length, 1);
        assert.match(
          lines[0],
          new RegExp(
            `^svc: cannot start: the disk of the data directory \\(${dataDir}\\) has \\d+ MB free; the relayer needs 12 MB \\(SVC_MIN_FREE_MB\\)`,
          ),
        );
        return true;
      });
      await Deno.remove(again);
    } finally {
      await unmount(mount);
    }
  },
});
