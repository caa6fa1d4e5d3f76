/**
 * The operator CLI's command line (`cli/svc.ts` run as a process against a relayer on a loopback
 * port): flags given twice, checked before anything is sent; relative paths under `deno task`.
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

Deno.test("CLI: under deno task, relative paths are the folder's the task was started in", async () => {
  await using stack = await startStack();
  const who = await stack.test.newCaller();
  const client = await clientOf(stack, who);
  await rememberAll(stack.test, who, [{ text: "I am vegetarian" }]);
  const here = `${stack.dir}/here`;
  await Deno.mkdir(here);
  await Deno.writeTextFile(`${here}/passphrase.txt`, PASSPHRASE + "\n");
  const inHere = { cwd: here, task: true };
  const args = ["--passphrase-file", "passphrase.txt"];
  const saved = await svc(stack, who, ["export", "-o", "memories.svc", ...args, "--json"], inHere);
  assert.equal(saved.code, 0, saved.stderr);
  assert.equal(saved.json.file, `${here}/memories.svc`);
  assert.ok((await Deno.stat(`${here}/memories.svc`)).isFile);
  await client.forgetNamespace("default");
  const back = await svc(stack, who, ["import", "memories.svc", ...args, "--wait"], inHere);
  assert.equal(back.code, 0, back.stderr);
  assert.equal(
    back.stdout,
    `imported 1 memory from ${here}/memories.svc; 0 already known (skipped)\n`,
  );

  // INIT_CWD inherited by a process that `deno task` did not start (it runs elsewhere) is not
  // taken: its paths are its own folder's.
  const stale = { cwd: here, env: { INIT_CWD: "/nonexistent-svc-folder" } };
  const own = await svc(stack, who, ["export", "-o", "own.svc", ...args, "--json"], stale);
  assert.equal(own.code, 0, own.stderr);
  assert.equal(own.json.file, "own.svc");
  assert.ok((await Deno.stat(`${here}/own.svc`)).isFile);
});
