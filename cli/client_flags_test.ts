import assert from "node:assert/strict";
import { ANSWER_TIMEOUT_MS, clientOptions } from "./client_flags.ts";

Deno.test("client commands wait a bounded time for the relayer's answer to begin", async () => {
  const env: Record<string, string> = {
    SVC_DELEGATE_KEY: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
  };
  const options = await clientOptions({}, (name) => env[name]);
  assert.equal(options.answerTimeoutMs, ANSWER_TIMEOUT_MS);
  // Past an analyze's two model calls, each of which a relayer waits up to 60 s for.
  assert.ok(ANSWER_TIMEOUT_MS > 2 * 60_000);
});
