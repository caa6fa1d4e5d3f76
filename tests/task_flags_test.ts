/**
 * The tests and benchmarks start the relayer, the operator CLI and `svc-mcp` with the flags of
 * the deno.json task each stands for, so a permission the task lacks fails a test too.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  denoTasks,
  parseRunCommand,
  type ProductTask,
  TASK_ENTRIES,
  taskCommand,
  taskRunCommand,
} from "./task_flags.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TASKS = Object.keys(TASK_ENTRIES) as ProductTask[];

Deno.test("task flags: the harness runs each task's command line, word for word", () => {
  for (const task of TASKS) {
    const words = denoTasks()[task].split(" ");
    assert.deepEqual(words.slice(0, 2), ["deno", "run"]);
    assert.deepEqual(taskCommand(task, ["--json"]), [
      ...words.slice(1, -1),
      `${ROOT}${TASK_ENTRIES[task]}`,
      "--json",
    ]);
    assert.ok(!words.includes("--allow-all") && !words.includes("-A"), denoTasks()[task]);
  }
});

Deno.test("task flags: a task the harness cannot reproduce is refused, not half read", () => {
  assert.deepEqual(parseRunCommand("deno  run --allow-net --v8-flags=--x main.ts"), {
    flags: ["--allow-net", "--v8-flags=--x"],
    entry: "main.ts",
  });
  for (const command of ["deno task start", "deno run main.ts --port 1", "deno run a.ts && b"]) {
    assert.throws(() => parseRunCommand(command), /^Error: Cannot read the task: /);
  }
  assert.throws(
    () => taskRunCommand("svc", "/nonexistent-svc-root/"),
    (error: Error) => error instanceof Deno.errors.NotFound,
  );
});

/** The flags of one `deno compile … -o NAME FILE` of the compile task, by the file it builds. */
function compiledFlags(): Map<string, string[]> {
  const built = new Map<string, string[]>();
  for (const part of denoTasks().compile.split(" && ")) {
    const words = part.trim().split(/\s+/);
    assert.deepEqual(words.slice(0, 2), ["deno", "compile"], part);
    const flags: string[] = [];
    for (let i = 2; i < words.length - 1; i++) {
      if (words[i] === "--include" || words[i] === "-o") i++;
      else flags.push(words[i]);
    }
    built.set(words.at(-1)!, flags);
  }
  return built;
}

Deno.test("task flags: deno task compile gives each binary the flags of its deno task", () => {
  const built = compiledFlags();
  for (const task of ["start", "svc-mcp"] as const) {
    const { flags, entry } = taskRunCommand(task);
    assert.deepEqual(
      built.get(entry),
      flags,
      `deno task compile builds ${entry} as ${task} runs it`,
    );
  }
});

/** The files under `dir` (relative to the root) whose names end with one of `extensions`. */
async function* sourceFiles(dir: string, extensions: string[]): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(`${ROOT}${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory && !["results", "__pycache__", ".venv"].includes(entry.name)) {
      yield* sourceFiles(path, extensions);
    } else if (entry.isFile && extensions.some((extension) => path.endsWith(extension))) {
      yield path;
    }
  }
}

/** A product entry file named in code, and a hand-written grant of every permission. */
const PRODUCT_ENTRY = /\b(main|cli\/svc|svc_mcp|sidecar)\.ts\b/;
const ALL_PERMISSIONS = /["'`](--allow-all|-A)["'`]/;

Deno.test("task flags: no test or benchmark that names a product entry file grants every permission", async () => {
  const offenders: string[] = [];
  for (const dir of ["tests", "bench", "sdk/python/tests"]) {
    for await (const path of sourceFiles(dir, [".ts", ".py"])) {
      if (path === "tests/task_flags_test.ts") continue;
      const text = await Deno.readTextFile(`${ROOT}${path}`);
      if (PRODUCT_ENTRY.test(text) && ALL_PERMISSIONS.test(text)) offenders.push(path);
    }
  }
  assert.deepEqual(offenders, [], "use taskCommand (tests/task_flags.ts) or sidecarRunArgs");
});
