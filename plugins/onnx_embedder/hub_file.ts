/**
 * One file of a hub download: streamed into a temporary file while it is hashed, refused as soon
 * as it passes the size expected or the hub stops sending, moved into place only when its size
 * and checksum match (a pinned digest, else the hub's listing).
 *
 * @module
 */
import { createHash, type Hash } from "node:crypto";
import { type Logger, SvcError } from "@svc/relayer/kit";

/** Milliseconds between two progress lines of one file. */
const PROGRESS_EVERY_MS = 2_000;
/** Milliseconds the hub may send nothing before the download is given up, by default. */
const STALL_MS = 30_000;

/** A file to fetch: where, how big, and the checksum it must have. */
export interface Wanted {
  /** Its path in the repository and the model's directory. */
  path: string;
  /** Bytes. */
  size: number;
  /** SHA-256 (hex) it must have. */
  sha256?: string;
  /** Git blob id it must have (small files the hub lists without an LFS digest). */
  gitBlobId?: string;
  /** Who pinned `size` and `sha256`: this release, or the model's first download. */
  pin?: "release" | "first download";
}

/** What fetching the files of one download shares. */
export interface FileFetch {
  /** The hub id. */
  model: string;
  /** The hub's address, without a trailing slash. */
  endpoint: string;
  /** The commit the files are fetched from. */
  commit: string;
  /** The model's directory. */
  dir: string;
  /** Stops the download (the caller's stop, or the download's time limit). */
  signal?: AbortSignal;
  /** Milliseconds the hub may send nothing. */
  stallMs?: number;
  /** Where progress is reported. */
  logger?: Logger;
  /** The error of a download that failed, naming the directory to fill by hand. */
  fail(reason: string, cause?: unknown): Error;
  /** The error of a file whose bytes differ from its pin. */
  refuse(reason: string): Error;
}

/** The path's segments, each URL-encoded. */
export function encodePath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

/** Mebibytes, to a tenth. */
export function megabytes(bytes: number): number {
  return Math.round(bytes / 104_857.6) / 10;
}

/**
 * A signal for one request that aborts when its caller's does, or when `touch` was not called for
 * `stallMs`: the hub sent nothing meanwhile.
 */
export function stallSignal(options: { signal?: AbortSignal; stallMs?: number }) {
  const ms = options.stallMs ?? STALL_MS;
  const stalled = new AbortController();
  const stall = () => stalled.abort(new Error(`the hub sent nothing for ${ms / 1000} seconds`));
  let timer = setTimeout(stall, ms);
  return {
    signal: options.signal ? AbortSignal.any([options.signal, stalled.signal]) : stalled.signal,
    touch() {
      clearTimeout(timer);
      timer = setTimeout(stall, ms);
    },
    [Symbol.dispose]: () => clearTimeout(timer),
  };
}

/** The SHA-256 of a file already in place with the size and checksum wanted, else undefined. */
export async function kept(dir: string, file: Wanted): Promise<string | undefined> {
  const path = `${dir}/${file.path}`;
  if ((await Deno.stat(path).catch(() => null))?.size !== file.size) return undefined;
  const sha256 = createHash("sha256");
  const git = file.gitBlobId ? gitBlobHash(file.size) : undefined;
  using handle = await Deno.open(path);
  for await (const chunk of handle.readable) {
    sha256.update(chunk);
    git?.update(chunk);
  }
  const digest = sha256.digest("hex");
  return matches(file, digest, git) ? digest : undefined;
}

/** Git's blob id is the SHA-1 of `blob {size}\0` and the content. */
function gitBlobHash(size: number): Hash {
  return createHash("sha1").update(`blob ${size}\0`);
}

/** Whether the digests match what the file must have. */
function matches(file: Wanted, sha256: string, git: Hash | undefined): boolean {
  if (file.sha256 && sha256 !== file.sha256) return false;
  return !git || git.digest("hex") === file.gitBlobId;
}

/** Fetches one file into place, verified; returns its SHA-256. */
export async function fetchFile(fetching: FileFetch, file: Wanted): Promise<string> {
  const { model, endpoint, commit, dir, signal } = fetching;
  const url = `${endpoint}/${encodePath(model)}/resolve/${encodeURIComponent(commit)}/` +
    encodePath(file.path);
  using stall = stallSignal(fetching);
  let response: Response;
  try {
    response = await fetch(url, { signal: stall.signal });
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw fetching.fail(`${file.path} cannot be fetched (${(error as Error).message})`, error);
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw fetching.fail(`the hub answered ${response.status} for ${file.path}`);
  }
  const target = `${dir}/${file.path}`;
  await Deno.mkdir(target.slice(0, target.lastIndexOf("/")), { recursive: true, mode: 0o700 });
  const temporary = `${dir}/.partial-${crypto.randomUUID()}`;
  try {
    const digest = await streamInto(fetching, file, response.body, temporary, stall.touch);
    await Deno.rename(temporary, target);
    return digest;
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    if (signal?.aborted) throw signal.reason;
    if (error instanceof SvcError) throw error;
    throw fetching.fail(`the download failed: ${(error as Error).message}`, error);
  }
}

/** Writes `body` to `temporary`, hashing it, refusing a byte past `file.size`; its SHA-256. */
async function streamInto(
  fetching: FileFetch,
  file: Wanted,
  body: ReadableStream<Uint8Array>,
  temporary: string,
  touch: () => void,
): Promise<string> {
  const sha256 = createHash("sha256");
  const git = file.gitBlobId ? gitBlobHash(file.size) : undefined;
  let received = 0;
  let reported = Date.now();
  {
    using out = await Deno.open(temporary, { write: true, createNew: true, mode: 0o600 });
    for await (const chunk of body) {
      touch();
      received += chunk.length;
      if (received > file.size) {
        throw new Error(`${file.path} is longer than the ${file.size} bytes expected`);
      }
      sha256.update(chunk);
      git?.update(chunk);
      for (let written = 0; written < chunk.length;) {
        written += await out.write(chunk.subarray(written));
      }
      if (Date.now() - reported >= PROGRESS_EVERY_MS) {
        reported = Date.now();
        fetching.logger?.info("downloading model file", progress(fetching, file, received));
      }
    }
    await out.sync();
  }
  if (received !== file.size) {
    throw new Error(`${file.path} ended after ${received} of ${file.size} bytes`);
  }
  const digest = sha256.digest("hex");
  if (file.pin && digest !== file.sha256) {
    throw fetching.refuse(
      `${file.path} has SHA-256 ${digest}, not the ${file.sha256} ` +
        (file.pin === "release" ? "this release pins" : "pinned at the model's first download"),
    );
  }
  if (!matches(file, digest, git)) {
    throw new Error(`${file.path} does not match the checksum the hub listed`);
  }
  fetching.logger?.info("downloaded model file", progress(fetching, file, received));
  return digest;
}

function progress(fetching: FileFetch, file: Wanted, received: number) {
  return {
    model: fetching.model,
    file: file.path,
    received_mb: megabytes(received),
    total_mb: megabytes(file.size),
    percent: file.size > 0 ? Math.floor((received / file.size) * 100) : undefined,
  };
}
