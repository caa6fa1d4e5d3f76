import assert from "node:assert/strict";
import { SvcError } from "../errors.ts";
import { type AfterFailure, afterFailure, OUTAGE_BUDGET_MS } from "./attempts.ts";

Deno.test("afterFailure: an outage is retried uncounted for a day, unless landing; the rest counts or fails", () => {
  const down = new SvcError("backend_unavailable", "Cannot store the blob: Walrus is unavailable");
  const unusable = new SvcError("backend_unavailable", "Ollama returned a vector of only zeros", {
    details: { reason: "invalid_embedding" },
  });
  const slow = new Error("Embedding timed out after 30000 ms");
  const internal = new Error("boom");
  const uncounted = (delayMs: number): AfterFailure => ({ fail: false, delayMs, counted: false });
  const counted = (delayMs: number): AfterFailure => ({ fail: false, delayMs, counted: true });
  const failed: AfterFailure = { fail: true };
  // [error, attempts counted, maxAttempts, the job's age, outcome]
  const cases: [unknown, number, number, number, AfterFailure][] = [
    // An outage: a quarter of the job's age later, 1 s to 1 min, whatever its attempts.
    [down, 1, 5, 2_000, uncounted(1_000)],
    [down, 5, 5, 60_000, uncounted(15_000)],
    [down, 9, 5, 3_600_000, uncounted(60_000)],
    // Past a day, it counts like the rest.
    [down, 2, 5, OUTAGE_BUDGET_MS, counted(2_000)],
    [down, 5, 5, OUTAGE_BUDGET_MS, failed],
    // An unusable answer, a time limit, an internal error: counted, backing off to 1 min.
    [unusable, 1, 5, 1_000, counted(1_000)],
    [slow, 3, 5, 1_000, counted(4_000)],
    [internal, 4, 9, 1_000, counted(8_000)],
    [internal, 8, 9, 1_000, counted(60_000)],
    [internal, 5, 5, 1_000, failed],
    // A client's or the input's error: failed at once.
    [new SvcError("bad_request", "Cannot index the memory: refused"), 1, 5, 1_000, failed],
    [new SvcError("conflict", "Cannot update memory m: it was erased meanwhile"), 1, 5, 0, failed],
  ];
  // Landing an indexed memory (erasing what an update replaces): every failure counts.
  const landing: [unknown, number, number, number, AfterFailure][] = [
    [down, 1, 5, 2_000, counted(1_000)],
    [down, 4, 5, 60_000, counted(8_000)],
    [down, 5, 5, 60_000, failed],
    [internal, 5, 5, 1_000, failed],
  ];
  for (const [error, attempts, max, age, outcome] of landing) {
    assert.deepEqual(afterFailure(error, attempts, max, age, "land"), outcome, `land: ${error}`);
  }
  for (const [error, attempts, max, age, outcome] of cases) {
    assert.deepEqual(
      afterFailure(error, attempts, max, age),
      outcome,
      `${error}, ${attempts}, ${age}`,
    );
  }
});
