/**
 * Whether something is at a path, for the few places that branch on it (JSR's `@std/fs` is not
 * reachable from this project's build machines), a file operation that may find no file, and a
 * cache file written whole or not at all.
 *
 * @example
 * ```ts
 * if (await pathExists("./data/index.kv")) console.log("an index is there");
 * ```
 * @module
 */

/** Whether `path` exists (a file, a folder, or what a link points to); other errors throw. */
export async function pathExists(path: string): Promise<boolean> {
  return await nullIfMissing(Deno.stat(path)) !== null;
}

/**
 * What a file operation resolves to, or `null` when it failed for want of the file
 * (`Deno.errors.NotFound`); other errors throw.
 */
export async function nullIfMissing<T>(operation: Promise<T>): Promise<T | null> {
  try {
    return await operation;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/**
 * Writes `bytes` to `path` (its folder made owner-only), whole or not at all: through a temporary
 * file renamed into place. A cache is optional: where it cannot be written (a read-only folder),
 * nothing is left behind and `false` comes back.
 */
export async function writeCache(path: string, bytes: Uint8Array): Promise<boolean> {
  const temporary = `${path}.${crypto.randomUUID()}.tmp`;
  try {
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")) || ".", { recursive: true, mode: 0o700 });
    await Deno.writeFile(temporary, bytes, { mode: 0o600 });
    await Deno.rename(temporary, path);
    return true;
  } catch {
    await Deno.remove(temporary).catch(() => {});
    return false;
  }
}
