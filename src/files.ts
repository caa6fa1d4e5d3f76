/**
 * Whether something is at a path, for the few places that branch on it (JSR's `@std/fs` is not
 * reachable from this project's build machines).
 *
 * @example
 * ```ts
 * if (await pathExists("./data/index.kv")) console.log("an index is there");
 * ```
 * @module
 */

/** Whether `path` exists (a file, a folder, or what a link points to); other errors throw. */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
