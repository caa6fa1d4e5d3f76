/**
 * The relayer with its data directory's disk full (a `diskSpace` it is given): the routes that
 * store memories answer 503 `disk_full` with `Retry-After`; reads, job status and erase go on;
 * `/health` says so; once there is room, writes go on. (A relayer process on a real, filled
 * filesystem: `e2e/disk_full_test.ts`.)
 */
import assert from "node:assert/strict";
import { DiskSpace } from "../app/disk_space.ts";
import { silentLogger } from "../src/log.ts";
import { startTestRelayer } from "./fixtures.ts";

Deno.test("a full disk: what stores memories waits, what reads or erases them goes on", async () => {
  const full = await DiskSpace.watch(".", 1, silentLogger, () => Promise.resolve(0));
  full.stop();
  let low = false;
  const diskSpace = {
    get low() {
      return low;
    },
    refusal: () => low ? full.refusal() : undefined,
  };
  await using t = await startTestRelayer({ diskSpace });
  const alice = await t.newCaller();
  const kept = await (await t.signed(alice, "POST", "/api/remember", { text: "I keep bees" }))
    .json();
  await t.settle(alice, [kept.job_id]);

  low = true;
  assert.equal((await (await t.send("GET", "/health")).json()).writes, "refused");
  const vector = Array(t.vectors.dimensions).fill(0.1);
  const writes: [string, string, unknown][] = [
    ["POST", "/api/remember", { text: "I keep wasps" }],
    ["POST", "/api/remember/bulk", { items: [{ text: "I keep ants" }] }],
    ["POST", "/api/remember/manual", { encrypted_data: "YQ==", vector }],
    ["POST", "/api/restore", { namespace: "default" }],
    ["POST", "/api/analyze", { text: "I keep moths." }],
    ["PUT", `/api/memories/${kept.job_id}`, { text: "I keep many bees" }],
  ];
  for (const [method, path, body] of writes) {
    const res = await t.signed(alice, method, path, body);
    assert.equal(res.status, 503, path);
    assert.equal(res.headers.get("retry-after"), "30");
    assert.equal((await res.json()).reason, "disk_full", path);
  }
  const recalled = await t.signed(alice, "POST", "/api/recall", { query: "bees" });
  assert.equal((await recalled.json()).results[0].text, "I keep bees");
  assert.equal((await t.signed(alice, "GET", `/api/remember/${kept.job_id}`)).status, 200);
  const status = await t.signed(alice, "POST", "/api/remember/bulk/status", {
    job_ids: [kept.job_id],
  });
  assert.equal(status.status, 200);
  await status.body?.cancel();
  assert.equal((await t.signed(alice, "DELETE", `/api/memories/${kept.job_id}`)).status, 200);

  low = false;
  assert.equal((await (await t.send("GET", "/health")).json()).writes, "accepted");
  const later = await (await t.signed(alice, "POST", "/api/remember", { text: "I keep wasps" }))
    .json();
  await t.settle(alice, [later.job_id]);
  const found = await t.signed(alice, "POST", "/api/recall", { query: "wasps" });
  assert.equal((await found.json()).results[0].text, "I keep wasps");
});
