/**
 * Conformance suites: every implementation of an interface must pass its suite. Each takes a
 * factory for a fresh instance and registers `Deno.test`s under the given name; each checks,
 * with {@link refusesAborted}, that a call with an already aborted signal is refused with the
 * signal's reason. The suites are exported by the testing module (`mod.ts`), one file each.
 */
import assert from "node:assert/strict";

/** Asserts that `call`, given an already aborted signal, rejects with the signal's reason. */
export async function refusesAborted(
  call: (options: { signal: AbortSignal }) => Promise<unknown>,
  what: string,
) {
  const signal = AbortSignal.abort();
  await assert.rejects(() => call({ signal }), (error) => error === signal.reason, what);
}
