/**
 * SQLite refuses a write while another handle on the same file holds its write lock ("database
 * is locked"), as when several processes, or several stores of one, share a Deno KV file. Nothing
 * of a refused commit landed, so it is tried again.
 *
 * @example
 * ```ts ignore
 * const result = await retryWhileLocked(() => kv.atomic().set(["a"], 1).commit());
 * ```
 */

/** Whether `error` is SQLite's "database is locked": nothing of the commit landed. */
export function isLocked(error: unknown): boolean {
  return error instanceof Error && error.message.includes("database is locked");
}

/**
 * Runs `commit`, again while the file is locked (`attempts` times at most, waiting 10, 20, 40 … up to 250
 * ms with jitter); any other error, or the last one, is thrown.
 */
export async function retryWhileLocked<T>(commit: () => Promise<T>, attempts = 8): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      return await commit();
    } catch (error) {
      if (!isLocked(error) || attempt >= attempts) throw error;
      const ms = Math.min(10 * 2 ** (attempt - 1), 250);
      await new Promise((resolve) => setTimeout(resolve, ms / 2 + Math.random() * ms / 2));
    }
  }
}
