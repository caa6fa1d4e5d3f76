/**
 * A bench's command line. A flag it does not take, or a value that is not what its flag
 * takes, ends the bench with one line on stderr and exit code 2, before anything starts.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

/** Ends the bench for a bad command line. */
export function usage(problem: string): never {
  console.error(problem);
  Deno.exit(2);
}

/** `Deno.args` read with `config` (its `args` is filled in). */
export function flags<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs({ args: Deno.args, ...config } as T);
  } catch (error) {
    const known = Object.keys(config.options ?? {}).map((name) => `--${name}`).join(", ");
    return usage(`${(error as Error).message}; this bench takes ${known}`);
  }
}

/** A whole number of at least `min`. */
export function whole(value: string | undefined, flag: string, min = 1): number {
  const number = Number(value);
  if (!/^\d+$/.test(value ?? "") || number < min) {
    usage(`${flag} must be a whole number of at least ${min}, not "${value}"`);
  }
  return number;
}

/** A comma-separated list of whole numbers of at least `min`. */
export function wholes(value: string | undefined, flag: string, min = 1): number[] {
  return (value ?? "").split(",").filter(Boolean).map((item) => whole(item, flag, min));
}

/** A number above 0 (a duration, a score). */
export function positive(value: string | undefined, flag: string): number {
  const number = Number(value);
  if (value === undefined || value.trim() === "" || !(number > 0) || !Number.isFinite(number)) {
    usage(`${flag} must be a number above 0, not "${value}"`);
  }
  return number;
}

/** A comma-separated list whose items are each one of `known`. */
export function oneOf<K extends string>(
  value: string | undefined,
  flag: string,
  known: readonly K[],
): K[] {
  const items = (value ?? "").split(",").filter(Boolean);
  const unknown = items.find((item) => !known.includes(item as K));
  if (unknown !== undefined || items.length === 0) {
    usage(`${flag} takes ${known.join(", ")} (comma-separated), not "${unknown ?? value}"`);
  }
  return items as K[];
}
