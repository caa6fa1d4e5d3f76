/** The operator CLI with an injected `fetch`: its commands reach an in-process relayer, no port. */
import assert from "node:assert/strict";
import { BASE, startTestRelayer } from "./fixtures.ts";
import { svcInProcess } from "./cli_fixtures.ts";

Deno.test("CLI: client commands send their requests through the fetch they are given", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const sent: string[] = [];
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    sent.push(`${request.method} ${new URL(request.url).pathname}`);
    return t.relayer.handler(request);
  };
  const env = {
    SVC_SERVER_URL: BASE,
    SVC_DELEGATE_KEY: alice.key.privateKey,
    SVC_ACCOUNT_ID: alice.accountId,
    SVC_DATA_DIR: "/nonexistent-svc-cli-test",
  };
  const run = (args: string[]) => svcInProcess(args, env, undefined, undefined, fetch);
  const saved = await run(["remember", "I keep bees", "--wait", "--json"]);
  assert.equal(saved.code, 0, saved.stderr);
  const found = await run(["recall", "bees", "--json"]);
  assert.equal(found.code, 0, found.stderr);
  assert.equal(JSON.parse(found.stdout).results[0].text, "I keep bees");
  assert.ok(sent.includes("POST /api/remember") && sent.includes("POST /api/recall"), `${sent}`);
});
