/**
 * Keeping the data directory private to the user the relayer runs as: files 0600, folders 0700.
 *
 * Two halves. `restrictNewFiles` sets the process's file-creation mask to 0077 at start-up
 * (`main.ts` and `cli/svc.ts`; the sidecar, sandboxed without `--allow-sys`, inherits it from
 * the relayer that starts it), so whatever any part creates (Deno KV's SQLite files, LanceDB's
 * folders, blobs, caches, the files of a plugin added later) is born owner-only without that
 * part knowing. `makePrivate` tightens what an older install left readable: it runs once the
 * backends are open, over the data directory.
 *
 * @example
 * ```ts ignore
 * restrictNewFiles();
 * const backends = await openBackends(config, logger); // calls makePrivate(config.dataDir)
 * ```
 */
import process from "node:process";
import { SvcError } from "@svc/relayer/kit";

/** The mode of a folder under the data directory: its owner only. */
const PRIVATE_DIR_MODE = 0o700;

const POSIX = Deno.build.os !== "windows";

/**
 * Makes files and folders this process, and the processes it starts, create from now on
 * owner-only (umask 0077); returns the previous mask. Needs `--allow-sys`. Nothing happens on
 * Windows, which has no mode bits.
 */
export function restrictNewFiles(): number | undefined {
  return POSIX ? process.umask(0o077) : undefined;
}

/**
 * Makes the data directory (owner-only) and checks that this process may write in it; a
 * `SvcError` naming `SVC_DATA_DIR` otherwise (a file in its place, no permission).
 */
export async function makeDataDir(dir: string): Promise<void> {
  try {
    await Deno.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    await Deno.remove(await Deno.makeTempFile({ dir, prefix: ".svc-write-" }));
  } catch (error) {
    const why = error instanceof Deno.errors.AlreadyExists ||
        error instanceof Deno.errors.NotADirectory
      ? "it, or a folder above it, is a file"
      : error instanceof Deno.errors.PermissionDenied || error instanceof Deno.errors.NotCapable
      ? "this user may not create it or write in it"
      : error instanceof Error
      ? error.message
      : String(error);
    throw new SvcError(
      "bad_request",
      `SVC_DATA_DIR=${dir} cannot be the data directory: ${why}`,
    );
  }
}

/** Whether group or others have any permission on `mode`. */
function loose(mode: number | null): mode is number {
  return mode !== null && (mode & 0o077) !== 0;
}

/**
 * Removes the group's and others' permissions from the entries of `dir`, depth first, then
 * from `dir`. A folder that is already owner-only is not entered: one this module created is
 * private throughout (new files are created owner-only, and a folder is tightened only after
 * its contents), and what another one holds is out of others' reach anyway. Symbolic links
 * are neither followed nor changed. Returns how many entries changed.
 */
function tighten(dir: string, mode: number | null, force: boolean): number {
  let changed = 0;
  if (force || loose(mode)) {
    for (const entry of Deno.readDirSync(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) {
        changed += tighten(path, Deno.lstatSync(path).mode, false);
      } else if (entry.isFile) {
        const fileMode = Deno.lstatSync(path).mode;
        if (loose(fileMode)) {
          Deno.chmodSync(path, fileMode & 0o700);
          changed++;
        }
      }
    }
  }
  if (loose(mode)) {
    Deno.chmodSync(dir, mode & 0o700);
    changed++;
  }
  return changed;
}

/**
 * Tightens the data directory `dir` (which may be a symbolic link) to owner-only, its own entries
 * always checked (see `tighten`); returns how many entries changed (0 on Windows).
 */
export function makePrivate(dir: string): number {
  if (!POSIX) return 0;
  return tighten(dir, Deno.statSync(dir).mode, true);
}
