/**
 * The operator CLI's command line (`cli/svc.ts` run as a process against a relayer on a loopback
 * port): flags given twice, checked before anything is sent.
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
