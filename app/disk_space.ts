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
import type { Logger, SvcError } from "@svc/relayer/kit";
import { diskFull, type DiskRoom } from "@svc/relayer";

/** How often the free space is read. */
const CHECK_MS = 2_000;
const MB = 1024 * 1024;

/** Why a start on a disk with `free` bytes, under `floor`, is refused; `undefined` when not. */
export function startRefusal(dataDir: string, free: number, floor: number): string | undefined {
  if (free >= floor) return undefined;
  return `the disk of the data directory (${dataDir}) has ${Math.floor(free / MB)} MB free; ` +
    `the relayer needs ${Math.ceil(floor / MB)} MB (SVC_MIN_FREE_MB). Free some space, or ` +
    "lower SVC_MIN_FREE_MB";
}

/** The data directory's free space, read every few seconds; see the module documentation. */
export class DiskSpace implements DiskRoom {
  #free: number;
  #floor: number;
  #timer?: ReturnType<typeof setInterval>;
  #readsStarted = 1;
  #reading = 1;

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
      const number = ++disk.#readsStarted;
      const free = await read(dir).catch(() => undefined);
      if (free !== undefined && number > disk.#reading) {
        disk.#free = free;
        disk.#reading = number;
      }
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

  /** Free bytes above the floor, as last read (negative under it). */
  get room(): number {
    return this.#free - this.#floor;
  }

  /** Readings of the free space started so far (the first, by `watch`, included). */
  get readsStarted(): number {
    return this.#readsStarted;
  }

  /** The number of the reading `free` comes from. */
  get reading(): number {
    return this.#reading;
  }

  /** The 503 a write gets while the space is under the floor; `undefined` while there is room. */
  refusal(): SvcError | undefined {
    return this.low ? diskFull() : undefined;
  }

  /** Stops watching. */
  stop(): void {
    clearInterval(this.#timer);
  }
}
