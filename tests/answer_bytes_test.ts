/**
 * One answer holds at most `MAX_ANSWER_TEXT_BYTES` of memory texts: a listing's page ends early
 * (its cursor goes on), a recall answers its best results up to it, and an export's stream holds
 * every memory in chunks no larger. So large memories cannot make one request hold gigabytes.
 */
import assert from "node:assert/strict";
import { MAX_ANSWER_TEXT_BYTES, MAX_TEXT_BYTES } from "../src/text_limits.ts";
import { jsonOf as json, rememberAll, startTestRelayer } from "./fixtures.ts";

/** Six memories of almost `MAX_TEXT_BYTES` each: more than one answer holds. */
const LARGE = Array.from({ length: 6 }, (_, i) => ({
  text: `Large note ${i} about the garden shed. ` + "x".repeat(MAX_TEXT_BYTES - 100),
}));

Deno.test("a page, a recall and an export's chunks hold at most MAX_ANSWER_TEXT_BYTES of texts", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const ids = await rememberAll(t, alice, LARGE);
  const fit = Math.floor(MAX_ANSWER_TEXT_BYTES / (MAX_TEXT_BYTES - 60));
  assert.ok(fit >= 1 && fit < LARGE.length);

  // The listing: pages of `fit` memories, the cursor going on to all six.
  const listed: string[] = [];
  let cursor = "";
  do {
    const page = await json(
      await t.signed(alice, "GET", `/api/memories?limit=500${cursor && `&cursor=${cursor}`}`),
    );
    assert.ok(page.memories.length <= fit, `a page of ${page.memories.length}`);
    listed.push(...page.memories.map((m: { id: string }) => m.id));
    cursor = page.next_cursor ?? "";
  } while (cursor);
  assert.deepEqual(listed.sort(), [...ids].sort());

  // A recall: its best results up to the bytes one answer holds.
  const recalled = await json(
    await t.signed(alice, "POST", "/api/recall", { query: "garden shed", limit: 10, min_score: 0 }),
  );
  assert.equal(recalled.results.length, fit);

  // An export: every memory, in chunks of at most the bytes of one answer (and their JSON).
  const answer = await t.signed(alice, "GET", "/api/export");
  const reader = answer.body!.getReader();
  const chunks: number[] = [];
  const lines: string[] = [];
  const decoder = new TextDecoder();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    chunks.push(read.value.byteLength);
    lines.push(decoder.decode(read.value));
  }
  assert.equal(lines.join("").trim().split("\n").length, LARGE.length);
  assert.ok(chunks.every((bytes) => bytes <= MAX_ANSWER_TEXT_BYTES + 4096));
});
