/**
 * The README's own examples, run as a user runs them, against a relayer started as the README
 * starts it (`deno task start`'s flags, its default embedder): the terminal quick start line by
 * line with `deno task svc`'s flags, then the TypeScript SDK snippet saved as the README says and
 * run with the `deno run` command it gives. The only change is the relayer's address: the test's
 * relayer takes a free port (`SVC_PORT`), since a user's own may hold 8000. The Python snippet
 * runs in `sdk/python/tests/test_readme.py`, where the SDK is installed.
 */
import assert from "node:assert/strict";
import { codeBlockAfter, readme, shellWords } from "../readme_blocks.ts";
import { freePort, ROOT, startRelayer, TEST_KEYS_DIR } from "../relayer_process.ts";
import { taskCommand } from "../task_flags.ts";

/** The README's address of the relayer, which the test's relayer replaces. */
const README_URL = "http://127.0.0.1:8000";

/** A terminal session: its environment, and what the commands printed that the README reuses. */
interface Terminal {
  env: Record<string, string>;
  /** The account id `svc account create` printed. */
  account?: string;
  /** The delegate private key `svc key add` printed. */
  key?: string;
}

/** This process's environment without any `SVC_*` setting of the machine's. */
function cleanEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([name]) => !name.startsWith("SVC_")),
  );
}

/** `word` with the README's placeholders filled in: `0x…` the account id, `…` the key. */
function fillIn(word: string, terminal: Terminal): string {
  return word.replace(/0x…|…/g, (placeholder) => {
    const value = placeholder === "0x…" ? terminal.account : terminal.key;
    if (value === undefined) throw new Error(`"${word}" comes before anything printed it`);
    return value;
  });
}

/** Runs one line of the README's terminal block; returns what it printed on stdout. */
async function runLine(line: string, terminal: Terminal): Promise<string> {
  const words = shellWords(line).map((word) => fillIn(word, terminal));
  if (words.length === 0) return "";
  if (words[0] === "export") {
    for (const assignment of words.slice(1)) {
      const [name, ...value] = assignment.split("=");
      terminal.env[name] = value.join("=");
    }
    return "";
  }
  assert.deepEqual(words.slice(0, 3), ["deno", "task", "svc"], `not run by the test: ${line}`);
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: taskCommand("svc", words.slice(3)),
    env: terminal.env,
    clearEnv: true,
    cwd: ROOT,
  }).output();
  const printed = new TextDecoder().decode(stdout);
  const errors = new TextDecoder().decode(stderr);
  assert.equal(code, 0, `${line}\nexited ${code}: ${printed}${errors}`);
  terminal.account ??= printed.match(/^account\s+(0x[0-9a-f]+)$/m)?.[1];
  terminal.key ??= printed.match(/^private key\s+([0-9a-f]+)$/m)?.[1];
  return printed;
}

/**
 * Saves the README's TypeScript snippet in the checkout (where its `./src/client/mod.ts` import
 * points), as its `memory.ts`, and runs it with the README's `deno run` command.
 */
async function runTypeScriptSnippet(markdown: string, url: string, env: Record<string, string>) {
  const snippet = codeBlockAfter(markdown, "TypeScript, from this repository", "ts");
  assert.ok(snippet.includes(README_URL), "the snippet no longer calls the README's relayer");
  const command = markdown.match(/`deno run ([^`]*) memory\.ts`/);
  assert.ok(command, "the README no longer says how to run memory.ts");
  const file = await Deno.makeTempFile({ dir: ROOT, prefix: "readme-memory-", suffix: ".ts" });
  try {
    await Deno.writeTextFile(file, snippet.replaceAll(README_URL, url));
    return await new Deno.Command(Deno.execPath(), {
      args: ["run", ...command[1].split(/\s+/), file],
      env,
      clearEnv: true,
      cwd: ROOT,
    }).output();
  } finally {
    await Deno.remove(file);
  }
}

Deno.test("README: the terminal quick start and the TypeScript snippet run as written", async (t) => {
  const markdown = await readme();
  const dataDir = await Deno.makeTempDir({ prefix: "svc-readme-" });
  const port = freePort();
  try {
    // The README's default embedder (`SVC_EMBEDDER` unset, the model hub out of reach: `use`).
    await using relayer = await startRelayer(dataDir, {
      SVC_PORT: String(port),
      SVC_EMBEDDER: "",
    });
    assert.equal(relayer.url, `http://127.0.0.1:${port}`);
    const terminal: Terminal = {
      env: {
        ...cleanEnv(),
        SVC_DATA_DIR: dataDir,
        SVC_KEYS_DIR: TEST_KEYS_DIR,
        SVC_PORT: `${port}`,
      },
    };

    await t.step("the terminal quick start recalls what it remembered", async () => {
      const block = codeBlockAfter(markdown, "First memory, from a terminal", "sh");
      const printed: string[] = [];
      for (const line of block.trim().split("\n")) printed.push(await runLine(line, terminal));
      assert.match(block.trim().split("\n").at(-1)!, /^deno task svc recall "what do I eat\?"/);
      assert.match(printed.at(-1)!, /I am vegetarian/);
    });

    await t.step("the TypeScript snippet prints the memory it remembered", async () => {
      const { code, stdout, stderr } = await runTypeScriptSnippet(
        markdown,
        relayer.url,
        terminal.env,
      );
      const errors = new TextDecoder().decode(stderr);
      assert.equal(code, 0, errors);
      assert.equal(new TextDecoder().decode(stdout), "I am vegetarian\n", errors);
    });
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
