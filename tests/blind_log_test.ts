import assert from "node:assert/strict";
import { KvStateStore } from "@svc/denokv";
import { timeOrderedId } from "../src/ids.ts";
import { BlindLog, MAX_BLIND_APPEND, MAX_BLIND_APPEND_BYTES } from "../src/services/blind_log.ts";
import { RelayerIdentity } from "../src/services/receipts.ts";

async function openLog(kv: Deno.Kv) {
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const log = new BlindLog(new KvStateStore(kv), secret, await RelayerIdentity.fromSecret(secret));
  await log.enable("0xowner", "ns", { model: "m" }, {
    publicKey: "ab",
    wrapped: new Uint8Array(92),
  });
  return log;
}

const entries = (count: number, bytes: number) =>
  Array.from({ length: count }, () => ({ id: timeOrderedId(), sealed: new Uint8Array(bytes) }));

Deno.test("BlindLog: the largest append a route takes commits in one batch of Deno KV", async () => {
  using kv = await Deno.openKv(":memory:");
  const log = await openLog(kv);
  const many = entries(MAX_BLIND_APPEND, Math.floor(MAX_BLIND_APPEND_BYTES / MAX_BLIND_APPEND));
  assert.equal(await log.append("0xowner", "ns", many), MAX_BLIND_APPEND);
  const { records } = await log.read("0xowner", "ns", 0, 1000);
  assert.deepEqual(records.map((record) => record.id), many.map(({ id }) => id));
});

Deno.test("BlindLog: appends racing on one namespace all land, numbered once each", async () => {
  using kv = await Deno.openKv(":memory:");
  const log = await openLog(kv);
  const batches = Array.from({ length: 5 }, () => entries(3, 10));
  await Promise.all(batches.map((batch) => log.append("0xowner", "ns", batch)));
  const { head, records } = await log.read("0xowner", "ns", 0, 1000);
  assert.equal(head.seq, 15);
  assert.deepEqual(
    records.map((record) => record.seq),
    Array.from({ length: 15 }, (_, i) => i + 1),
  );
  // A retried append is skipped, and an erased entry leaves a tombstone.
  assert.equal(await log.append("0xowner", "ns", batches[0]), 15);
  const receipt = await log.erase("0xowner", "ns", batches[0][0].id);
  assert.equal(receipt?.memory_id, batches[0][0].id);
  const after = await log.read("0xowner", "ns", 0, 1000);
  assert.equal(after.head.seq, 16);
  assert.deepEqual(after.records.at(-1), {
    seq: 16,
    id: batches[0][0].id,
    erased: Date.parse(receipt!.erased_at),
  });
  assert.ok(!after.records.some((record) => record.id === batches[0][0].id && "sealed" in record));
});

Deno.test("BlindLog: a namespace's erase stopped after its head was marked goes on when run again", async () => {
  using kv = await Deno.openKv(":memory:");
  const log = await openLog(kv);
  const kept = entries(3, 10);
  await log.append("0xowner", "ns", kept);
  // Stopped right after marking the head: what a crash there leaves.
  for await (const entry of kv.list<{ erasing?: true }>({ prefix: [] })) {
    if (entry.key.at(-1) === "head") await kv.set(entry.key, { ...entry.value, erasing: true });
  }
  await assert.rejects(log.append("0xowner", "ns", entries(1, 10)), /not operator-blind/);
  assert.equal(await log.head("0xowner", "ns", "ab"), null);
  const receipts = await log.eraseNamespace("0xowner", "ns");
  assert.deepEqual(receipts.map((r) => r.memory_id), kept.map(({ id }) => id));
  let left = 0;
  for await (const _ of kv.list({ prefix: [] })) left++;
  assert.equal(left, 0);
});
