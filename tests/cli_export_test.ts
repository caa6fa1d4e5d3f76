/**
 * `svc export` and `svc import` (cli/svc.ts run in-process) against a relayer on a loopback
 * port: an encrypted export restores what was erased, a wrong passphrase and an altered file
 * are refused before anything is imported, the foreign importers read sample files written
 * here in each format, and importing again adds nothing.
 */
import assert from "node:assert/strict";
import type { ExportedMemory } from "../src/client/mod.ts";
import { SvcError } from "../src/errors.ts";
import { SlowEmbedder } from "../src/testing/mod.ts";
import { LexicalEmbedder } from "../plugins/lexical_embedder/mod.ts";
import { rememberAll } from "./fixtures.ts";
import { clientOf, exported, PASSPHRASE, startStack, svc } from "./cli_fixtures.ts";

const portable = (memories: ExportedMemory[]) =>
  memories.map(({ text, tags, namespace, created_at }) => ({ text, tags, namespace, created_at }));

Deno.test("CLI: export to an encrypted file, erase, import it back; again adds nothing", async () => {
  await using stack = await startStack();
  const who = await stack.test.newCaller();
  const client = await clientOf(stack, who);
  await rememberAll(stack.test, who, [
    { text: "I am vegetarian", tags: ["diet"] },
    { text: "Standup is at 9:30", namespace: "work" },
    { text: "My manager is Dana", namespace: "work", tags: ["people"] },
  ]);
  // A manual memory: its text is the client's to read, so the export leaves it out, and says so.
  const dimensions = stack.test.vectors.dimensions;
  await client.rememberManual(new Uint8Array([1, 2, 3]), Array(dimensions).fill(0.5));
  const before = await exported(client);
  const file = `${stack.dir}/memories.svc`;

  const saved = await svc(stack, who, ["export", "--all", "-o", file, "--json"], PASSPHRASE);
  assert.equal(saved.code, 0, saved.stderr);
  assert.deepEqual([saved.json.memories, saved.json.left_out, saved.json.version], [3, 1, 1]);
  assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
  const bytes = await Deno.readFile(file);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(0, bytes.indexOf(10))));
  assert.deepEqual([header.format, header.version], ["svc-export", 1]);
  assert.equal(new TextDecoder().decode(bytes).includes("vegetarian"), false, "no plaintext");
  const again = await svc(stack, who, ["export", "-o", file], PASSPHRASE);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /exists already/);
  const work = await svc(
    stack,
    who,
    ["export", "--namespace", "work", "-o", `${file}.work`],
    PASSPHRASE,
  );
  assert.equal(
    work.stdout,
    `exported 2 memories to ${file}.work (encrypted: it opens only with its passphrase)\n`,
  );

  for (const namespace of ["default", "work"]) await client.forgetNamespace(namespace);
  assert.deepEqual(await exported(client), []);

  const wrong = await svc(stack, who, ["import", file], "not the passphrase");
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /passphrase is wrong/);
  assert.doesNotMatch(wrong.stderr, /relayer/, "the relayer was not asked");
  const altered = bytes.slice();
  altered[altered.length - 20] ^= 0x04;
  await Deno.writeFile(`${file}.altered`, altered);
  const refused = await svc(stack, who, ["import", `${file}.altered`], PASSPHRASE);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /does not authenticate/);
  assert.deepEqual(await exported(client), [], "nothing of an altered file is imported");

  const passphraseFile = `${stack.dir}/passphrase.txt`;
  await Deno.writeTextFile(passphraseFile, PASSPHRASE + "\n");
  const args = ["import", file, "--passphrase-file", passphraseFile, "--wait", "--json"];
  const imported = await svc(stack, who, args);
  assert.equal(imported.code, 0, imported.stderr);
  assert.deepEqual(
    [imported.json.imported, imported.json.duplicates, imported.json.failed],
    [3, 0, []],
  );
  assert.deepEqual(portable(await exported(client)), portable(before));

  const twice = await svc(stack, who, ["import", file], PASSPHRASE);
  assert.equal(twice.code, 0, twice.stderr);
  assert.equal(twice.stdout, `imported 0 memories from ${file}; 3 already known (skipped)\n`);

  // Through a pipe (`svc import <(gunzip -c …)`), which can be read only once.
  const pipe = `${stack.dir}/pipe`;
  assert.equal((await new Deno.Command("mkfifo", { args: [pipe] }).output()).code, 0);
  const writing = Deno.writeFile(pipe, bytes);
  const piped = await svc(stack, who, ["import", pipe], PASSPHRASE);
  await writing;
  assert.equal(piped.code, 0, piped.stderr);
  assert.equal(piped.stdout, `imported 0 memories from ${pipe}; 3 already known (skipped)\n`);
});

Deno.test("CLI: import --from jsonl reads the API's export lines, into --namespace if given", async () => {
  // Memories are stored a while after they are accepted, as under load.
  await using stack = await startStack({
    embedder: new SlowEmbedder(new LexicalEmbedder(), { delayMs: 500 }),
  });
  const who = await stack.test.newCaller();
  const client = await clientOf(stack, who);
  await rememberAll(stack.test, who, [
    { text: "I am vegetarian", tags: ["diet"] },
    { text: "Standup is at 9:30", namespace: "work" },
  ]);
  const before = await exported(client);
  const file = `${stack.dir}/memories.jsonl`;
  const lines = before.map((memory) => JSON.stringify(memory));
  await Deno.writeTextFile(file, [lines[0], "", "{not json", lines[1], ""].join("\n"));
  for (const namespace of ["default", "work"]) await client.forgetNamespace(namespace);

  const imported = await svc(stack, who, ["import", "--from", "jsonl", file, "--wait", "--json"]);
  assert.equal(imported.code, 0, imported.stderr);
  assert.deepEqual([imported.json.imported, imported.json.format], [2, "jsonl"]);
  assert.deepEqual(
    (imported.json.failed as { origin: string }[]).map(({ origin }) => origin),
    ["line 3"],
  );
  assert.deepEqual(portable(await exported(client)), portable(before));

  const into = await svc(stack, who, ["import", "--from", "jsonl", file, "--namespace", "old"]);
  assert.equal(into.code, 0, into.stderr);
  assert.match(into.stdout, /^imported 2 memories from /);
  // A line that is no object is named as such, --namespace or not.
  const odd = `${stack.dir}/odd.jsonl`;
  await Deno.writeTextFile(odd, '"a string"\n[1]\n');
  const named = await svc(stack, who, ["import", "--from", "jsonl", odd, "--namespace", "old"]);
  assert.match(named.stdout, /line 1: line must be an object\n {2}line 2: line must be an object/);
  // Standard input, named `-` or /dev/stdin, as the task reads it (no device opened by path).
  for (const name of ["-", "/dev/stdin"]) {
    const args = ["import", "--from", "jsonl", name, "--namespace", `piped${name.length}`];
    const piped = await svc(stack, who, args, { task: true, stdin: lines.join("\n") });
    assert.equal(piped.code, 0, piped.stderr);
    assert.match(piped.stdout, /^imported 2 memories from /);
  }
  const unknown = await svc(stack, who, ["import", "--from", "csv", file]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /--from must be one of jsonl, mcp-memory, mem0/);
  // Two imports of the same lines at once, both accepted before either is stored: with --wait,
  // each memory is counted imported once.
  const twice = await Promise.all(
    [1, 2].map(() =>
      svc(stack, who, [
        "import",
        "--from",
        "jsonl",
        file,
        "--namespace",
        "again",
        "--wait",
        "--json",
      ])
    ),
  );
  const sum = (key: string) => twice.reduce((n, run) => n + (run.json[key] as number), 0);
  assert.deepEqual([sum("imported"), sum("duplicates")], [2, 2]);
  const again = (await exported(client)).filter((memory) => memory.namespace === "again");
  assert.equal(again.length, 2, "stored once each");
  // The wrong --from, or none, is named before anything is sent.
  const plain = await svc(stack, who, ["import", file], PASSPHRASE);
  assert.equal(plain.code, 2);
  assert.match(
    plain.stderr,
    /is not a file of svc export but the JSON lines of GET \/api\/export: import it with --from jsonl/,
  );
  const encrypted = `${stack.dir}/memories.svc`;
  await svc(stack, who, ["export", "-o", encrypted], PASSPHRASE);
  const wrong = await svc(stack, who, ["import", "--from", "jsonl", encrypted]);
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /is a file of svc export \(encrypted\): import it without --from/);
});

Deno.test("CLI: the passphrase never comes from a flag, and is asked for or refused", async () => {
  await using stack = await startStack();
  const who = await stack.test.newCaller();
  const file = `${stack.dir}/x.svc`;
  const flag = await svc(stack, who, ["export", "-o", file, "--passphrase", PASSPHRASE]);
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /never given as a flag/);
  const none = await svc(stack, who, ["export", "-o", file]);
  assert.equal(none.code, 2);
  assert.match(
    none.stderr,
    /no passphrase: give --passphrase-file PATH, set SVC_EXPORT_PASSPHRASE/,
  );
  const short = await svc(stack, who, ["export", "-o", file], "short");
  assert.equal(short.code, 2);
  assert.match(short.stderr, /at least 8 characters/);
  const both = await svc(
    stack,
    who,
    ["export", "--all", "--namespace", "a", "-o", file],
    PASSPHRASE,
  );
  assert.equal(both.code, 2);
  await assert.rejects(Deno.stat(file), Deno.errors.NotFound);
});

Deno.test("CLI: import --from mcp-memory and --from mem0 read sample files; re-running adds nothing", async () => {
  await using stack = await startStack();
  const who = await stack.test.newCaller();
  const client = await clientOf(stack, who);

  // As the reference MCP memory server's saveGraph writes memory.jsonl, with one bad line.
  const graph = `${stack.dir}/memory.jsonl`;
  await Deno.writeTextFile(
    graph,
    [
      JSON.stringify({
        type: "entity",
        name: "Alice",
        entityType: "person",
        observations: ["Speaks fluent Spanish", "Runs marathons"],
      }),
      "{this is not json",
      JSON.stringify({ type: "entity", name: "Acme", entityType: "company", observations: [] }),
      JSON.stringify({ type: "relation", from: "Alice", to: "Acme", relationType: "works_at" }),
    ].join("\n"),
  );
  const first = await svc(stack, who, [
    "import",
    "--from",
    "mcp-memory",
    graph,
    "--namespace",
    "graph",
    "--wait",
  ]);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(
    first.stdout,
    `imported 4 memories from ${graph}; 0 already known (skipped)\n1 not imported:\n` +
      "  line 2: not valid JSON\n",
  );
  const listed = await client.list({ namespace: "graph" });
  assert.deepEqual(
    listed.memories.map((m) => [m.text, m.tags]).toReversed(),
    [
      ["Alice: Speaks fluent Spanish", ["Alice", "person"]],
      ["Alice: Runs marathons", ["Alice", "person"]],
      ["Acme is a company", ["Acme", "company"]],
      ["Alice works_at Acme", ["Alice", "Acme"]],
    ],
  );
  const recalled = await client.recall("where does Alice work", { namespace: "graph", limit: 1 });
  assert.equal(recalled.results[0].text, "Alice works_at Acme");

  // As mem0's Memory.getAll() answers.
  const mem0 = `${stack.dir}/mem0.json`;
  await Deno.writeTextFile(
    mem0,
    JSON.stringify({
      results: [
        {
          id: "a1",
          memory: "Is allergic to peanuts",
          hash: "h1",
          createdAt: "2024-05-06T07:08:09.000Z",
          updatedAt: "2024-05-06T07:08:09.000Z",
          metadata: { category: "health" },
          user_id: "alice",
        },
        { id: "a2", memory: "Prefers window seats", metadata: {}, user_id: "alice" },
        { id: "a3", metadata: {} },
      ],
    }),
  );
  const fromMem0 = await svc(stack, who, ["import", "--from", "mem0", mem0, "--wait", "--json"]);
  assert.equal(fromMem0.code, 0, fromMem0.stderr);
  assert.deepEqual([fromMem0.json.imported, fromMem0.json.failed], [2, [{
    origin: "memory 3",
    error: "it has no memory text",
  }]]);
  const peanuts = (await client.list({ tags: ["user:alice", "category:health"] })).memories;
  assert.deepEqual(peanuts.map((m) => [m.text, m.created_at]), [[
    "Is allergic to peanuts",
    "2024-05-06T07:08:09.000Z",
  ]]);

  for (const args of [["mcp-memory", graph, "--namespace", "graph"], ["mem0", mem0]]) {
    const again = await svc(stack, who, ["import", "--from", ...args, "--json"]);
    assert.equal(again.json.imported, 0, again.stdout);
  }
  assert.equal((await exported(client)).length, 6);

  // With --wait, memories that fail to store make the import exit 1.
  stack.test.blobs.put = () => Promise.reject(new SvcError("bad_request", "No room for it"));
  const later = `${stack.dir}/later.json`;
  await Deno.writeTextFile(later, JSON.stringify([{ id: "b1", memory: "Owns a kayak" }]));
  const refused = await svc(stack, who, ["import", "--from", "mem0", later, "--wait", "--json"]);
  assert.equal(refused.code, 1, refused.stdout);
  assert.deepEqual([refused.json.imported, refused.json.failed_jobs], [1, 1]);
});
