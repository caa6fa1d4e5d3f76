/**
 * The `deno run` arguments of the deno.json tasks that start the product's processes, so the
 * tests and benchmarks run the relayer, the operator CLI and `svc-mcp` with the very permissions
 * `deno task start`, `deno task svc` and `deno task svc-mcp` give them, never more.
 *
 * @example
 * ```ts
 * import { taskCommand } from "./task_flags.ts";
 * const args = taskCommand("svc"); // ["run", "--allow-net", …, "/…/cli/svc.ts"]
 * new Deno.Command(Deno.execPath(), { args: [...args, "status"] });
 * ```
 */
import { fileURLToPath } from "node:url";

/** A deno.json task that runs one of the product's entry files. */
export type ProductTask = "start" | "svc" | "svc-mcp";

/** The entry file each task runs, relative to the checkout's root. */
export const TASK_ENTRIES: Readonly<Record<ProductTask, string>> = {
  start: "main.ts",
  svc: "cli/svc.ts",
  "svc-mcp": "cli/svc_mcp.ts",
};

/** This checkout's root folder, where `deno.json` is (ends with a slash). */
const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** A `deno run` command line, split into its flags and the file it runs. */
export interface RunCommand {
  /** Everything between `deno run` and the entry file: permissions, `--unstable-kv`, … */
  flags: string[];
  /** The entry file, as the task names it (relative to the checkout's root). */
  entry: string;
}

/**
 * Splits a task's `deno run … FILE` command line; throws for anything else (a chain of
 * commands, arguments after the file), which this harness cannot reproduce.
 */
export function parseRunCommand(command: string): RunCommand {
  const words = command.trim().split(/\s+/);
  const at = words.findIndex((word, i) => i >= 2 && !word.startsWith("-"));
  if (words[0] !== "deno" || words[1] !== "run" || at !== words.length - 1) {
    throw new Error(`Cannot read the task: "${command}" is not "deno run FLAGS… FILE"`);
  }
  return { flags: words.slice(2, at), entry: words[at] };
}

const cache = new Map<string, Record<string, string>>();

/** The `tasks` of `root`'s deno.json (read once per checkout). */
export function denoTasks(root = ROOT): Record<string, string> {
  let tasks = cache.get(root);
  if (!tasks) {
    tasks = JSON.parse(Deno.readTextFileSync(`${root}deno.json`)).tasks as Record<string, string>;
    cache.set(root, tasks);
  }
  return tasks;
}

/** The task's `deno run` command, split; throws when it runs another file than its own. */
export function taskRunCommand(task: ProductTask, root = ROOT): RunCommand {
  const command = denoTasks(root)[task];
  if (command === undefined) {
    throw new Error(`Cannot read the task: ${root}deno.json has no "${task}"`);
  }
  const parsed = parseRunCommand(command);
  if (parsed.entry !== TASK_ENTRIES[task]) {
    throw new Error(
      `Cannot read the task: "${task}" runs ${parsed.entry}, not ${TASK_ENTRIES[task]}`,
    );
  }
  return parsed;
}

/** `["run", …flags]` of the task, to be followed by extra `deno run` flags and the entry file. */
export function taskRunArgs(task: ProductTask, root = ROOT): string[] {
  return ["run", ...taskRunCommand(task, root).flags];
}

/** The absolute path of the file the task runs in `root`. */
export function taskEntry(task: ProductTask, root = ROOT): string {
  return `${root}${TASK_ENTRIES[task]}`;
}

/**
 * The arguments of `deno` that start the task's process as `deno task` does: its flags, `extra`
 * (a benchmark's `--cpu-prof`), the entry file's absolute path, then `args` for the program.
 */
export function taskCommand(
  task: ProductTask,
  args: string[] = [],
  options: { root?: string; extra?: string[] } = {},
): string[] {
  const root = options.root ?? ROOT;
  return [...taskRunArgs(task, root), ...options.extra ?? [], taskEntry(task, root), ...args];
}
