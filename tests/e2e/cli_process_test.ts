/**
 * The operator CLI (`cli/svc.ts`) as a process of its own: its exit codes, and relative paths
 * under `deno task` and in a process's own folder.
 */
import assert from "node:assert/strict";
import { rememberAll } from "../fixtures.ts";
import { clientOf, PASSPHRASE, startStack, svc } from "../cli_fixtures.ts";
import { taskCommand } from "../task_flags.ts";

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
  const stale = { cwd: here, env: { INIT_CWD: "/nonexistent-svc-folder" }, process: true };
  const own = await svc(stack, who, ["export", "-o", "own.svc", ...args, "--json"], stale);
  assert.equal(own.code, 0, own.stderr);
  assert.equal(own.json.file, "own.svc");
  assert.ok((await Deno.stat(`${here}/own.svc`)).isFile);
});

Deno.test("CLI: no command: the help on stderr, and with --json one error that says what is missing", async () => {
  const run = (args: string[]) =>
    new Deno.Command(Deno.execPath(), {
      args: taskCommand("svc", args),
      env: { SVC_DATA_DIR: "/nonexistent-svc-cli-test" },
      stdin: "null",
    }).output();
  const json = await run(["--json"]);
  assert.equal(json.code, 2);
  assert.deepEqual(JSON.parse(new TextDecoder().decode(json.stdout)), {
    error: "no command given: `svc --help` lists every command",
    code: "usage",
  });
  const text = await run([]);
  assert.equal(text.code, 2);
  assert.equal(new TextDecoder().decode(text.stdout), "");
  assert.match(new TextDecoder().decode(text.stderr), /^usage: svc <command> \[options\]/);
});

Deno.test("CLI: with stdout closed early (`| head`), an error goes to stderr, not as a crash", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: taskCommand("svc", ["bogus", "--json"]),
    env: { SVC_DATA_DIR: "/nonexistent-svc-cli-test" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  await child.stdout.cancel(); // as `head -c 0` closes the pipe before anything is written
  const { code, stderr } = await child.output();
  const said = new TextDecoder().decode(stderr);
  assert.equal(code, 2, said);
  assert.doesNotMatch(said, /Uncaught|BrokenPipe/);
  assert.match(said, /^svc: unknown command: bogus/);
});
