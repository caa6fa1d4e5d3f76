/**
 * Whether something is at a path, for the few places that branch on it (JSR's `@std/fs` is not
 * reachable from this project's build machines), a file operation that may find no file, and a
 * file (a cache file) written whole or not at all.
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
 * Writes `data` to `path` whole or not at all: into an owner-only temporary file beside it,
 * synced unless `sync` is false (a cache), then renamed into place; a crash leaves the old file or
 * the new. The temporary file is `path.<uuid>.tmp`, or `temporary` where the writer may write no
 * other name (one a crash left is replaced). On failure it is removed and the error thrown.
 */
export async function writeWhole(
  path: string,
  data: Uint8Array | string,
  { sync = true, temporary }: { sync?: boolean; temporary?: string } = {},
): Promise<void> {
  const named = temporary ?? `${path}.${crypto.randomUUID()}.tmp`;
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  try {
    if (temporary) await nullIfMissing(Deno.remove(temporary));
    {
      // Closed before the rename: Windows refuses to rename an open file.
      using file = await Deno.open(named, { write: true, createNew: true, mode: 0o600 });
      for (let at = 0; at < bytes.byteLength;) at += await file.write(bytes.subarray(at));
      if (sync) await file.sync();
    }
    await Deno.rename(named, path);
  } catch (error) {
    await Deno.remove(named).catch(() => {});
    throw error;
  }
}

/**
 * Writes `bytes` to `path` (its folder made owner-only) with `writeWhole`, unsynced. A cache is
 * optional: where it cannot be written (a read-only folder), nothing is left behind and `false`
 * comes back.
 */
export async function writeCache(path: string, bytes: Uint8Array): Promise<boolean> {
  try {
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")) || ".", { recursive: true, mode: 0o700 });
    await writeWhole(path, bytes, { sync: false });
    return true;
  } catch {
    return false;
  }
}
