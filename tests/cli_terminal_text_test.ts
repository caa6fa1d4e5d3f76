/**
 * What the operator CLI (`cli/svc.ts` run in-process) prints of texts agents wrote — memory
 * texts, tags, namespaces, key labels — against a relayer on a loopback port: their control
 * characters and bidi overrides are shown as escapes, never sent to the terminal, and `--json`
 * keeps them exactly.
 */
import assert from "node:assert/strict";
import { KvLedgerStore } from "../plugins/local_ledger/mod.ts";
import { importAll } from "./fixtures.ts";
import { startStack, svc } from "./cli_fixtures.ts";

const TEXT = "evil \x1b[2J text\rover \u009b31m \u202eright to left\u202c\nsecond line\tend";
// deno-lint-ignore no-control-regex
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

Deno.test("CLI: get, recall, list, log, whoami and key list show control characters as escapes", async () => {
  await using stack = await startStack();
  const who = await stack.test.newCaller({ label: "lap\x1b[31mtop\u202e" });
  // A namespace stored before such names were refused where first written (import keeps it).
  const namespace = "n\u202es";
  await importAll(stack.test, who, [{ text: TEXT, namespace, tags: ["\u202etag"] }]);
  const listed = await svc(stack, who, ["list", "--namespace", namespace, "--json"]);
  const id = (listed.json.memories as { id: string; text: string }[])[0].id;
  assert.equal((listed.json.memories as { text: string }[])[0].text, TEXT, "--json is exact");

  const get = await svc(stack, who, ["get", id]);
  assert.equal(get.code, 0, get.stderr);
  assert.ok(
    get.stdout.endsWith(
      "\n\nevil \\u001b[2J text\\u000dover \\u009b31m \\u202eright to left\\u202c\nsecond line\tend\n",
    ),
    get.stdout,
  );
  assert.match(get.stdout, /^namespace {2}n\\u202es$/m);
  assert.match(get.stdout, /^tags {7}\\u202etag$/m);
  const recall = await svc(stack, who, ["recall", "evil text", "--namespace", namespace]);
  assert.match(
    recall.stdout,
    /^1\. \[score [0-9.]+\] evil \\u001b\[2J text\\u000dover .*\nsecond line\tend \(id .*; tags: \\u202etag\)\n$/,
  );
  const list = await svc(stack, who, ["list", "--namespace", namespace]);
  assert.match(
    list.stdout,
    / {2}\[\\u202etag\] {2}evil \\u001b\[2J text over \\u009b31m \\u202eright to left\\u202c second line end\n$/,
  );
  const log = await svc(stack, who, ["log", "--namespace", namespace]);
  assert.equal(log.code, 0, log.stderr);
  assert.match(log.stdout, / {2}lap\\u001b\[31mtop\\u202e \(0x.{4}….{4}\) {2}n\\u202es {2}/);
  const whoami = await svc(stack, who, ["whoami"]);
  assert.match(whoami.stdout, / "lap\\u001b\[31mtop\\u202e"\n/);
  for (const run of [get, recall, list, log, whoami]) {
    assert.doesNotMatch(run.stdout, RAW, run.stdout);
  }

  // The ledger's keys, in a data directory of this test's own.
  const ledger = { env: { SVC_DATA_DIR: `${stack.dir}/data` } };
  const account = await svc(stack, who, ["account", "create", "--json"], ledger);
  assert.equal(account.code, 0, account.stderr);
  const accountId = account.json.accountId as string;
  const label = "desk\x1b]0;owned\x07\ntop";
  const add = (label: string) =>
    svc(stack, who, ["key", "add", "--account", accountId, "--label", label], ledger);
  const refused = await add(label);
  assert.equal(refused.code, 2);
  assert.match(
    refused.stderr,
    /^svc: --label must not hold control, text-direction or invisible characters\n\(`svc --help`/,
  );
  // Nor one that reads as another's: what shows as nothing, or a line separator.
  for (const hidden of ["desk\u200b", "de\u2028sk"]) {
    assert.equal((await add(hidden)).code, 2, JSON.stringify(hidden));
  }
  const long = await add("d".repeat(65));
  assert.equal(long.code, 2);
  assert.match(long.stderr, /^svc: --label must be at most 64 bytes\n/);
  const added = await add("desk");
  assert.equal(added.code, 0, added.stderr);
  // A label written before the ledger refused such labels (or on Sui, where nothing does).
  const store = await KvLedgerStore.open(`${stack.dir}/data/ledger.kv`);
  await store.apply("ab".repeat(32), async (view) => {
    const held = (await view.account(accountId))!;
    view.putAccount({ ...held, delegate_keys: [{ ...held.delegate_keys[0], label }] });
    const at = new Date().toISOString();
    return {
      status: "success",
      kind: "add_delegate_key",
      account_id: accountId,
      sender: held.owner,
      executed_at: at,
    };
  }, 60_000);
  store.close();
  const keys = await svc(stack, who, ["key", "list", "--account", accountId], ledger);
  assert.equal(keys.code, 0, keys.stderr);
  assert.match(keys.stdout, / {2}desk\\u001b\]0;owned\\u0007\\u000atop {2}\(full access\)\n$/);
  assert.doesNotMatch(keys.stdout, RAW);
  const json = await svc(stack, who, ["key", "list", "--account", accountId, "--json"], ledger);
  assert.equal((json.json.keys as { label: string }[])[0].label, label);
});

Deno.test("CLI: names that print as nothing in part (a zero-width space) are shown with it escaped", async () => {
  await using stack = await startStack();
  const who = await stack.test.newCaller();
  // Stored before such namespaces were refused where first written (import keeps them).
  const namespace = "bad\u200bns";
  await importAll(stack.test, who, [{ text: "I keep bees", namespace, tags: ["bee\u2060s"] }]);
  const spaces = await svc(stack, who, ["namespaces"]);
  assert.equal(spaces.stdout, "      1  bad\\u200bns\n");
  const list = await svc(stack, who, ["list", "--namespace", namespace]);
  assert.match(list.stdout, / {2}\[bee\\u2060s\] {2}I keep bees\n$/);
  const log = await svc(stack, who, ["log", "--namespace", namespace]);
  assert.match(log.stdout, / {2}bad\\u200bns {2}/);
});
