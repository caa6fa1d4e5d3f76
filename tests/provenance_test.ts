/**
 * Provenance: every memory records which key stored it (address and label at the time) and
 * when; list, get and recall return it as `remembered_by`, and nothing of it is readable in the
 * index or the job store.
 */
import assert from "node:assert/strict";
import { addressOf } from "@svc/util/keys";
import type { Caller } from "./fixtures.ts";
import { jsonOf as json, rememberAll as remember, startTestRelayer } from "./fixtures.ts";

const by = (caller: Caller, label: string) => ({
  address: addressOf(caller.key.publicKey),
  label,
});

/** `remembered_by` without its time, which is checked apart. */
function who(memory: { remembered_by: { address: string; label: string; at: string } | null }) {
  assert.ok(memory.remembered_by, "remembered_by is set");
  const { address, label } = memory.remembered_by;
  return { address, label };
}

Deno.test("list, get and recall name the key that stored a memory, and when", async () => {
  await using t = await startTestRelayer();
  const laptop = await t.newCaller({ label: "laptop agent" });
  const before = Date.now();
  const [id] = await remember(t, laptop, [{ text: "I am vegetarian" }]);
  const got = await json(await t.signed(laptop, "GET", `/api/memories/${id}`));
  assert.deepEqual(who(got), by(laptop, "laptop agent"));
  assert.equal(got.remembered_by.at, got.created_at);
  assert.ok(Date.parse(got.remembered_by.at) >= before - 1000);

  const listed = await json(await t.signed(laptop, "GET", "/api/memories"));
  assert.deepEqual(who(listed.memories[0]), by(laptop, "laptop agent"));
  const recalled = await json(
    await t.signed(laptop, "POST", "/api/recall", { query: "vegetarian" }),
  );
  assert.equal(recalled.results[0].id, id);
  assert.deepEqual(who(recalled.results[0]), by(laptop, "laptop agent"));
  assert.equal(recalled.results[0].remembered_by.at, got.created_at);
});

Deno.test("bulk, manual and analyze record their key; an update records the key that updated", async () => {
  await using t = await startTestRelayer();
  const first = await t.newCaller({ label: "first" });
  const second = await t.addKey(first, { label: "second" });

  const bulk = await json(
    await t.signed(first, "POST", "/api/remember/bulk", {
      items: [{ text: "I keep bees" }, { text: "I cycle to work", namespace: "work" }],
    }),
    202,
  );
  await t.settle(first, bulk.job_ids);
  for (const id of bulk.job_ids) {
    assert.deepEqual(who(await json(await t.signed(first, "GET", `/api/memories/${id}`))), {
      ...by(first, "first"),
    });
  }

  const updated = await json(
    await t.signed(second, "PUT", `/api/memories/${bulk.job_ids[0]}`, { text: "I keep wasps" }),
    202,
  );
  await t.settle(second, [updated.job_id]);
  const version = await json(await t.signed(first, "GET", `/api/memories/${updated.job_id}`));
  assert.equal(version.text, "I keep wasps");
  assert.deepEqual(who(version), by(second, "second"));
  assert.equal(version.remembered_by.at, version.updated_at);

  const dimensions = t.vectors.dimensions;
  const vector = Array.from({ length: dimensions }, (_, i) => (i === 3 ? 1 : 0));
  const manual = await json(
    await t.signed(second, "POST", "/api/remember/manual", {
      encrypted_data: btoa("client ciphertext"),
      vector,
    }),
  );
  const stored = await json(await t.signed(first, "GET", `/api/memories/${manual.id}`));
  assert.equal(stored.text, null);
  assert.deepEqual(who(stored), by(second, "second"));

  const analysis = await json(
    await t.signed(first, "POST", "/api/analyze", {
      text: "I live in Lisbon. My sister is a nurse.",
      namespace: "facts",
    }),
    202,
  );
  assert.ok(analysis.job_ids.length > 0);
  await t.settle(first, analysis.job_ids);
  for (const id of analysis.job_ids) {
    assert.deepEqual(
      who(await json(await t.signed(first, "GET", `/api/memories/${id}`))),
      by(first, "first"),
    );
  }
});

Deno.test("a duplicate remember answers the original's provenance, not the caller's", async () => {
  await using t = await startTestRelayer();
  const first = await t.newCaller({ label: "first" });
  const second = await t.addKey(first, { label: "second" });
  await remember(t, first, [{ text: "I am vegetarian" }]);
  const answer = await json(
    await t.signed(second, "POST", "/api/remember", { text: "I am vegetarian" }),
  );
  assert.equal(answer.status, "duplicate");
  assert.deepEqual(who(answer.memory), by(first, "first"));
});

Deno.test("the label is sealed: neither the index rows nor the job store hold it in clear", async () => {
  await using t = await startTestRelayer();
  const label = "Agent-Label-Zebra-42";
  const caller = await t.newCaller({ label });
  const [id] = await remember(t, caller, [{ text: "I keep my keys in the hall", tags: ["home"] }]);
  assert.deepEqual(
    who(await json(await t.signed(caller, "GET", `/api/memories/${id}`))),
    by(caller, label),
  );
  const rows = await t.vectors.terms(caller.owner, "default");
  assert.equal(rows.length, 1);
  const index = JSON.stringify(rows);
  assert.ok(!index.includes(label), "the index row holds the label in clear");
  assert.ok(!index.includes(addressOf(caller.key.publicKey)), "the index row holds the address");
  for await (const entry of t.kv.list({ prefix: [] })) {
    const raw = JSON.stringify(entry.key) + new TextDecoder().decode(
      entry.value instanceof Uint8Array ? entry.value : new TextEncoder().encode(
        JSON.stringify(entry.value),
      ),
    );
    assert.ok(!raw.includes(label), `KV key ${JSON.stringify(entry.key)} holds the label`);
  }
});

Deno.test("a queued job's payload does not hold the label in clear", async () => {
  await using t = await startTestRelayer({ processJobs: false });
  const label = "Agent-Label-Zebra-43";
  const caller = await t.newCaller({ label });
  await json(await t.signed(caller, "POST", "/api/remember", { text: "I like figs" }), 202);
  let payloads = 0;
  for await (const entry of t.kv.list({ prefix: [] })) {
    if (entry.key[0] === "job_payload") payloads++;
    const value = entry.value instanceof Uint8Array
      ? new TextDecoder().decode(entry.value)
      : JSON.stringify(entry.value);
    assert.ok(!value.includes(label), `KV key ${JSON.stringify(entry.key)} holds the label`);
  }
  assert.ok(payloads > 0, "the job's payload waits in KV");
});

Deno.test("memories stored without provenance answer remembered_by null", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const [job] = await t.relayer.service.remember(caller.owner, [
    { text: "I like tea", namespace: "default" },
  ]);
  await t.settle(caller, [job.job_id]);
  const got = await json(await t.signed(caller, "GET", `/api/memories/${job.job_id}`));
  assert.equal(got.text, "I like tea");
  assert.equal(got.remembered_by, null);
});
