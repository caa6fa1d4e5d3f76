import assert from "node:assert/strict";
import { withTimeout } from "./with_timeout.ts";

Deno.test("withTimeout: the task's value, with its timer cleared", async () => {
  let given: AbortSignal | undefined;
  const value = await withTimeout(60_000, "Work", (signal) => {
    given = signal;
    return Promise.resolve(42);
  });
  assert.equal(value, 42);
  assert.equal(given!.aborted, false);
});

Deno.test("withTimeout: past the time, rejects with what timed out and aborts the task's signal", async () => {
  let given: AbortSignal | undefined;
  const never = new Promise<never>(() => {});
  await assert.rejects(
    withTimeout(5, "Blob upload", (signal) => {
      given = signal;
      return never;
    }),
    { message: "Blob upload timed out after 5 ms" },
  );
  assert.equal(given!.aborted, true);
  assert.equal((given!.reason as Error).message, "Blob upload timed out after 5 ms");
});

Deno.test("withTimeout: the step's abort reaches the task, before or during the call", async () => {
  const reason = new Error("lease lost");
  const early = new AbortController();
  early.abort(reason);
  const seen = await withTimeout(
    60_000,
    "Work",
    (signal) => Promise.resolve(signal.reason),
    early.signal,
  );
  assert.equal(seen, reason);

  const during = new AbortController();
  const stopped = withTimeout(
    60_000,
    "Work",
    (signal) =>
      new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
    during.signal,
  );
  during.abort(reason);
  await assert.rejects(stopped, (error) => error === reason);
});

Deno.test("withTimeout: a task that throws at once rejects, with its timer cleared", async () => {
  await assert.rejects(
    withTimeout(60_000, "Work", () => {
      throw new RangeError("bad input");
    }),
    RangeError,
  );
});
