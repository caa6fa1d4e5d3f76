/**
 * A file that reads only once (a pipe such as `<(gunzip -c memories.svc.gz)`, a device) for
 * `svc import`, which reads an export twice: checked whole, then sent. Its start is read first,
 * to be looked at before the rest; then, as it is read, each piece is written to a temporary copy,
 * to be read again from there. Either read holds a piece's worth of memory, whatever the size.
 *
 * The copy is owner-only (0600, in a folder of its own made 0700) and removed as soon as it is
 * open: the system keeps its bytes until it is closed, so nothing of it stays, even after a kill.
 *
 * @example
 * ```ts
 * await using pipe = await PipeCopy.open("/dev/stdin");
 * pipe.start; // its first line, or 4 KiB
 * for await (const _ of pipe.stream()); // all of it, copied as it is read
 * pipe.again(); // all of it again, from the copy
 * ```
 */
import { join } from "node:path";
import { FileWriteError } from "./partial_file.ts";
import { readStart } from "./import_formats.ts";

/** Closes `file`, unless it was closed already (as a stream read to its end closes it). */
function closeQuietly(file: Deno.FsFile) {
  try {
    file.close();
  } catch {
    // closed already
  }
}

/**
 * Two handles on a new owner-only file in a folder of its own, for writing and for reading, the
 * file removed at once (but where the system keeps an open file: Windows); and the folder.
 */
async function hiddenFile(): Promise<[Deno.FsFile, Deno.FsFile, string]> {
  const folder = await Deno.makeTempDir({ prefix: "svc-import-" });
  const path = join(folder, "copy");
  try {
    const writing = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
    try {
      return [writing, await Deno.open(path), folder];
    } catch (error) {
      writing.close();
      throw error;
    }
  } finally {
    await Deno.remove(folder, { recursive: true }).catch(() => {});
  }
}

export class PipeCopy implements AsyncDisposable {
  /** The first bytes: up to the first line break, or 4 KiB (with what the last read gave). */
  readonly start: Uint8Array;
  #path: string;
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #writing: Deno.FsFile;
  #reading: Deno.FsFile;
  #folder: string;

  private constructor(
    path: string,
    start: Uint8Array,
    reader: ReadableStreamDefaultReader<Uint8Array>,
    [writing, reading, folder]: [Deno.FsFile, Deno.FsFile, string],
  ) {
    this.#path = path;
    this.start = start;
    this.#reader = reader;
    this.#writing = writing;
    this.#reading = reading;
    this.#folder = folder;
  }

  /**
   * Opens `path` (or reads `readable`, what it names) and reads its start; the copy is made in
   * the system's temporary folder.
   */
  static async open(path: string, readable?: ReadableStream<Uint8Array>): Promise<PipeCopy> {
    const reader = (readable ?? (await Deno.open(path)).readable).getReader();
    try {
      return new PipeCopy(path, await readStart(reader), reader, await hiddenFile());
    } catch (error) {
      await reader.cancel().catch(() => {});
      throw error;
    }
  }

  /** All of the file, from its start, each piece written to the copy before it comes: read once. */
  stream(): ReadableStream<Uint8Array> {
    return ReadableStream.from(this.#pieces());
  }

  async *#pieces() {
    let piece: Uint8Array | undefined = this.start;
    for (; piece; piece = (await this.#reader.read()).value) {
      try {
        for (let at = 0; at < piece.length;) at += await this.#writing.write(piece.subarray(at));
      } catch (cause) {
        throw new FileWriteError(
          `Cannot copy ${this.#path} into ${this.#folder} to read it twice: ` +
            `${(cause as Error).message} (TMPDIR names another folder for it)`,
          { cause },
        );
      }
      yield piece;
    }
  }

  /** All of the file again, from the copy (once {@link stream} was read to its end). */
  again(): ReadableStream<Uint8Array> {
    return this.#reading.readable;
  }

  async [Symbol.asyncDispose]() {
    await this.#reader.cancel().catch(() => {});
    closeQuietly(this.#writing);
    closeQuietly(this.#reading);
    await Deno.remove(this.#folder, { recursive: true }).catch(() => {});
  }
}
