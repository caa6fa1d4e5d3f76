/**
 * The free space of the data directory's disk, as the relayer keeps an eye on it: SQLite and
 * Deno KV fail (Deno KV's queue, fatally) on a full disk, so the relayer stops writing while the
 * space left is under a floor (`SVC_MIN_FREE_MB`) and goes on once there is room again. Reads and
 * erases (which free space) go on throughout.
 *
 * @example
 * ```ts
 * const disk = await DiskSpace.watch("./data", 64 * 1024 * 1024, logger);
 * disk.refusal(); // undefined while there is room, else the 503 a write gets
 * disk.stop();
 * ```
 */
import { freeBytes } from "@svc/util/free_bytes";
import { SvcError } from "../src/errors.ts";
import type { Logger } from "../src/log.ts";

/** How often the free space is read. */
const CHECK_MS = 2_000;
/** What a client refused for lack of space is told to wait, in seconds. */
const RETRY_SECONDS = 30;
const MB = 1024 * 1024;

/** Why a start on a disk with `free` bytes, under `floor`, is refused; `undefined` when not. */
export function startRefusal(dataDir: string, free: number, floor: number): string | undefined {
  if (free >= floor) return undefined;
  return `the disk of the data directory (${dataDir}) has ${Math.floor(free / MB)} MB free; ` +
    `the relayer needs ${Math.ceil(floor / MB)} MB (SVC_MIN_FREE_MB). Free some space, or ` +
    "lower SVC_MIN_FREE_MB";
}

/** The data directory's free space, read every few seconds; see the module documentation. */
export class DiskSpace {
  #free: number;
  #floor: number;
  #timer?: ReturnType<typeof setInterval>;

  private constructor(free: number, floor: number) {
    this.#free = free;
    this.#floor = floor;
  }

  /**
   * Watches the disk of `dir` against `floor` bytes, logging when writes stop and resume;
   * `read` gives the free bytes (the disk's own by default).
   */
  static async watch(
    dir: string,
    floor: number,
    logger: Logger,
    read: (dir: string) => Promise<number> = freeBytes,
  ): Promise<DiskSpace> {
    const disk = new DiskSpace(await read(dir), floor);
    disk.#timer = setInterval(async () => {
      const was = disk.low;
      disk.#free = await read(dir).catch(() => disk.#free);
      const fields = { free_mb: Math.floor(disk.#free / MB), floor_mb: Math.ceil(floor / MB) };
      if (!was && disk.low) {
        logger.warn("the data directory's disk is full: writes refused", fields);
      }
      if (was && !disk.low) {
        logger.info("the data directory's disk has room: writes resume", fields);
      }
    }, CHECK_MS);
    Deno.unrefTimer(disk.#timer);
    return disk;
  }

  /** The free bytes, as last read. */
  get free(): number {
    return this.#free;
  }

  /** Whether the free space is under the floor. */
  get low(): boolean {
    return this.#free < this.#floor;
  }

  /** The 503 a write gets while the space is under the floor; `undefined` while there is room. */
  refusal(): SvcError | undefined {
    if (!this.low) return undefined;
    return new SvcError(
      "backend_unavailable",
      "Cannot store anything now: the relayer's disk is full. Reads and erases still work; " +
        `try again in ${RETRY_SECONDS} s`,
      {
        details: { reason: "disk_full", retry_after_seconds: RETRY_SECONDS },
        headers: { "retry-after": String(RETRY_SECONDS) },
      },
    );
  }

  /** Stops watching. */
  stop(): void {
    clearInterval(this.#timer);
  }
}
