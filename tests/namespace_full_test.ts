/**
 * A namespace whose lexical index fills its share of the relayer's budget (half of `lexiconBytes`,
 * from `SVC_LEXICON_MEMORY_MB`): remember, bulk and manual remember into it answer 507
 * `namespace_full` and store nothing; other namespaces, recall in it and erase go on, and erasing
 * makes room.
 */
import assert from "node:assert/strict";
import { startTestRelayer } from "./fixtures.ts";

Deno.test("a namespace that fills the lexical budget takes no new memory until some are erased", async () => {
  await using t = await startTestRelayer({ lexiconBytes: 60_000 });
  const alice = await t.newCaller();
  const ids: string[] = [];
  let refused: Response | undefined;
  for (let i = 0; i < 40 && !refused; i++) {
    const words = Array.from({ length: 30 }, (_, k) => `w${i}x${k}`).join(" ");
    const res = await t.signed(alice, "POST", "/api/remember", { text: `note ${i}: ${words}` });
    if (res.status !== 202) refused = res;
    else {
      const { job_id } = await res.json();
      await t.settle(alice, [job_id]);
      ids.push(job_id);
    }
  }
  assert.ok(refused, "the namespace filled up");
  assert.equal(refused.status, 507);
  assert.equal((await refused.json()).reason, "namespace_full");
  const bulk = await t.signed(alice, "POST", "/api/remember/bulk", {
    items: [{ text: "one more note" }],
  });
  assert.equal(bulk.status, 507);
  await bulk.body?.cancel();
  const manual = await t.signed(alice, "POST", "/api/remember/manual", {
    encrypted_data: "YQ==",
    vector: Array(t.vectors.dimensions).fill(0.1),
  });
  assert.equal(manual.status, 507);
  await manual.body?.cancel();
  const listed = await (await t.signed(alice, "GET", "/api/memories?limit=100")).json();
  assert.equal(listed.memories.length, ids.length, "nothing refused was stored");

  const elsewhere = await t.signed(alice, "POST", "/api/remember", {
    text: "I keep bees",
    namespace: "garden",
  });
  assert.equal(elsewhere.status, 202);
  await t.settle(alice, [(await elsewhere.json()).job_id]);
  const recalled = await t.signed(alice, "POST", "/api/recall", { query: "note 3 w3x1" });
  assert.match((await recalled.json()).results[0].text, /^note 3:/);

  for (const id of ids.slice(0, ids.length / 2)) {
    assert.equal((await t.signed(alice, "DELETE", `/api/memories/${id}`)).status, 200);
  }
  const room = await t.signed(alice, "POST", "/api/remember", { text: "a note after erasing" });
  assert.equal(room.status, 202);
  await room.body?.cancel();
});
