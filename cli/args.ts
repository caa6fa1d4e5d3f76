/** What the CLIs say of a command line `parseArgs` refused, and the paths it names. */
import { isAbsolute, resolve } from "node:path";

/** A flag as `parseArgs` (with `tokens: true`) saw it. */
export interface FlagToken {
  kind: string;
  name?: string;
  rawName?: string;
  value?: string;
}

/**
 * Why the command line cannot be taken if a flag that takes a value is given more than once
 * (`parseArgs` keeps the last value and drops the others without a word), unless `collecting`
 * names it; `undefined` when none is. A flag without a value (`--json`) may be repeated.
 */
export function repeatedFlag(
  tokens: readonly FlagToken[],
  collecting: readonly string[] = [],
): string | undefined {
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== "option" || token.value === undefined || !token.name) continue;
    if (collecting.includes(token.name)) continue;
    // Not the values: one may be a key (`--key`).
    if (seen.has(token.name)) {
      return `${token.rawName ?? `--${token.name}`} is given twice: it takes one value`;
    }
    seen.add(token.name);
  }
  return undefined;
}

/** Every value given for the flag `name`, in order. */
export function flagValues(tokens: readonly FlagToken[], name: string): string[] {
  return tokens.flatMap((token) =>
    token.kind === "option" && token.name === name && token.value !== undefined ? [token.value] : []
  );
}

/**
 * The message of `error`, with `parseArgs`'s refusals of an unknown flag and of a value that
 * begins with a dash said in one line each.
 */
export function argsMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const ambiguous = message.match(/^Option '([^']+)' argument is ambiguous/);
  if (ambiguous) {
    return `${ambiguous[1]} takes a value that begins with a dash as ${ambiguous[1]}=VALUE`;
  }
  const unknown = message.match(/^Unknown option '([^']+)'/);
  if (!unknown) return message;
  // A dash before no letter starts a text, not a flag: such a text goes after `--`.
  const text = /^-[^-a-zA-Z]/.test(unknown[1])
    ? " (a text that begins with a dash goes after --)"
    : "";
  return `unknown option ${unknown[1]}${text}`;
}

/**
 * A file's path given on the command line, as this process opens it. `deno task` runs the CLI in
 * the folder of its `deno.json` (`taskFolder`) and sets `INIT_CWD` to the folder it was started
 * in, against which a relative path is resolved. Only in `taskFolder`: a process elsewhere that
 * inherited an `INIT_CWD` (run from inside another task or npm script) is not such a task.
 */
export function callerPath(
  path: string,
  initCwd: string | undefined,
  cwd: string,
  taskFolder: string | undefined,
): string {
  if (!initCwd || isAbsolute(path) || taskFolder === undefined) return path;
  return resolve(cwd) === resolve(taskFolder) ? resolve(initCwd, path) : path;
}
