/**
 * The limits of one model download: a total time, a stall time (nothing received), and a size
 * cap (per file and in all) checked with the disk's free space before anything is fetched.
 *
 * @module
 */
import { freeBytes } from "@svc/util/free_bytes";
import { megabytes } from "./hub_file.ts";

/** Seconds a download (the listing and every file) may take, by default. */
export const DEFAULT_DOWNLOAD_TIMEOUT_S = 600;
/** Seconds the hub may send nothing, by default. */
export const DEFAULT_DOWNLOAD_STALL_S = 30;
/** Mebibytes the files of a download may hold, by default (the recommended model: 86). */
export const DEFAULT_DOWNLOAD_MAX_MB = 1024;
/** Bytes a download leaves free on its disk, besides the files it writes. */
const FREE_SPACE_RESERVE = 64 * 1024 * 1024;

/** How long and how large a download may be. */
export interface DownloadLimits {
  /** Milliseconds the whole download may take (default 600 s). */
  timeoutMs?: number;
  /** Milliseconds the hub may send nothing (an answer, the next bytes) (default 30 s). */
  stallMs?: number;
  /** Bytes the files may hold, one or all (default 1 GiB). */
  maxBytes?: number;
  /** The free bytes of the disk holding a path (default: the file system's count). */
  freeBytes?: (path: string) => Promise<number>;
}

/**
 * A signal that aborts when `signal` does, or once `timeoutMs` has passed; `expired` tells which,
 * and `reason` says why in words.
 */
export function downloadDeadline(limits: DownloadLimits, signal?: AbortSignal) {
  const ms = limits.timeoutMs ?? DEFAULT_DOWNLOAD_TIMEOUT_S * 1000;
  const reason = `the download took longer than ${ms / 1000} seconds ` +
    "(SVC_MODEL_DOWNLOAD_TIMEOUT_S)";
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new Error(reason)), ms);
  return {
    signal: signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal,
    get expired() {
      return timeout.signal.aborted && !signal?.aborted;
    },
    reason,
    [Symbol.dispose]: () => clearTimeout(timer),
  };
}

/**
 * Why `files` may not be downloaded into `dir`, or undefined: one past the cap, all past it, or
 * more than the disk has free (files in place with their size are not counted).
 */
export async function refusedSize(
  limits: DownloadLimits,
  dir: string,
  files: { path: string; size: number }[],
): Promise<string | undefined> {
  const max = limits.maxBytes ?? DEFAULT_DOWNLOAD_MAX_MB * 1024 * 1024;
  const cap = `the ${megabytes(max)} MB a model download may hold (SVC_MODEL_DOWNLOAD_MAX_MB)`;
  const large = files.find((file) => file.size > max);
  if (large) return `the hub lists ${large.path} at ${megabytes(large.size)} MB, past ${cap}`;
  const total = files.reduce((sum, file) => sum + file.size, 0);
  if (total > max) return `the files listed hold ${megabytes(total)} MB, past ${cap}`;
  let needed = 0;
  for (const file of files) {
    const held = await Deno.stat(`${dir}/${file.path}`).catch(() => null);
    if (held?.size !== file.size) needed += file.size;
  }
  const free = await (limits.freeBytes ?? freeBytes)(dir);
  if (needed + FREE_SPACE_RESERVE <= free) return undefined;
  return `the download needs ${megabytes(needed)} MB and ${megabytes(FREE_SPACE_RESERVE)} MB ` +
    `spare, and the disk holding ${dir} has ${megabytes(free)} MB free`;
}
