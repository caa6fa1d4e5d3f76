/**
 * The operator CLI's memory commands (`cli/svc.ts` run in-process) against a relayer on a
 * loopback port: list, get, forget, update, remember's tags and expiry; `--json` prints one
 * JSON object, human output otherwise.
 */
import assert from "node:assert/strict";
import { SvcClient, verifyReceipt } from "../src/client/mod.ts";
import { generateKeyPair } from "@svc/util/keys";
import { SvcError } from "../src/errors.ts";
import type { Caller } from "./fixtures.ts";
import { startMcpStack } from "./mcp_fixtures.ts";
import { freePort, ROOT } from "./relayer_process.ts";
import { asksJson, type Run, svcInProcess } from "./cli_fixtures.ts";
import { CredentialsFile } from "../cli/svc_mcp/credentials.ts";

/**
 * Runs `svc <args>` as `who` against `url`, with `stdin` piped when given; `env` says where the
 * relayer is (`SVC_SERVER_URL: url` unless given).
 */
async function svc(
  url: string,
  who: Caller,
  args: string[],
  stdin?: string | Uint8Array,
  env: Record<string, string> = { SVC_SERVER_URL: url },
): Promise<Run> {
  const run = await svcInProcess(
    args,
    {
      ...env,
      SVC_DELEGATE_KEY: who.key.privateKey,
      SVC_ACCOUNT_ID: who.accountId,
      SVC_DATA_DIR: "/nonexistent-svc-cli-test",
    },
    ROOT,
    stdin,
  );
  if (asksJson(args)) {
    assert.equal(run.stdout.trim().split("\n").length, 1, `one JSON line: ${run.stdout}`);
    run.json = JSON.parse(run.stdout);
  }
  return run;
}

const ID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

Deno.test("CLI: remember with tags and ttl, list, get, update (text or stdin)", async () => {
  await using stack = await startMcpStack();
  const who = await stack.test.newCaller();
  const run = (args: string[], stdin?: string) => svc(stack.url, who, args, stdin);

  const saved = await run([
    "remember",
    "I am vegetarian",
    "--namespace",
    "food",
    "--tag",
    "diet",
    "--tag",
    "health",
    "--ttl",
    "30d",
    "--wait",
    "--json",
  ]);
  assert.equal(saved.code, 0, saved.stderr);
  assert.equal(saved.json.status, "done");
  const id = saved.json.job_id as string;
  const coffee = await run([
    "remember",
    "I drink my coffee black",
    "--namespace",
    "food",
    "--wait",
  ]);
  const coffeeId = coffee.stdout.match(new RegExp(`^job (${ID}): done\\n$`))![1];

  // The same text again (for no longer: one that expires sooner is stored anew).
  const duplicate = await run([
    "remember",
    "i drink  MY coffee BLACK",
    "--namespace",
    "food",
    "--json",
  ]);
  assert.deepEqual([duplicate.json.status, duplicate.json.duplicate_of], ["duplicate", coffeeId]);
  const duplicateText = await run(["remember", "I drink my coffee black", "--namespace", "food"]);
  assert.equal(duplicateText.stdout, `already remembered as ${coffeeId}; nothing new was stored\n`);
  const shorter = ["remember", "i am  VEGETARIAN", "--namespace", "food", "--ttl", "1d", "--json"];
  assert.equal((await run(shorter)).json.duplicate_of, id);

  const listed = await run(["list", "--namespace", "food", "--json"]);
  const memories = listed.json.memories as {
    id: string;
    tags: string[];
    created_at: string;
    expires_at: string | null;
  }[];
  assert.equal(memories.length, 2);
  assert.deepEqual(memories[1].tags, ["diet", "health"]);
  const ttl = Date.parse(memories[1].expires_at!) - Date.parse(memories[1].created_at);
  assert.ok(Math.abs(ttl - 30 * 86400_000) < 60_000, `30 days: ${ttl} ms`);

  const human = await run(["list", "--namespace", "food", "--limit", "1"]);
  const [line, next] = human.stdout.trimEnd().split("\n");
  assert.match(line, new RegExp(`^${ID}  \\S+Z  I drink my coffee black$`));
  const cursor = next.match(/^next page: --cursor (\S+)$/)![1];
  const second = await run(["list", "--namespace", "food", "--limit", "1", "--cursor", cursor]);
  assert.match(second.stdout, new RegExp(`^${id}  \\S+Z  \\[diet, health\\]  I am vegetarian\\n$`));
  const tagged = await run(["list", "--namespace", "food", "--tag", "diet", "--json"]);
  assert.deepEqual((tagged.json.memories as { id: string }[]).map((m) => m.id), [id]);
  const recent = await run(["list", "--namespace", "food", "--since", "1h", "--json"]);
  assert.equal((recent.json.memories as unknown[]).length, 2);
  const later = await run(["list", "--namespace", "food", "--until", "1h", "--json"]);
  assert.deepEqual(later.json.memories, []);
  assert.equal((await run(["list", "--namespace", "empty"])).stdout, "No memories\n");

  const got = await run(["get", id]);
  assert.match(
    got.stdout,
    new RegExp(
      `^id         ${id}\\nnamespace  food\\ncreated    \\S+\\nupdated    \\S+\\n` +
        "expires    \\S+\\ntags       diet, health\\nstored by  .+ \\(0x[0-9a-f]{64}\\)\\n" +
        "\\nI am vegetarian\\n$",
    ),
  );
  assert.equal((await run(["get", id, "--json"])).json.text, "I am vegetarian");

  const recalled = await run(["recall", "vegetarian", "--namespace", "food", "--tag", "diet"]);
  assert.match(
    recalled.stdout,
    new RegExp(
      `^1\\. \\[score [01]\\.\\d\\d\\] I am vegetarian \\(id ${id}; tags: diet, health\\)\\n$`,
    ),
  );

  const updated = await run(["update", id, "--text", "I am vegan", "--wait", "--json"]);
  assert.equal(updated.code, 0, updated.stderr);
  assert.deepEqual([updated.json.status, updated.json.supersedes], ["done", id]);
  const vegan = updated.json.job_id as string;
  const piped = await run(
    ["update", vegan, "--tag", "vegan", "--expires-at", "2030-01-01T00:00:00Z", "--wait"],
    "I am vegan since 2020\n",
  );
  assert.match(
    piped.stdout,
    new RegExp(`^job (${ID}): done \\(a new version replacing ${vegan}\\)\\n$`),
  );
  const latest = piped.stdout.match(new RegExp(`^job (${ID})`))![1];
  const now = await run(["get", latest, "--json"]);
  assert.deepEqual(
    [now.json.text, now.json.tags, now.json.supersedes, now.json.expires_at],
    ["I am vegan since 2020", ["vegan"], vegan, "2030-01-01T00:00:00.000Z"],
  );
  // A corrected memory is listed (newest first) with the time of its correction.
  const relisted = await run(["list", "--namespace", "food", "--limit", "1"]);
  assert.equal(
    relisted.stdout.split("\n")[0],
    `${latest}  ${now.json.updated_at} (corrected)  [vegan]  I am vegan since 2020`,
  );
  assert.notEqual(now.json.updated_at, now.json.created_at);
  // Bytes that are not UTF-8 are refused, not stored with replacement characters.
  const garbled = await svc(stack.url, who, ["update", latest], new Uint8Array([0xff, 0xfe, 0x61]));
  assert.equal(garbled.code, 2);
  assert.match(garbled.stderr, /^svc: the new text on standard input is not UTF-8\n/);
  const gone = await run(["get", id, "--json"]);
  assert.equal(gone.code, 1);
  assert.equal(gone.json.code, "not_found");
});

Deno.test("CLI: list and get tell a client-encrypted memory from one whose blob is lost", async () => {
  // No texts kept in memory: a read goes to the blob store.
  await using stack = await startMcpStack({ relayer: { textCacheBytes: 0 } });
  const who = await stack.test.newCaller();
  const client = await SvcClient.create({
    baseUrl: stack.url,
    privateKey: who.key.privateKey,
    accountId: who.accountId,
  });
  const vector = Array(stack.test.vectors.dimensions).fill(0.5);
  const manual = await client.rememberManual(new Uint8Array([1, 2, 3]), vector);
  const saved = await client.remember("My locker code is 4417");
  if (saved.status === "duplicate") throw new Error("nothing was stored before");
  await client.waitForJob(saved.job_id);
  const [lost] = (await stack.test.blobs.list(who.owner, "default"))
    .filter(({ meta }) => meta.memoryId === saved.job_id);
  await stack.test.blobs.delete(lost.blobId);
  const run = (args: string[]) => svc(stack.url, who, args);

  const listed = await run(["list"]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(
    listed.stdout,
    new RegExp(`^${saved.job_id} .* \\(unreadable: its stored copy`, "m"),
  );
  assert.match(listed.stdout, new RegExp(`^${manual.id} .* \\(encrypted by the client`, "m"));
  const ofLost = await run(["get", saved.job_id]);
  assert.match(
    ofLost.stdout,
    /\n\(unreadable: its stored copy is missing or its key was erased\)\n$/,
  );
  const ofManual = await run(["get", manual.id]);
  assert.match(ofManual.stdout, /\n\(encrypted by the client that stored it\)\n$/);
});

Deno.test("CLI: whoami shows the key's account, scope and expiry, and the relayer's embedder", async () => {
  await using stack = await startMcpStack();
  const owner = await stack.test.newCaller();
  const expiresAt = Date.parse("2099-01-01T00:00:00Z");
  const reader = await stack.test.addKey(owner, {
    label: "reader",
    scope: { namespaces: ["work"], operations: ["read"] },
    expiresAt,
  });
  const json = await svc(stack.url, reader, ["whoami", "--json"]);
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(
    [json.json.account_id, json.json.label, json.json.scope, json.json.expires_at],
    [
      owner.accountId,
      "reader",
      { namespaces: ["work"], operations: ["read"] },
      "2099-01-01T00:00:00.000Z",
    ],
  );
  const health = await (await fetch(`${stack.url}/health`)).json();
  const { version, backends: { embedder } } = health;
  assert.match(embedder, /^svc-lexical/);
  assert.deepEqual(json.json.relayer, { url: stack.url, version, embedder });
  // A key that may not read still learns who it is; it sees no operator-blind namespace.
  assert.equal(health.operatorBlind, true);
  const writer = await stack.test.addKey(owner, { scope: { operations: ["write"] } });
  const writing = await svc(stack.url, writer, ["whoami", "--json"]);
  assert.equal(writing.code, 0, writing.stderr);
  assert.deepEqual(writing.json.operator_blind, []);
  const text = await svc(stack.url, reader, ["whoami"]);
  assert.match(text.stdout, new RegExp(`^account ${owner.accountId} \\(owner ${owner.owner}\\)\n`));
  assert.match(
    text.stdout,
    /\nscope {3}operations read; namespaces work; expires 2099-01-01T00:00:00.000Z\n/,
  );
  assert.ok(
    text.stdout.endsWith(`\nrelayer ${stack.url} (version ${version}, embedder ${embedder})\n`),
    text.stdout,
  );
});

Deno.test("CLI: namespaces lists each with its memory count; a bidirectional override in a name is shown", async () => {
  await using stack = await startMcpStack();
  const owner = await stack.test.newCaller();
  const empty = await svc(stack.url, owner, ["namespaces"]);
  assert.equal(empty.code, 0, empty.stderr);
  assert.equal(empty.stdout, "no memories yet\n");
  const client = await SvcClient.create({
    baseUrl: stack.url,
    privateKey: owner.key.privateKey,
    accountId: owner.accountId,
  });
  // A namespace stored before such names were refused where first written (import keeps it).
  const { job_ids } = await client.import([
    { text: "The launch is on Tuesday", namespace: "work" },
    { text: "The budget is 40k", namespace: "work" },
    { text: "I keep bees", namespace: "bees\u202e" },
  ]);
  for (const id of job_ids) await client.waitForJob(id);
  const json = await svc(stack.url, owner, ["namespaces", "--json"]);
  assert.deepEqual(json.json, {
    namespaces: [{ namespace: "bees\u202e", count: 1 }, { namespace: "work", count: 2 }],
  });
  const text = await svc(stack.url, owner, ["namespaces"]);
  assert.equal(text.stdout, "      1  bees\\u202e\n      2  work\n");
});

Deno.test("CLI: remember or update --wait of a job that fails prints its error and exits 1", async () => {
  await using stack = await startMcpStack();
  const who = await stack.test.newCaller();
  const run = (args: string[]) => svc(stack.url, who, args);
  const kept = await run(["remember", "I keep bees", "--wait", "--json"]);
  assert.equal(kept.code, 0, kept.stderr);
  const refusal = "The blob store refuses this blob";
  stack.test.blobs.put = () => Promise.reject(new SvcError("bad_request", refusal));

  const failed = await run(["remember", "I play chess", "--wait"]);
  assert.equal(failed.code, 1, failed.stderr);
  assert.match(failed.stdout, new RegExp(`^job ${ID}: failed: ${refusal}\\n$`));
  const json = await run(["remember", "I play go", "--wait", "--json"]);
  assert.equal(json.code, 1);
  assert.deepEqual([json.json.status, json.json.error], ["failed", refusal]);
  const update = await run([
    "update",
    kept.json.job_id as string,
    "--text",
    "I keep wasps",
    "--wait",
  ]);
  assert.equal(update.code, 1);
  assert.match(
    update.stdout,
    new RegExp(`: failed \\(a new version replacing ${ID}\\): ${refusal}`),
  );
  // Without --wait the job is only accepted: that is a success.
  assert.equal((await run(["remember", "I play bridge"])).code, 0);
});

Deno.test("CLI: without SVC_SERVER_URL, the relayer on this machine's SVC_PORT", async () => {
  await using stack = await startMcpStack();
  const who = await stack.test.newCaller();
  const port = new URL(stack.url).port;
  // An empty SVC_SERVER_URL counts as unset, so a value in the caller's shell cannot leak in.
  const env = { SVC_SERVER_URL: "", SVC_PORT: port };
  const saved = await svc(
    stack.url,
    who,
    ["remember", "I keep bees", "--wait", "--json"],
    undefined,
    env,
  );
  assert.equal(saved.code, 0, saved.stderr);
  const found = await svc(stack.url, who, ["recall", "bees", "--json"], undefined, env);
  assert.equal(found.code, 0, found.stderr);
  assert.deepEqual((found.json.results as { text: string }[]).map((r) => r.text), ["I keep bees"]);
});

Deno.test("CLI: a relayer that cannot be reached is named, with how to start or point to one", async () => {
  await using stack = await startMcpStack();
  const who = await stack.test.newCaller();
  const nowhere = `http://127.0.0.1:${freePort()}`;
  const failed = await svc(nowhere, who, ["recall", "bees"]);
  assert.equal(failed.code, 1);
  assert.match(failed.stderr, new RegExp(`Cannot reach the relayer at ${nowhere}`));
  assert.match(
    failed.stderr,
    /deno task start.*SVC_SERVER_URL \(or a client command.s --relayer\)/s,
  );
  assert.doesNotMatch(failed.stderr, /\n\s+at /, "no stack trace");
});

Deno.test("CLI: a relayer address that is not a URL, or a file that is not there, is a usage error", async () => {
  await using stack = await startMcpStack();
  const who = await stack.test.newCaller();
  for (
    const [args, env, message] of [
      [["recall", "bees", "--relayer", "notaurl"], {}, /^svc: --relayer must be an http\(s\) URL/],
      [["recall", "bees"], { SVC_SERVER_URL: "ftp://x" }, /^svc: SVC_SERVER_URL must be an http/],
      [
        ["recall", "bees", "--relayer", "http://u:s3cret@127.0.0.1:8000"],
        {},
        /^svc: --relayer must not hold a user name or password\n/,
      ],
      ...["http://127.0.0.1:8000/svc/", "http://127.0.0.1:8000?x=1", "http://127.0.0.1:8000?"].map((
        url,
      ) =>
        [
          ["recall", "bees", "--relayer", url],
          {},
          /^svc: --relayer must be the relayer's address alone, without a path, query or fragment/,
        ] as const
      ),
      [["import", "nope.svc"], { SVC_SERVER_URL: stack.url }, /^svc: there is no file nope.svc/],
      [["import", "/tmp"], { SVC_SERVER_URL: stack.url }, /^svc: \/tmp is a folder, not a file/],
      [
        ["recall", "bees"],
        { SVC_SERVER_URL: "", SVC_PORT: "abc" },
        /^svc: SVC_PORT must be a port/,
      ],
      [
        ["export", "-o", "/nonexistent-svc-folder/x.svc"],
        { SVC_SERVER_URL: stack.url, SVC_EXPORT_PASSPHRASE: "a long passphrase" },
        /^svc: there is no folder \/nonexistent-svc-folder to write/,
      ],
    ] as const
  ) {
    const run = await svc(stack.url, who, [...args], undefined, env);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, message);
  }
});

Deno.test("CLI: a key the relayer refuses is named with the relayer that refused it", async () => {
  await using stack = await startMcpStack();
  const who = await stack.test.newCaller();
  const stranger = { ...who, key: await generateKeyPair() };
  const refused = await svc(stack.url, stranger, ["recall", "bees"]);
  assert.equal(refused.code, 1);
  assert.match(
    refused.stderr,
    new RegExp(`\\(The relayer at ${stack.url} refused the key; --relayer or SVC_SERVER_URL`),
  );
  const flagged = await svc(
    stack.url,
    stranger,
    ["recall", "bees", `--relayer=${stack.url}`],
    "",
    {},
  );
  assert.match(flagged.stderr, new RegExp(`The relayer at ${stack.url} refused the key`));
});

Deno.test("CLI: a request refused for this machine's clock says how far off it is, not the key", async () => {
  // A relayer whose clock is ten minutes behind this machine's.
  await using relayer = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      Response.json({
        error: "x-timestamp is more than 5 minutes from the server's clock; correct the clock " +
          "and retry",
        code: "unauthorized",
        request_id: "r",
        reason: "stale_timestamp",
        server_time: Math.floor(Date.now() / 1000) - 600,
      }, { status: 401 }),
  );
  const url = `http://127.0.0.1:${relayer.addr.port}`;
  const who = {
    key: await generateKeyPair(),
    accountId: "0x" + "a".repeat(64),
  } as unknown as Caller;
  const run = await svc(url, who, ["whoami"]);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /\(This machine's clock is (59\d|60\d) s ahead of the relayer's\.\)/);
  assert.doesNotMatch(run.stderr, /refused the key/);
});

Deno.test("CLI: forget one memory or a namespace; receipts are checked; bad usage exits 2", async () => {
  await using stack = await startMcpStack();
  const who = await stack.test.newCaller();
  const run = (args: string[]) => svc(stack.url, who, args);
  const ids: string[] = [];
  for (const text of ["My PIN is 4321", "My locker is 12", "My desk is by the window"]) {
    const saved = await run(["remember", text, "--namespace", "work", "--wait", "--json"]);
    ids.push(saved.json.job_id as string);
  }
  const { receiptKey } = await (await fetch(`${stack.url}/health`)).json();

  const forgotten = await run(["forget", ids[0]]);
  assert.equal(forgotten.code, 0, forgotten.stderr);
  assert.match(
    forgotten.stdout,
    new RegExp(
      `^erased memory ${ids[0]}\\nmemory_id  ${ids[0]}\\nowner      ${who.owner}\\n` +
        `blob_id    \\S+\\nerased_at  \\S+\\nsignature  [0-9a-f]{128}\\n` +
        `signature verified with the relayer's receipt key ${receiptKey}\\n$`,
    ),
  );
  const receipt = await run(["forget", ids[1], "--json"]);
  assert.equal(receipt.json.memory_id, ids[1]);
  assert.equal(await verifyReceipt(receipt.json as never, receiptKey), true);
  const again = await run(["forget", ids[1], "--json"]);
  assert.deepEqual([again.code, again.json], [0, receipt.json], "sent again: the same receipt");

  for (
    const args of [
      ["forget", "--namespace", "work"],
      ["forget", "--namespace", "work", "--confirm", "other"],
      ["forget", ids[2], "--namespace", "work", "--confirm", "work"],
      ["forget"],
      ["update", ids[2], "--json"],
      ["remember", "x", "--ttl", "0", "--json"],
      ["remember", "x", "--ttl", "1y", "--json"],
      ["remember", "x", "--ttl", "1d", "--expires-at", "2030-01-01T00:00:00Z", "--json"],
      ["list", "--since", "yesterday", "--json"],
      ["list", "--limit", "many", "--json"],
      ["list", "--limit", "501"],
      ["recall", "x", "--limit", "0"],
      ["recall", "x", "--limit", "101"],
      ["get", "not-a-uuid"],
      ["get", ids[2].toUpperCase()],
      ["forget", "42"],
      ["update", "42", "--text", "x"],
      ["remember", "x", "--replaces", "42"],
    ]
  ) {
    const refused = await run([...args, ...(args.includes("--json") ? [] : ["--json"])]);
    assert.equal(refused.code, 2, args.join(" "));
    assert.equal(refused.json.code, "usage", args.join(" "));
  }
  const badId = await run(["get", "not-a-uuid"]);
  assert.equal(
    badId.stderr,
    "svc: the memory's id must be a lowercase UUID, as `svc list` prints ids\n" +
      "(`svc --help` lists every command and its options)\n",
  );
  const unconfirmed = await run(["forget", "--namespace", "work"]);
  assert.equal(unconfirmed.code, 2);
  assert.match(unconfirmed.stderr, /^svc: .*--confirm.*\n\(`svc --help` lists every command/);
  assert.equal(unconfirmed.stderr.trim().split("\n").length, 2, unconfirmed.stderr);
  const help = await run(["--help"]);
  assert.deepEqual([help.code, help.stderr], [0, ""]);
  assert.match(help.stdout, /^usage: svc <command> \[options\]\n[^]*\n {2}forget ID/);
  const still = await run(["list", "--namespace", "work", "--json"]);
  assert.deepEqual((still.json.memories as { id: string }[]).map((m) => m.id), [ids[2]]);

  const erased = await run(["forget", "--namespace", "work", "--confirm", "work"]);
  assert.equal(
    erased.stdout,
    'erased 1 memory from namespace "work"; 1 of 1 receipts verified with the relayer\'s ' +
      "receipt key (--json prints them)\n",
  );
  const empty = await run(["list", "--namespace", "work", "--json"]);
  assert.deepEqual(empty.json.memories, []);
});

Deno.test("CLI: remember --thread, recall --min-score and --explain", async () => {
  await using stack = await startMcpStack();
  const who = await stack.test.newCaller();
  const run = (args: string[]) => svc(stack.url, who, args);
  const saved = await run(["remember", "We booked the ferry", "--thread", "chat-7", "--wait"]);
  assert.equal(saved.code, 0, saved.stderr);
  const id = saved.stdout.match(new RegExp(`^job (${ID})`))![1];
  const got = await run(["get", id]);
  assert.match(got.stdout, /^thread {5}chat-7$/m);
  const explained = await run(["recall", "ferry booked", "--explain"]);
  assert.match(
    explained.stdout,
    /^1\. \[score \d\.\d\d\] We booked the ferry \(id .+\)\n {3}vector \d\.\d\d, lexical 1\.00, fused \d\.\d\d, neighbour 0\.00\n$/,
  );
  const strict = await run(["recall", "ferry booked", "--min-score", "1"]);
  assert.equal(strict.stdout, "No matching memories found\n");
  for (const score of ["2", "0x1", "1e0"]) {
    const bad = await run(["recall", "ferry", "--min-score", score]);
    assert.equal(bad.code, 2, score);
    assert.match(bad.stderr, /--min-score must be a number from 0 to 1/);
  }
  assert.equal((await run(["recall", "ferry", "--min-score", ".5"])).code, 0);
  // After `--`, "--json" is words of the query, not the flag: the answer stays text.
  const worded = await run(["recall", "ferry", "--", "--json"]);
  assert.equal(worded.code, 0, worded.stderr);
  assert.match(worded.stdout, /^1\. \[score \d\.\d\d\] We booked the ferry/);
});

Deno.test("CLI: restore indexes the whole namespace again, --limit memories a request", async () => {
  await using stack = await startMcpStack();
  const who = await stack.test.newCaller();
  const run = (args: string[]) => svc(stack.url, who, args);
  const texts = ["I keep bees", "I play the cello", "I live in Porto", "I am vegetarian", "I ski"];
  const client = await SvcClient.create({
    baseUrl: stack.url,
    privateKey: who.key.privateKey,
    accountId: who.accountId,
  });
  const { job_ids } = await client.rememberBulk(texts.map((text) => ({ text, namespace: "me" })));
  for (const id of job_ids) await client.waitForJob(id);
  await stack.test.vectors.delete(job_ids.slice(1));

  const restored = await run(["restore", "--namespace", "me", "--limit", "2", "--json"]);
  assert.deepEqual(restored.json, {
    restored: 4,
    skipped: 1,
    total: 5,
    remaining: 0,
    truncated: false,
    namespace: "me",
    owner: who.owner,
  });
  assert.equal(await stack.test.vectors.count({ owner: who.owner }), 5);
  assert.equal(
    (await run(["restore", "--namespace", "me"])).stdout,
    'Restore of namespace "me": total 5, restored 0, skipped 5.\n',
  );
});

Deno.test("CLI: without a key given, the credentials svc-mcp login saved are used: relayer, key and account", async () => {
  await using stack = await startMcpStack();
  const who = await stack.test.newCaller();
  const home = await Deno.makeTempDir();
  try {
    const env = { HOME: home, SVC_DATA_DIR: "/nonexistent-svc-cli-test" };
    const signedOut = await svcInProcess(["recall", "anything"], env, ROOT);
    assert.equal(signedOut.code, 2);
    assert.match(
      signedOut.stderr,
      /missing SVC_DELEGATE_KEY or --key \(or sign in: svc-mcp login\)/,
    );
    const { publicKey } = await generateKeyPair();
    await CredentialsFile.inHome(home).save({
      version: 1,
      delegatePrivateKey: who.key.privateKey,
      delegatePublicKey: publicKey,
      delegateAddress: "0x" + "0".repeat(64),
      walletAddress: "0x" + "0".repeat(64),
      accountId: who.accountId,
      packageId: "0x0",
      relayerUrl: stack.url,
      label: "test",
      createdAt: new Date().toISOString(),
    });
    const saved = await svcInProcess(["remember", "I keep bees", "--wait", "--json"], env, ROOT);
    assert.equal(saved.code, 0, saved.stderr);
    const found = await svcInProcess(["recall", "bees", "--json"], env, ROOT);
    assert.equal(JSON.parse(found.stdout).results[0].text, "I keep bees");
    // Not for another relayer, nor another account: the saved key was made for these.
    const others: Record<string, string>[] = [
      { SVC_SERVER_URL: "http://127.0.0.1:9" },
      { SVC_ACCOUNT_ID: "0x2" },
    ];
    for (const other of others) {
      const refused = await svcInProcess(["recall", "bees"], { ...env, ...other }, ROOT);
      assert.equal(refused.code, 2, JSON.stringify(other));
      assert.match(refused.stderr, /missing SVC_DELEGATE_KEY or --key/);
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
