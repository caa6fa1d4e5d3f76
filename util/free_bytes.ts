/**
 * The free space of the disk holding a path, as `statfs` reports it to an unprivileged user
 * (`bavail`): a path not made yet is measured on its nearest existing parent.
 *
 * @example
 * ```ts
 * const free = await freeBytes("./data");
 * if (free < 64 * 1024 * 1024) console.log("under 64 MiB left");
 * ```
 * @module
 */
import { statfs } from "node:fs/promises";
import { dirname } from "node:path";

/** The free bytes of the disk holding `path` (or its nearest existing parent). */
export async function freeBytes(path: string): Promise<number> {
  for (let at = path;; at = dirname(at)) {
    try {
      const { bavail, bsize } = await statfs(at);
      return Number(bavail) * Number(bsize);
    } catch (error) {
      if ((error as { code?: string }).code !== "ENOENT" || at === dirname(at)) throw error;
    }
  }
}
