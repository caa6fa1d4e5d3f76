/**
 * The file `svc export` writes, through a temporary `FILE.partial-xxxxxxxx` beside it that is
 * given FILE's name once complete (never replacing a FILE made meanwhile): Ctrl-C, SIGTERM or
 * SIGHUP (the terminal closed) meanwhile remove it, and one left by an export that could not clean
 * up (SIGKILL, a crash, a power cut) is removed by the next export to the same FILE.
 */
import { basename, dirname, join } from "node:path";
import { writeLine } from "./io.ts";

/** How old a temporary file must be for another export to remove it (its owner gone). */
export const STALE_PARTIAL_MS = 10_000;

const PARTIAL = ".partial-";

/** The signals that stop an export or import (Ctrl-C; the terminal closed), and their exit codes. */
const STOP_SIGNALS: [Deno.Signal, number][] = Deno.build.os === "windows"
  ? [["SIGINT", 130]]
  : [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", 129]];

/** The file could not be written (a full disk, a folder it may not write in): not the source. */
export class FileWriteError extends Error {}

/**
 * Until the function it returns is called, a stop signal ends the process with the signal's exit
 * code, once `stopped` has cleaned up: the note it answers goes to `stderr` and, with `--json`,
 * is stdout's one JSON object (`code` `interrupted`).
 */
export function onStopSignal(
  stopped: () => string,
  stderr: { writeSync(bytes: Uint8Array): number } = Deno.stderr,
): () => void {
  const signals = STOP_SIGNALS.map(([signal, code]) =>
    [signal, () => {
      const note = stopped();
      writeLine(stderr, `svc: ${note}`);
      if (Deno.args.includes("--json")) {
        writeLine(Deno.stdout, JSON.stringify({ error: note, code: "interrupted" }));
      }
      Deno.exit(code);
    }] as const
  );
  for (const [signal, listener] of signals) Deno.addSignalListener(signal, listener);
  return () => {
    for (const [signal, listener] of signals) Deno.removeSignalListener(signal, listener);
  };
}

/**
 * Writes a stream to `path` (mode 0600) through a temporary file, named `path` once synced; Ctrl-C,
 * SIGTERM or SIGHUP meanwhile removes the temporary file before exiting. The temporary file is
 * locked while it is written, which tells {@link removeStalePartials} it is not stale.
 */
export async function writeFileAtomically(path: string, stream: ReadableStream<Uint8Array>) {
  const temporary = `${path}${PARTIAL}${crypto.randomUUID().slice(0, 8)}`;
  // Listening before the file exists: from its first byte on, an interruption removes it.
  const stopListening = onStopSignal(() => {
    try {
      Deno.removeSync(temporary);
    } catch {
      // not made yet, or renamed already
    }
    // On a line of its own, after a progress bar's.
    Deno.stderr.writeSync(new TextEncoder().encode("\n"));
    return `export interrupted; nothing was written to ${path}`;
  });
  let file: Deno.FsFile | undefined;
  let bytes = 0;
  const writeFailed = (cause: unknown) =>
    new FileWriteError(`Cannot write ${path}: ${(cause as Error).message}`, { cause });
  try {
    const out: Deno.FsFile = await Deno.open(temporary, {
      write: true,
      createNew: true,
      mode: 0o600,
    }).catch((cause) => Promise.reject(writeFailed(cause)));
    file = out;
    // Held until the file is closed, by this process's exit at the latest (SIGKILL included).
    await out.tryLock(true);
    await stream.pipeTo(
      new WritableStream({
        async write(chunk) {
          try {
            for (let at = 0; at < chunk.length;) at += await out.write(chunk.subarray(at));
          } catch (cause) {
            throw writeFailed(cause);
          }
          bytes += chunk.length;
        },
        async close() {
          await out.sync().catch((cause) => Promise.reject(writeFailed(cause)));
        },
      }),
    );
    await publish(temporary, path);
    out.close();
    return bytes;
  } catch (error) {
    try {
      file?.close();
    } catch {
      // closed already
    }
    if (file) await Deno.remove(temporary).catch(() => {});
    throw error;
  } finally {
    stopListening();
  }
}

/**
 * Names the complete file `path` without replacing one another process made there meanwhile (a
 * hard link fails with `AlreadyExists` where a rename would replace it); where the file system
 * has no hard links (FAT), renames it once `path` is checked to be free.
 */
async function publish(temporary: string, path: string): Promise<void> {
  try {
    await Deno.link(temporary, path);
  } catch (error) {
    if (
      error instanceof Deno.errors.AlreadyExists ||
      await Deno.lstat(path).then(() => true, () => false)
    ) {
      throw new Deno.errors.AlreadyExists(`${path} was made while the export ran`);
    }
    await Deno.rename(temporary, path);
    return;
  }
  // FILE is complete: a temporary name left behind is removed by the next export.
  await Deno.remove(temporary).catch(() => {});
}

/**
 * Removes the temporary files an export to `path` left when it was killed without a chance to
 * clean up: those named `path.partial-` and 8 hex digits that no process holds locked and that
 * were last written `STALE_PARTIAL_MS` ago or more (a file just made is not locked yet). The
 * names of those removed.
 */
export async function removeStalePartials(path: string, now = Date.now()): Promise<string[]> {
  const folder = dirname(path);
  const prefix = basename(path) + PARTIAL;
  const removed: string[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(folder));
  } catch {
    return removed; // a folder it may write in but not list: nothing is removed
  }
  for (const entry of entries) {
    const suffix = entry.name.slice(prefix.length);
    if (!entry.isFile || !entry.name.startsWith(prefix) || !/^[0-9a-f]{8}$/.test(suffix)) continue;
    const candidate = join(folder, entry.name);
    const info = await Deno.lstat(candidate).catch(() => undefined);
    if (!info?.isFile || !info.mtime || now - info.mtime.getTime() < STALE_PARTIAL_MS) continue;
    let handle: Deno.FsFile;
    try {
      handle = await Deno.open(candidate, { read: true });
    } catch {
      continue;
    }
    try {
      // A running export holds its file locked; a killed one's lock ended with its process.
      if (!(await handle.tryLock(true))) continue;
      await Deno.remove(candidate);
      removed.push(entry.name);
    } catch {
      // gone meanwhile, or not ours to remove
    } finally {
      handle.close();
    }
  }
  return removed;
}
