/**
 * The operator CLI's command line (`cli/svc.ts` run in-process against a relayer on a loopback
 * port): flags given twice, values and account ids, checked before anything is sent.
 */
import assert from "node:assert/strict";
import { rememberAll } from "./fixtures.ts";
import { clientOf, exported, PASSPHRASE, startStack, svc } from "./cli_fixtures.ts";

Deno.test("CLI: export takes --namespace more than once; another flag given twice is a usage error", async () => {
  await using stack = await startStack();
  const who = await stack.test.newCaller();
  const client = await clientOf(stack, who);
  await rememberAll(stack.test, who, [
    { text: "I am vegetarian" },
    { text: "Standup is at 9:30", namespace: "work" },
    { text: "Chess on Thursdays", namespace: "hobby" },
  ]);
  const file = `${stack.dir}/two.svc`;
  const args = ["export", "--namespace", "work", "--namespace=default", "-o", file, "--json"];
  const two = await svc(stack, who, args, PASSPHRASE);
  assert.equal(two.code, 0, two.stderr);
  assert.equal(two.json.memories, 2);
  for (const namespace of ["default", "work", "hobby"]) await client.forgetNamespace(namespace);
  const back = await svc(stack, who, ["import", file, "--wait"], PASSPHRASE);
  assert.equal(back.code, 0, back.stderr);
  assert.deepEqual(
    (await exported(client)).map((memory) => memory.namespace).sort(),
    ["default", "work"],
  );

  for (
    const [args, flag] of [
      [["remember", "I keep bees", "--namespace", "a", "--namespace", "b"], "--namespace"],
      [["recall", "bees", "--limit", "1", "--limit=2"], "--limit"],
      [["list", "--account", who.accountId, "--account", who.accountId], "--account"],
      [["export", "-o", `${file}.a`, "-o", `${file}.b`], "-o"],
      [["import", file, "--namespace", "a", "--namespace", "b"], "--namespace"],
      [["log", "--op", "recall", "--op", "get"], "--op"],
    ] as [string[], string][]
  ) {
    const run = await svc(stack, who, args, PASSPHRASE);
    assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
    assert.match(
      run.stderr,
      new RegExp(`^svc: ${flag} is given twice: it takes one value \\(only --tag, and export's`),
    );
  }
  assert.deepEqual((await exported(client)).length, 2, "nothing was sent");
  await assert.rejects(Deno.stat(`${file}.a`), Deno.errors.NotFound);
});

Deno.test("CLI: an account id that is not one is a usage error, before anything is sent", async () => {
  await using stack = await startStack();
  const who = await stack.test.newCaller();
  const file = `${stack.dir}/lines.jsonl`;
  await Deno.writeTextFile(file, JSON.stringify({ text: "I keep bees" }) + "\n");
  const flag = /^svc: --account must be an account id: 0x and up to 64 hex digits/;
  const env = /^svc: SVC_ACCOUNT_ID must be an account id: 0x and up to 64 hex digits/;
  for (
    const [args, account, message] of [
      [["log", "--account", "notanid"], undefined, flag],
      [["log"], "notanid", env],
      [["recall", "bees", "--account", "0xnothex"], undefined, flag],
      [["remember", "I keep bees", "--account", ""], undefined, flag],
      [["whoami"], "0x" + "a".repeat(65), env],
      [["export", "-o", `${stack.dir}/x.svc`, "--account", "0x"], undefined, flag],
      [["import", "--from", "jsonl", file], "12345", env],
      [["key", "list", "--account", "notanid"], undefined, flag],
      [["account", "deactivate", "--account", "notanid"], undefined, flag],
    ] as [string[], string | undefined, RegExp][]
  ) {
    const run = await svc(stack, who, args, {
      passphrase: PASSPHRASE,
      env: account === undefined ? {} : { SVC_ACCOUNT_ID: account },
    });
    assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
    assert.match(run.stderr, message, args.join(" "));
  }
  // A delegate key that is not one (a space copied with it, capitals) is named, not shown.
  for (
    const [args, env, name] of [
      [["whoami"], { SVC_DELEGATE_KEY: ` ${who.key.privateKey}` }, "SVC_DELEGATE_KEY"],
      [["remember", "I keep bees", "--key", who.key.privateKey.toUpperCase()], {}, "--key"],
      [["log"], { SVC_DELEGATE_KEY: who.key.privateKey.slice(1) }, "SVC_DELEGATE_KEY"],
    ] as [string[], Record<string, string>, string][]
  ) {
    const run = await svc(stack, who, args, { env });
    assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
    assert.ok(
      run.stderr.startsWith(`svc: ${name} must be a private key: 64 lowercase hex characters`),
      run.stderr,
    );
    assert.ok(!run.stderr.toLowerCase().includes(who.key.privateKey.slice(1)), "not shown");
  }
  // An empty --key is named as such, not as a missing SVC_DELEGATE_KEY (which is set).
  const empty = await svc(stack, who, ["whoami", "--key", ""]);
  assert.equal(empty.code, 2);
  assert.ok(empty.stderr.startsWith("svc: --key must not be empty"), empty.stderr);
  const client = await clientOf(stack, who);
  assert.deepEqual(await exported(client), [], "nothing was sent");
  // The owner's account id in capitals is taken, as the relayer takes it.
  const upper = await svc(stack, who, [
    "whoami",
    "--account",
    who.accountId.toUpperCase().replace("0X", "0x"),
  ]);
  assert.equal(upper.code, 0, upper.stderr);
  // So do the ledger commands, which find the account in the data directory.
  const ledger = { env: { SVC_DATA_DIR: `${stack.dir}/ledger` } };
  const created = await svc(stack, who, ["account", "create", "--json"], ledger);
  assert.equal(created.code, 0, created.stderr);
  const id = (created.json as { accountId: string }).accountId;
  const keys = await svc(stack, who, [
    "key",
    "list",
    "--account",
    id.toUpperCase().replace("0X", "0x"),
  ], ledger);
  assert.equal(keys.code, 0, keys.stderr);
  assert.equal(keys.stdout, "(no delegate keys)\n");
  // A mistyped data directory is not made: only account create makes a ledger.
  const typo = await svc(stack, who, ["key", "list", "--account", id], {
    env: { SVC_DATA_DIR: `${stack.dir}/ledgr` },
  });
  assert.equal(typo.code, 1);
  assert.equal(
    typo.stderr,
    `svc: There is no ledger in ${stack.dir}/ledgr (SVC_DATA_DIR): no account was made there. ` +
      "Set SVC_DATA_DIR to the relayer's data directory\n",
  );
  await assert.rejects(Deno.stat(`${stack.dir}/ledgr`), Deno.errors.NotFound);
});

Deno.test("CLI: a word more than a command takes is a usage error, before anything is sent", async () => {
  await using stack = await startStack();
  const who = await stack.test.newCaller();
  const client = await clientOf(stack, who);
  await rememberAll(stack.test, who, [{ text: "I am vegetarian" }]);
  const [memory] = await exported(client);
  const file = `${stack.dir}/lines.jsonl`;
  await Deno.writeTextFile(file, JSON.stringify({ text: "I keep bees" }) + "\n");
  for (
    const [args, extra] of [
      [["update", memory.id, "I eat fish now"], "I eat fish now"],
      [["forget", memory.id, "other"], "other"],
      [["get", memory.id, memory.id], memory.id],
      [["list", "work"], "work"],
      [["whoami", "me"], "me"],
      [["restore", "work", "--namespace", "work"], "work"],
      [["export", "work", "-o", `${stack.dir}/x.svc`], "work"],
      [["import", file, "more.jsonl"], "more.jsonl"],
      [["key", "list", "extra", "--account", who.accountId], "extra"],
      [["log", "recall"], "recall"],
    ] as [string[], string][]
  ) {
    const run = await svc(stack, who, args, PASSPHRASE);
    assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
    assert.ok(
      run.stderr.startsWith(`svc: unexpected argument: ${extra}`),
      `${args.join(" ")}: ${run.stderr}`,
    );
  }
  const update = await svc(stack, who, ["update", memory.id, "I eat fish now"]);
  assert.match(update.stderr, /\(update takes its text as --text TEXT or on stdin\)/);
  assert.deepEqual(
    (await exported(client)).map((m) => [m.id, m.text]),
    [[memory.id, "I am vegetarian"]],
    "nothing was sent",
  );
});

Deno.test("CLI: an empty file name is a missing one, not the folder it would be resolved in", async () => {
  await using stack = await startStack();
  const who = await stack.test.newCaller();
  for (
    const [args, missing] of [
      [["export", "-o", ""], "missing -o FILE"],
      [["import", ""], "missing the file to import"],
    ] as [string[], string][]
  ) {
    const run = await svc(stack, who, args, PASSPHRASE);
    assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
    assert.ok(run.stderr.startsWith(`svc: ${missing}`), run.stderr);
  }
});

Deno.test("CLI: a flag its command does not take is a usage error, before anything is sent", async () => {
  await using stack = await startStack();
  const who = await stack.test.newCaller();
  const client = await clientOf(stack, who);
  await rememberAll(stack.test, who, [{ text: "I am vegetarian" }]);
  const [memory] = await exported(client);
  for (
    const [args, message] of [
      // A key's flag: the memory would never expire.
      [
        ["remember", "I keep bees", "--expires", "30d"],
        "remember does not take --expires (it takes --relayer, --account, --key, --namespace, " +
        "--tag, --thread, --ttl, --expires-at, --replaces, --wait)",
      ],
      [
        ["update", memory.id, "--text", "I eat fish", "--namespace", "work"],
        "update does not take --namespace (it takes --relayer, --account, --key, --text, --tag, " +
        "--ttl, --expires-at, --wait)",
      ],
      [
        ["whoami", "--limit", "5"],
        "whoami does not take --limit (it takes --relayer, --account, --key)",
      ],
      [
        ["blind", "list", "--limit", "5"],
        "blind list does not take --limit (it takes --relayer, --account, --key, --namespace, " +
        "--model-dir, --cache)",
      ],
      // blind update takes --text and --tag: what it refuses here is the id.
      [
        ["blind", "update", "x", "--text", "I eat fish", "--tag", "food"],
        "the memory id must be a lowercase UUID, as `svc list` prints ids",
      ],
      [
        ["account", "create", "--label", "x"],
        "account create does not take --label (it takes no options)",
      ],
      [
        ["key", "list", "--account", who.accountId, "--read-only"],
        "key list does not take --read-only (it takes --account)",
      ],
      [
        ["key", "remove", "--account", who.accountId, "--public-key", "ab", "--address", "0x1"],
        "give --public-key or --address, not both",
      ],
      [
        ["key", "add", "--account", who.accountId, "--public-key", "01" + "00".repeat(31)],
        "--public-key is a point of small order, under which anyone can sign: no one's key",
      ],
    ] as [string[], string][]
  ) {
    const run = await svc(stack, who, args);
    assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
    assert.equal(run.stderr.split("\n")[0], `svc: ${message}`);
  }
  assert.deepEqual(
    (await exported(client)).map((m) => [m.id, m.text]),
    [[memory.id, "I am vegetarian"]],
    "nothing was sent",
  );
});

Deno.test("CLI: a namespace, tag, thread or expiry the relayer would refuse is a usage error, before anything is read or sent", async () => {
  await using stack = await startStack();
  const who = await stack.test.newCaller();
  const client = await clientOf(stack, who);
  const file = `${stack.dir}/lines.jsonl`;
  await Deno.writeTextFile(file, JSON.stringify({ text: "I keep bees" }) + "\n");
  for (
    const [args, message] of [
      [["import", "--from", "jsonl", file, "--namespace", ""], "--namespace must not be empty"],
      [["import", file, "--namespace", "a\tb"], "--namespace must not contain control characters"],
      [["remember", "I keep bees", "--namespace", ""], "--namespace must not be empty"],
      [["list", "--namespace", "x".repeat(257)], "--namespace must be at most 256 bytes"],
      [
        ["export", "--namespace", "work", "--namespace", "", "-o", `${stack.dir}/x.svc`],
        "--namespace must not be empty",
      ],
      // Tags, threads and expiries the relayer would refuse, named as the flags that gave them.
      [["remember", "I keep bees", "--tag", ""], "--tag[0] must be a string of 1 to 64 characters"],
      [
        [
          "remember",
          "I keep bees",
          ...Array.from({ length: 17 }, (_, i) => ["--tag", `t${i}`])
            .flat(),
        ],
        "--tag must have at most 16 entries",
      ],
      [["recall", "bees", "--tag", "a\u0007b"], "--tag[0] must not contain control characters"],
      [
        ["remember", "I keep bees", "--thread", ""],
        "--thread must be a string of 1 to 128 characters",
      ],
      [
        ["remember", "I keep bees", "--ttl", "999999999w"],
        "--ttl must be at most ten years (3650d)",
      ],
    ] as [string[], string][]
  ) {
    const run = await svc(stack, who, args, PASSPHRASE);
    assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
    assert.equal(run.stderr.split("\n")[0], `svc: ${message}`);
  }
  assert.deepEqual(await exported(client), [], "nothing was sent");
});

Deno.test("CLI: an argument that is not UTF-8 (U+FFFD from Deno) is a usage error; nothing is stored", async () => {
  await using stack = await startStack();
  const who = await stack.test.newCaller();
  const client = await clientOf(stack, who);
  for (
    const args of [
      ["remember", "caf\uFFFD latin1 text", "--wait"],
      ["remember", "hello", "--namespace", "\uFFFD", "--wait"],
    ]
  ) {
    const run = await svc(stack, who, args, PASSPHRASE);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /^svc: Argument \d is not UTF-8 text/);
  }
  assert.deepEqual(await exported(client), [], "nothing was sent");
});

Deno.test("CLI: an owner key file that is damaged, or not a file, is named; nothing changes", async () => {
  await using stack = await startStack();
  const who = await stack.test.newCaller();
  const ledger = { env: { SVC_DATA_DIR: `${stack.dir}/data` } };
  const created = await svc(stack, who, ["account", "create", "--json"], ledger);
  assert.equal(created.code, 0, created.stderr);
  const { accountId, owner } = created.json as { accountId: string; owner: string };
  const path = `${stack.dir}/data/owner_keys/${owner}.key`;
  const saved = await Deno.readTextFile(path);
  const add = () =>
    svc(
      stack,
      who,
      ["key", "add", "--account", accountId, "--public-key", "ab".repeat(32)],
      ledger,
    );
  await Deno.writeTextFile(path, saved.slice(0, 20));
  const damaged = await add();
  assert.equal(damaged.code, 1);
  assert.equal(
    damaged.stderr,
    `svc: The owner key file ${path} holds no private key (64 lowercase hex characters): it ` +
      "was damaged or replaced. Put back its backup\n",
  );
  await Deno.remove(path);
  await Deno.mkdir(path);
  const folder = await add();
  assert.equal(folder.code, 1);
  assert.match(folder.stderr, new RegExp(`^svc: Cannot read the owner key file ${path}: `));
  await Deno.remove(path);
  await Deno.writeTextFile(path, saved, { mode: 0o600 });
  const listed = await svc(stack, who, ["key", "list", "--account", accountId, "--json"], ledger);
  assert.deepEqual(listed.json.keys, [], "no key was added");
});
