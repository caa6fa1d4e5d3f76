/**
 * What `svc import` (cli/svc.ts run in-process) makes of the files it is given, before
 * anything is sent to the relayer on a loopback port: a file of another format than its
 * `--from` (or none) is refused naming the right one, and one that is not UTF-8 naming its line.
 * A pipe or a device, read as `deno task svc` reads it, is refused by its start when it is not
 * an export, and is otherwise copied to a temporary file that does not stay.
 */
import assert from "node:assert/strict";
import { encryptExport } from "../cli/portable/export_file.ts";
import { clientOf, exported, PASSPHRASE, startStack, svc } from "./cli_fixtures.ts";

const lines = (...values: unknown[]) => values.map((value) => JSON.stringify(value)).join("\n");

Deno.test("CLI: import refuses a file of another format than its --from, naming the right one", async () => {
  await using stack = await startStack();
  const who = await stack.test.newCaller();
  const client = await clientOf(stack, who);
  const graph = `${stack.dir}/memory.jsonl`;
  await Deno.writeTextFile(
    graph,
    lines(
      { type: "entity", name: "Alice", entityType: "person", observations: ["Runs marathons"] },
      { type: "relation", from: "Alice", to: "Acme", relationType: "works_at" },
    ) + "\n",
  );
  const mem0 = `${stack.dir}/mem0.json`;
  await Deno.writeTextFile(
    mem0,
    JSON.stringify({ results: [{ id: "a1", memory: "Likes tea", user_id: "alice" }] }, null, 2),
  );
  const api = `${stack.dir}/export.jsonl`;
  await Deno.writeTextFile(api, lines({ text: "I am vegetarian", namespace: "default" }) + "\n");
  // mem0's file saved with a byte order mark; JSON lines whose first is a list (a broken line).
  const marked = `${stack.dir}/mem0-bom.json`;
  await Deno.writeTextFile(marked, "\uFEFF" + JSON.stringify([{ memory: "Likes green tea" }]));
  const listed = `${stack.dir}/listed.jsonl`;
  await Deno.writeTextFile(listed, lines([1, 2], { text: "I keep bees" }) + "\n");

  const names = {
    jsonl: "the JSON lines of GET /api/export",
    "mcp-memory": "the MCP memory server's graph \\(entities and relations\\)",
    mem0: "mem0's memories \\(JSON\\)",
  };
  for (
    const [file, from, right] of [
      [graph, "jsonl", "mcp-memory"],
      [graph, "mem0", "mcp-memory"],
      [mem0, "jsonl", "mem0"],
      [mem0, "mcp-memory", "mem0"],
      [api, "mcp-memory", "jsonl"],
      [api, "mem0", "jsonl"],
    ] as const
  ) {
    const run = await svc(stack, who, ["import", "--from", from, file, "--json"]);
    assert.equal(run.code, 2, `${from} ${file}: ${run.stdout}`);
    assert.equal(run.json.code, "usage");
    assert.match(
      run.json.error as string,
      new RegExp(
        `^${file} is ${names[right]}, not ${names[from]}: import it with --from ${right}$`,
      ),
    );
  }
  for (
    const [file, right] of [
      [graph, "mcp-memory"],
      [mem0, "mem0"],
      [api, "jsonl"],
      [marked, "mem0"],
      [listed, "jsonl"],
    ] as const
  ) {
    const run = await svc(stack, who, ["import", file], PASSPHRASE);
    assert.equal(run.code, 2, run.stdout);
    assert.match(
      run.stderr,
      new RegExp(
        `^svc: ${file} is not a file of svc export but ${names[right]}: import it with ` +
          `--from ${right}\\n`,
      ),
    );
  }
  // An export's header that is not its first line: the file was changed since it was written.
  const moved = `${stack.dir}/moved.svc`;
  await Deno.writeTextFile(
    moved,
    "\n" + JSON.stringify({ format: "svc-export", version: 1 }) + "\n",
  );
  const changed = await svc(stack, who, ["import", moved], PASSPHRASE);
  assert.equal(changed.code, 2, changed.stdout);
  assert.match(
    changed.stderr,
    /^svc: \S+moved\.svc holds the header of an svc export, but not as its first line of at most 4 KiB/,
  );
  assert.deepEqual(await exported(client), [], "nothing was sent");

  for (
    const [file, from, imported, failed] of [
      [graph, "mcp-memory", 2, 0],
      [mem0, "mem0", 1, 0],
      [api, "jsonl", 1, 0],
      [marked, "mem0", 1, 0],
      [listed, "jsonl", 1, 1],
    ] as const
  ) {
    const run = await svc(stack, who, ["import", "--from", from, file, "--json"]);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(
      [run.json.imported, (run.json.failed as unknown[]).length],
      [imported, failed],
      file,
    );
  }
});

Deno.test("CLI: import refuses a file that is not UTF-8, naming the line, before sending anything", async () => {
  await using stack = await startStack();
  const who = await stack.test.newCaller();
  const client = await clientOf(stack, who);
  const encode = (text: string) => [...new TextEncoder().encode(text)];
  const api = `${stack.dir}/latin1.jsonl`;
  await Deno.writeFile(
    api,
    new Uint8Array([
      ...encode('{"text":"I am vegetarian"}\n{"text":"Caf'),
      0xe9, // é in Latin-1
      ...encode('"}\n'),
    ]),
  );
  const mem0 = `${stack.dir}/mem0.json`;
  await Deno.writeFile(
    mem0,
    new Uint8Array([
      ...encode('[\n  {"memory": "Likes tea"},\n  {"memory": "'),
      0xff,
      ...encode('"}\n]'),
    ]),
  );
  for (
    const [file, from, line] of [[api, "jsonl", 2], [mem0, "mem0", 3], [api, undefined, 2]] as const
  ) {
    const run = await svc(
      stack,
      who,
      from ? ["import", "--from", from, file] : ["import", file],
      PASSPHRASE,
    );
    assert.equal(run.code, 2, run.stdout);
    assert.match(
      run.stderr,
      new RegExp(
        `^svc: Cannot import ${file}: line ${line} is not UTF-8 text \\(nothing was sent\\)`,
      ),
    );
  }
  assert.deepEqual(await exported(client), [], "nothing was sent");
});

Deno.test("CLI: an import refused part-way says what the requests before it imported", async () => {
  await using stack = await startStack();
  const owner = await stack.test.newCaller();
  const who = await stack.test.addKey(owner, { scope: { namespaces: ["work"] } });
  const file = `${stack.dir}/scoped.jsonl`;
  // A request carries 500 lines: the second holds a namespace the key may not use.
  const texts = Array.from({ length: 600 }, (_, i) => ({
    text: `Note ${i}: item ${i * 7}`,
    namespace: i < 500 ? "work" : "default",
  }));
  await Deno.writeTextFile(file, lines(...texts) + "\n");
  const run = await svc(stack, who, ["import", "--from", "jsonl", file]);
  assert.equal(run.code, 1, run.stdout);
  assert.match(
    run.stderr,
    /may not use namespace "default".* \(the first 500 lines were taken before: 500 imported, 0 already known; importing the file again skips what was taken\)/s,
  );
});

Deno.test("CLI: import reads a pipe with bounded memory, refusing one that is not an export by its start", async () => {
  await using stack = await startStack();
  const who = await stack.test.newCaller();
  const client = await clientOf(stack, who);
  const temporary = `${stack.dir}/tmp`;
  await Deno.mkdir(temporary);
  // As `deno task svc` runs, with its temporary folder here.
  const run = (args: string[]) =>
    svc(stack, who, args, { passphrase: PASSPHRASE, env: { TMPDIR: temporary }, process: true });
  const left = async () => (await Array.fromAsync(Deno.readDir(temporary))).map((e) => e.name);

  // Endless zeros: refused after their start, without --from and with it.
  const zeros = await run(["import", "/dev/zero"]);
  assert.equal(zeros.code, 2, zeros.stdout);
  assert.match(
    zeros.stderr,
    /^svc: \/dev\/zero is not a file of svc export: for the JSON lines of GET \/api\/export give --from jsonl/,
  );
  const read = await run(["import", "--from", "jsonl", "/dev/zero"]);
  assert.equal(read.code, 2, read.stdout);
  assert.match(
    read.stderr,
    /^svc: Cannot import \/dev\/zero: a file other than an svc export may be at most 256 MiB \(nothing was sent\)/,
  );

  const pipe = `${stack.dir}/pipe`;
  assert.equal((await new Deno.Command("mkfifo", { args: [pipe] }).output()).code, 0);
  const through = async (bytes: Uint8Array | ReadableStream<Uint8Array>, args: string[]) => {
    const writing = Deno.writeFile(pipe, bytes).catch(() => {}); // refused, it is not read whole
    const done = await run([...args, pipe]);
    await writing;
    return done;
  };
  const text = lines({ text: "I keep bees" }, { text: "My flat is on the third floor" }) + "\n";
  const jsonl = await through(new TextEncoder().encode(text), ["import"]);
  assert.equal(jsonl.code, 2, jsonl.stdout);
  assert.match(
    jsonl.stderr,
    /is not a file of svc export but the JSON lines of GET \/api\/export: import it with --from jsonl/,
  );
  assert.deepEqual(await exported(client), [], "nothing was sent");

  const file = ReadableStream.from([new TextEncoder().encode(text)])
    .pipeThrough(await encryptExport(PASSPHRASE, { iterations: 1000, chunkBytes: 1024 }));
  const imported = await through(file, ["import", "--json"]);
  assert.equal(imported.code, 0, imported.stderr);
  assert.deepEqual([imported.json.imported, imported.json.failed], [2, []]);
  assert.deepEqual(await left(), [], "the pipe's copy was removed");
});
