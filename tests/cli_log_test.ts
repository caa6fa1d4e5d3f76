/**
 * `svc log` (cli/svc.ts run in-process) against a relayer on a loopback port: a table of the
 * access log newest first, its filters, `--json`, and its signer: the owner key saved in the
 * data directory for `--account`, else `SVC_DELEGATE_KEY`.
 */
import assert from "node:assert/strict";
import { addressOf, generateKeyPair } from "@svc/util/keys";
import { logQuery } from "../cli/svc_log.ts";
import { pastTime, UsageError } from "../cli/client_flags.ts";
import { SvcClient } from "../src/client/mod.ts";
import type { Caller } from "./fixtures.ts";
import { startMcpStack } from "./mcp_fixtures.ts";
import { svcInProcess } from "./cli_fixtures.ts";

/** Remembers `text` as `caller` over HTTP and waits until it is stored; its memory id. */
async function remember(url: string, caller: Caller, text: string, namespace?: string) {
  const client = await SvcClient.create({
    baseUrl: url,
    privateKey: caller.key.privateKey,
    accountId: caller.accountId,
  });
  const answer = await client.remember(text, { namespace });
  if (answer.status === "duplicate") throw new Error("unexpected duplicate");
  assert.equal((await client.waitForJob(answer.job_id)).status, "done");
  return { id: answer.job_id, client };
}

function svc(args: string[], env: Record<string, string>) {
  return svcInProcess(args, env);
}

Deno.test("CLI: svc log prints the access log as a table, filtered, or as JSON", async () => {
  await using stack = await startMcpStack();
  const agent = await stack.test.newCaller({ label: "laptop" });
  const { id: bees, client } = await remember(stack.url, agent, "I keep bees");
  await client.get(bees);
  const auditor = await stack.test.addKey(agent, { scope: { operations: ["audit"] } });
  const env = {
    SVC_SERVER_URL: stack.url,
    SVC_DELEGATE_KEY: auditor.key.privateKey,
    SVC_ACCOUNT_ID: auditor.accountId,
    SVC_DATA_DIR: "/nonexistent-svc-cli-test",
  };

  const table = await svc(["log"], env);
  assert.equal(table.code, 0, table.stderr);
  const lines = table.stdout.trim().split("\n");
  assert.match(lines[0], /^TIME\s+OP\s+KEY\s+NAMESPACE\s+MEMORIES\s+CLIENT$/);
  const address = addressOf(agent.key.publicKey);
  const key = `laptop \\(${address.slice(0, 6)}…${address.slice(-4)}\\)`;
  assert.match(
    lines[1],
    new RegExp(
      `^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ\\s+get\\s+${key}\\s+default\\s+1\\s+127\\.0\\.0\\.1$`,
    ),
  );
  assert.match(lines[2], /\sremember\s/);
  assert.equal(lines.length, 3);

  const filtered = await svc(["log", "--op", "remember", "--since", "1h", "--json"], env);
  assert.equal(filtered.code, 0, filtered.stderr);
  const page = JSON.parse(filtered.stdout);
  assert.deepEqual(page.entries.map((e: { memory_ids: string[] }) => e.memory_ids), [[bees]]);
  assert.equal(page.next_cursor, null);

  const byKey = await svc(["log", "--key", addressOf(auditor.key.publicKey)], env);
  assert.equal(byKey.stdout.trim(), "No access log entries");

  const paged = await svc(["log", "--limit", "1"], env);
  assert.match(paged.stdout, /\nnext page: --cursor \S+\n$/);

  const refused = await svc(["log"], { ...env, SVC_DELEGATE_KEY: agent.key.privateKey });
  assert.equal(refused.code, 0, "a key without a scope may read the log");
  const reader = await stack.test.addKey(agent, { scope: { operations: ["read"] } });
  const forbidden = await svc(["log"], { ...env, SVC_DELEGATE_KEY: reader.key.privateKey });
  assert.equal(forbidden.code, 1);
  assert.match(forbidden.stderr, /lacks the "audit" scope/);

  const usage = await svc(["log", "--op", "peek"], env);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /--op must be one of remember, recall/);
});

Deno.test("CLI: svc log signs with the owner key saved in the data directory", async () => {
  await using stack = await startMcpStack();
  const dataDir = await Deno.makeTempDir();
  try {
    const created = await svc(["account", "create", "--json"], { SVC_DATA_DIR: dataDir });
    assert.equal(created.code, 0, created.stderr);
    const { accountId, owner } = JSON.parse(created.stdout);
    // The in-process relayer's directory holds the same account, with one delegate key.
    const delegate = await generateKeyPair();
    stack.test.directory.add({ accountId, owner, active: true, label: "phone" }, [
      delegate.publicKey,
    ]);
    const caller = { key: delegate, owner, accountId, ownerKey: delegate };
    await remember(stack.url, caller, "I keep bees", "home");
    const run = await svc(["log", "--account", accountId, "--namespace", "home", "--json"], {
      SVC_SERVER_URL: stack.url,
      SVC_DATA_DIR: dataDir,
    });
    assert.equal(run.code, 0, run.stderr);
    const { entries } = JSON.parse(run.stdout);
    assert.deepEqual(
      entries.map((e: { op: string; key: { label: string } }) => [e.op, e.key.label]),
      [
        ["remember", "phone"],
      ],
    );
    // The account id in capitals finds the same owner key.
    const upper = await svc(["log", "--account", accountId.toUpperCase().replace("0X", "0x")], {
      SVC_SERVER_URL: stack.url,
      SVC_DATA_DIR: dataDir,
    });
    assert.equal(upper.code, 0, upper.stderr);
    // SVC_ACCOUNT_ID without a delegate key finds it as --account does.
    const byEnv = await svc(["log", "--namespace", "home", "--json"], {
      SVC_SERVER_URL: stack.url,
      SVC_DATA_DIR: dataDir,
      SVC_ACCOUNT_ID: accountId,
    });
    assert.equal(byEnv.code, 0, byEnv.stderr);
    assert.equal(JSON.parse(byEnv.stdout).entries.length, 1);
    // With a delegate key beside it, the delegate key reads: the data directory is not opened
    // (marked as moved to PostgreSQL, it would refuse the owner key's lookup).
    await Deno.writeTextFile(`${dataDir}/moved-to-postgres.json`, "{}");
    const byDelegate = await svc(["log"], {
      SVC_SERVER_URL: stack.url,
      SVC_DATA_DIR: dataDir,
      SVC_ACCOUNT_ID: accountId,
      SVC_DELEGATE_KEY: delegate.privateKey,
    });
    assert.equal(byDelegate.code, 0, byDelegate.stderr);
    await Deno.remove(`${dataDir}/moved-to-postgres.json`);
    // Without an account, a delegate key is needed; log's --key is a filter, not a key.
    const keyless = await svc(["log"], { SVC_SERVER_URL: stack.url });
    assert.equal(keyless.stderr.split("\n")[0], "svc: missing SVC_DELEGATE_KEY");
    // Another directory has no owner key for it: the message says what to give instead.
    const elsewhere = await svc(["log", "--account", accountId], {
      SVC_SERVER_URL: stack.url,
      SVC_DATA_DIR: `${dataDir}/other`,
    });
    assert.equal(elsewhere.code, 2);
    assert.match(
      elsewhere.stderr,
      /missing SVC_DELEGATE_KEY: the owner key of account 0x[0-9a-f]{64} is not in .*other\/owner_keys nor SVC_OWNER_KEY, so the log is read with a delegate key that has the audit scope/,
    );
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("svc log's times: a duration back from now, or ISO 8601", () => {
  const now = Date.UTC(2026, 6, 8, 12);
  assert.equal(pastTime("7d", "--since", now), "2026-07-01T12:00:00.000Z");
  assert.equal(pastTime("90m", "--since", now), "2026-07-08T10:30:00.000Z");
  assert.equal(pastTime("2026-07-01T00:00:00Z", "--until", now), "2026-07-01T00:00:00.000Z");
  assert.throws(() => pastTime("last week", "--since", now), UsageError);
  assert.throws(() => pastTime("2026-02-30", "--since", now), UsageError, "no such day");
  assert.throws(() => pastTime("999999999w", "--since", now), UsageError);
  assert.throws(() => logQuery({ key: "laptop" }), /--key must be a key's address \(0x[^;]*$/);
  // A private key given as elsewhere: what --key means here, and where the signing key goes.
  assert.throws(
    () => logQuery({ key: "ab".repeat(32) }),
    /--key must be a key's address \(0x and 64 hex characters\) as `svc key list` shows it, not a public or private key; in log, --key picks whose entries to show, and the key that reads the log is SVC_DELEGATE_KEY/,
  );
  assert.throws(() => logQuery({ memory: "42" }), /--memory must be a lowercase UUID/);
  assert.throws(() => logQuery({ limit: "0" }), /--limit must be a whole number from 1 to 500/);
  assert.throws(() => logQuery({ limit: "501" }), /--limit must be a whole number from 1 to 500/);
  assert.deepEqual(logQuery({ op: "recall", limit: "5" }, now), {
    key: undefined,
    op: "recall",
    namespace: undefined,
    memory: undefined,
    since: undefined,
    until: undefined,
    limit: 5,
    cursor: undefined,
  });
});
