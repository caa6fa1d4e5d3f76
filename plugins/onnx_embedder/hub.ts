/**
 * Downloads a model from the Hugging Face hub (or a mirror) into a cache directory, once:
 *
 * - the revision is resolved to a commit through the hub's API
 *   (`/api/models/{id}/revision/{revision}?blobs=true`), whose file list gives each file's size
 *   and checksum (the LFS SHA-256 of large files, the git blob id of small ones);
 * - only what the embedder reads is fetched (`/{id}/resolve/{commit}/{path}`): the ONNX graph
 *   (`onnx/model.onnx` or `model.onnx`, with its external data), `tokenizer.json`, `config.json`
 *   and the sentence-transformers configs present;
 * - each file streams into a temporary file while it is hashed, and is moved into place only
 *   when its size and checksum match; a file already in place and matching is kept (a download
 *   cut short resumes with the files it finished);
 * - `svc-model.json`, written last, records the commit and every file's size and SHA-256. A
 *   directory without it is never used as a download; one whose files no longer match it is
 *   downloaded again.
 *
 * Where the hub cannot be reached, or sends nothing for 30 seconds (an answer, or the next bytes
 * of a file), the error names the directory to fill by hand.
 */
import { createHash, type Hash } from "node:crypto";
import { type Logger, Provider, SvcError } from "@svc/relayer/kit";
import { MODEL_FILES, OPTIONAL_FILES, REQUIRED_FILES, sha256File } from "./model_dir.ts";
import { DEFAULT_HF_ENDPOINT } from "./settings.ts";

/** The record of a finished download, inside the model's directory. */
export const MANIFEST = "svc-model.json";
/** Milliseconds between two progress lines of one file. */
const PROGRESS_EVERY_MS = 2_000;
/** Milliseconds the hub may send nothing before the download is given up, by default. */
const STALL_MS = 30_000;

/** A model on the hub and where its files go. */
export interface HubModelOptions {
  /** The hub id, such as `sentence-transformers/all-MiniLM-L6-v2`. */
  model: string;
  /** A branch, tag or commit (default `main`). */
  revision?: string;
  /** The hub or a mirror (default `https://huggingface.co`). */
  endpoint?: string;
  /** The cache of downloaded models; this one goes to `{modelsDir}/onnx/{owner}--{name}`. */
  modelsDir: string;
  /** Where progress is reported. */
  logger?: Logger;
  /** Stops the download. */
  signal?: AbortSignal;
  /** Milliseconds the hub may send nothing (an answer, the next bytes) before it is given up. */
  stallMs?: number;
}

/** A downloaded model: its directory and the SHA-256 of each file, by path. */
export interface HubModel {
  /** The model's directory in the cache. */
  dir: string;
  /** The commit the revision resolved to. */
  commit: string;
  /** The SHA-256 (hex) of each file, by path inside `dir`. */
  digests: Record<string, string>;
}

interface Manifest {
  model: string;
  revision: string;
  commit: string;
  endpoint: string;
  files: { path: string; size: number; sha256: string }[];
  completed_at: string;
}

/** A file of the repository as the API lists it. */
interface Sibling {
  rfilename: string;
  size?: number;
  blobId?: string;
  lfs?: { sha256?: string; size?: number };
}

/** A file to fetch: where, how big, and the checksum it must have. */
interface Wanted {
  path: string;
  size: number;
  sha256?: string;
  gitBlobId?: string;
}

/** The directory a hub model is downloaded into. */
export function hubModelDir(modelsDir: string, model: string): string {
  return `${modelsDir.replace(/\/+$/, "")}/onnx/${model.replaceAll("/", "--")}`;
}

/** A failure to reach the hub: names the directory to fill by hand. */
function cannotDownload(options: HubModelOptions, dir: string, reason: string, cause?: unknown) {
  const hub = new Provider("the hub", options.endpoint ?? DEFAULT_HF_ENDPOINT).at;
  return new SvcError(
    "backend_unavailable",
    `Cannot download the ONNX model "${options.model}" from ${hub}: ${reason}. Where this ` +
      `machine cannot reach the hub, copy the model's files (onnx/model.onnx or model.onnx, ` +
      `tokenizer.json, config.json and its other config files) into ${dir} by hand and start ` +
      `with SVC_ONNX_MODEL_DIR=${dir} beside SVC_ONNX_MODEL=${options.model} (which keeps its ` +
      "name, part of the embedder's identity), or start with SVC_EMBEDDER=use, which needs no " +
      "download",
    cause === undefined ? undefined : { cause },
  );
}

/** The files the embedder reads, picked from the repository's list. */
function pick(siblings: Sibling[]): { wanted: Wanted[]; missing: string[] } {
  const byPath = new Map(siblings.map((s) => [s.rfilename, s]));
  const model = MODEL_FILES.find((path) => byPath.has(path));
  // The small files first: a cut-short download of the graph keeps them for the next start.
  const paths = [
    ...REQUIRED_FILES,
    ...OPTIONAL_FILES,
    ...siblings.map((s) => s.rfilename).filter((path) => /^\d+_Pooling\/config\.json$/.test(path)),
    ...(model ? [model, `${model}_data`] : []),
  ];
  const missing = [
    ...(model ? [] : [MODEL_FILES.join(" or ")]),
    ...REQUIRED_FILES.filter((path) => !byPath.has(path)),
  ];
  const wanted: Wanted[] = [];
  for (const path of new Set(paths)) {
    const sibling = byPath.get(path);
    if (!sibling) continue;
    const size = sibling.lfs?.size ?? sibling.size;
    if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0) {
      throw new Error(`the hub's answer gives no size for ${path}`);
    }
    wanted.push({
      path,
      size,
      sha256: sibling.lfs?.sha256,
      gitBlobId: sibling.lfs ? undefined : sibling.blobId,
    });
  }
  return { wanted, missing };
}

async function readManifest(dir: string): Promise<Manifest | undefined> {
  try {
    return JSON.parse(await Deno.readTextFile(`${dir}/${MANIFEST}`));
  } catch {
    return undefined;
  }
}

async function sizeOf(path: string): Promise<number | undefined> {
  try {
    return (await Deno.stat(path)).size;
  } catch {
    return undefined;
  }
}

/** The SHA-256 of each file of a manifest, or the first path whose file no longer matches. */
async function verify(
  dir: string,
  manifest: Manifest,
): Promise<{ digests: Record<string, string> } | { broken: string }> {
  const digests: Record<string, string> = {};
  for (const file of manifest.files) {
    const path = `${dir}/${file.path}`;
    if (await sizeOf(path) !== file.size || await sha256File(path) !== file.sha256) {
      return { broken: file.path };
    }
    digests[file.path] = file.sha256;
  }
  return { digests };
}

/**
 * A signal for one request that aborts when its caller's does, or when `touch` was not called for
 * `options.stallMs`: the hub sent nothing meanwhile.
 */
function stallSignal(options: HubModelOptions) {
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

function encodePath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

/**
 * The model's directory, downloading what is missing first; a directory whose `svc-model.json`
 * matches the request and whose files match their checksums is used without the network.
 */
export async function openHubModel(options: HubModelOptions): Promise<HubModel> {
  const revision = options.revision ?? "main";
  const endpoint = (options.endpoint ?? DEFAULT_HF_ENDPOINT).replace(/\/+$/, "");
  const dir = hubModelDir(options.modelsDir, options.model);
  const manifest = await readManifest(dir);
  if (
    manifest?.model === options.model &&
    (manifest.revision === revision || manifest.commit === revision)
  ) {
    const checked = await verify(dir, manifest);
    if ("digests" in checked) return { dir, commit: manifest.commit, digests: checked.digests };
    options.logger?.warn(
      "a downloaded model file no longer matches its checksum; downloading again",
      {
        model: options.model,
        file: checked.broken,
        dir,
      },
    );
  }
  options.logger?.info("looking up the model on the hub", { model: options.model, revision });
  const { commit, siblings } = await repositoryFiles(options, endpoint, revision, dir);
  let picked: ReturnType<typeof pick>;
  try {
    picked = pick(siblings);
  } catch (error) {
    throw cannotDownload(options, dir, (error as Error).message, error);
  }
  const { wanted, missing } = picked;
  if (missing.length) {
    throw new SvcError(
      "backend_unavailable",
      `Cannot use the hub model "${options.model}": its repository has no ${missing.join(", ")}` +
        (missing[0].includes("onnx")
          ? " (it has no ONNX export; choose a repository that has one, such as the Xenova/ " +
            "copies of most sentence-transformers models, or export one and use SVC_ONNX_MODEL_DIR)"
          : ""),
    );
  }
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  await Deno.remove(`${dir}/${MANIFEST}`).catch(() => {});
  const total = wanted.reduce((sum, file) => sum + file.size, 0);
  options.logger?.info("downloading model", {
    model: options.model,
    revision,
    commit,
    files: wanted.length,
    total_mb: megabytes(total),
    dir,
  });
  await removePartials(dir);
  const files: Manifest["files"] = [];
  for (const file of wanted) {
    const sha256 = await kept(dir, file) ??
      await download(options, endpoint, commit, dir, file);
    files.push({ path: file.path, size: file.size, sha256 });
  }
  const record: Manifest = {
    model: options.model,
    revision,
    commit,
    endpoint,
    files,
    completed_at: new Date().toISOString(),
  };
  const temporary = `${dir}/.${MANIFEST}.${crypto.randomUUID()}.tmp`;
  await Deno.writeTextFile(temporary, JSON.stringify(record, null, 2) + "\n", { mode: 0o600 });
  await Deno.rename(temporary, `${dir}/${MANIFEST}`);
  options.logger?.info("model downloaded", { model: options.model, commit, dir });
  return { dir, commit, digests: Object.fromEntries(files.map((f) => [f.path, f.sha256])) };
}

/** Whether the hub at `endpoint` answers for `model` within `timeoutMs` (a lookup, no download). */
export async function hubAnswers(
  endpoint: string,
  model: string,
  timeoutMs = 5_000,
): Promise<boolean> {
  try {
    const response = await fetch(
      `${endpoint.replace(/\/+$/, "")}/api/models/${encodePath(model)}/revision/main`,
      { signal: AbortSignal.timeout(timeoutMs) },
    );
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

/** The commit a revision names and the files it holds, from the hub's API. */
async function repositoryFiles(
  options: HubModelOptions,
  endpoint: string,
  revision: string,
  dir: string,
): Promise<{ commit: string; siblings: Sibling[] }> {
  const url = `${endpoint}/api/models/${encodePath(options.model)}/revision/` +
    `${encodeURIComponent(revision)}?blobs=true`;
  using stall = stallSignal(options);
  let response: Response;
  try {
    response = await fetch(url, { signal: stall.signal });
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    throw cannotDownload(
      options,
      dir,
      `the hub cannot be reached (${(error as Error).message})`,
      error,
    );
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw cannotDownload(
      options,
      dir,
      response.status === 401 || response.status === 404
        ? `the hub answered ${response.status}: no public model "${options.model}" at revision ` +
          `"${revision}"`
        : `the hub answered ${response.status}`,
    );
  }
  let info: { sha?: unknown; siblings?: unknown };
  try {
    info = await response.json();
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    const reason = stall.signal.aborted ? (stall.signal.reason as Error).message : "";
    throw cannotDownload(options, dir, reason || "the hub's answer is not JSON", error);
  }
  if (!Array.isArray(info.siblings)) {
    throw cannotDownload(options, dir, "the hub's answer lists no files");
  }
  const commit = typeof info.sha === "string" && /^[0-9a-f]{40}$/.test(info.sha)
    ? info.sha
    : revision;
  return { commit, siblings: info.siblings as Sibling[] };
}

/** Removes the files a download stopped midway (the process killed) left in `dir`. */
async function removePartials(dir: string) {
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isFile && entry.name.startsWith(".partial-")) {
        await Deno.remove(`${dir}/${entry.name}`).catch(() => {});
      }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

/** The SHA-256 of a file already in place with the size and checksum wanted, else undefined. */
async function kept(dir: string, file: Wanted): Promise<string | undefined> {
  const path = `${dir}/${file.path}`;
  if (await sizeOf(path) !== file.size) return undefined;
  const sha256 = createHash("sha256");
  const git = file.gitBlobId ? gitBlobHash(file.size) : undefined;
  using handle = await Deno.open(path);
  for await (const chunk of handle.readable) {
    sha256.update(chunk);
    git?.update(chunk);
  }
  return matches(file, sha256, git) ?? undefined;
}

/** Git's blob id is the SHA-1 of `blob {size}\0` and the content. */
function gitBlobHash(size: number): Hash {
  return createHash("sha1").update(`blob ${size}\0`);
}

/** The SHA-256 (hex) when the hashes match what the hub listed, else null. */
function matches(file: Wanted, sha256: Hash, git: Hash | undefined): string | null {
  const digest = sha256.digest("hex");
  if (file.sha256 && digest !== file.sha256) return null;
  if (git && git.digest("hex") !== file.gitBlobId) return null;
  return digest;
}

function megabytes(bytes: number): number {
  return Math.round(bytes / 104_857.6) / 10;
}

/** Fetches one file into place, verified; returns its SHA-256. */
async function download(
  options: HubModelOptions,
  endpoint: string,
  commit: string,
  dir: string,
  file: Wanted,
): Promise<string> {
  const url = `${endpoint}/${encodePath(options.model)}/resolve/${encodeURIComponent(commit)}/` +
    encodePath(file.path);
  using stall = stallSignal(options);
  let response: Response;
  try {
    response = await fetch(url, { signal: stall.signal });
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    throw cannotDownload(
      options,
      dir,
      `${file.path} cannot be fetched (${(error as Error).message})`,
      error,
    );
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw cannotDownload(options, dir, `the hub answered ${response.status} for ${file.path}`);
  }
  const target = `${dir}/${file.path}`;
  await Deno.mkdir(target.slice(0, target.lastIndexOf("/")), { recursive: true, mode: 0o700 });
  const temporary = `${dir}/.partial-${crypto.randomUUID()}`;
  const sha256 = createHash("sha256");
  const git = file.gitBlobId ? gitBlobHash(file.size) : undefined;
  let received = 0;
  let reported = Date.now();
  try {
    {
      using out = await Deno.open(temporary, { write: true, createNew: true, mode: 0o600 });
      for await (const chunk of response.body) {
        stall.touch();
        received += chunk.length;
        if (received > file.size) {
          throw new Error(`${file.path} is longer than the ${file.size} bytes the hub listed`);
        }
        sha256.update(chunk);
        git?.update(chunk);
        for (let written = 0; written < chunk.length;) {
          written += await out.write(chunk.subarray(written));
        }
        if (Date.now() - reported >= PROGRESS_EVERY_MS) {
          reported = Date.now();
          options.logger?.info("downloading model file", progress(options, file, received));
        }
      }
      await out.sync();
    }
    if (received !== file.size) {
      throw new Error(`${file.path} ended after ${received} of ${file.size} bytes`);
    }
    const digest = matches(file, sha256, git);
    if (digest === null) {
      throw new Error(`${file.path} does not match the checksum the hub listed`);
    }
    await Deno.rename(temporary, target);
    options.logger?.info("downloaded model file", progress(options, file, received));
    return digest;
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    if (options.signal?.aborted) throw options.signal.reason;
    if (error instanceof SvcError) throw error;
    throw cannotDownload(options, dir, `the download failed: ${(error as Error).message}`, error);
  }
}

function progress(options: HubModelOptions, file: Wanted, received: number) {
  return {
    model: options.model,
    file: file.path,
    received_mb: megabytes(received),
    total_mb: megabytes(file.size),
    percent: file.size > 0 ? Math.floor((received / file.size) * 100) : undefined,
  };
}
