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
 * A pinned model (`pins.ts`) fetches exactly its pinned files, which must have the pinned sizes
 * and SHA-256 whatever the hub lists: the recommended model's are constants of this release;
 * another model's are those its first download saw. A download has a total time limit, a stall
 * limit and a size cap checked with the disk's free space before it starts
 * (`download_limits.ts`). Where the hub cannot be reached, stalls or passes a limit, the error
 * names the directory to fill by hand.
 */
import { type Logger, Provider, SvcError } from "@svc/relayer/kit";
import { readBounded } from "@svc/util/read_bounded";
import { MODEL_FILES, OPTIONAL_FILES, REQUIRED_FILES } from "./model_dir.ts";
import { DEFAULT_HF_ENDPOINT } from "./settings.ts";
import { downloadDeadline, type DownloadLimits, refusedSize } from "./download_limits.ts";
import {
  encodePath,
  fetchFile,
  type FileFetch,
  kept,
  megabytes,
  stallSignal,
  type Wanted,
} from "./hub_file.ts";
import {
  asPins,
  matchPins,
  type ModelPins,
  type PinRecord,
  PINS_FILE,
  readPinRecord,
  readRecord,
  RELEASE_PINS,
  type ReleasePins,
  writeRecord,
} from "./pins.ts";

/** The record of a finished download, inside the model's directory. */
export const MANIFEST = "svc-model.json";
/** Bytes the hub's listing of a repository may hold. */
const LISTING_MAX_BYTES = 16 * 1024 * 1024;

/** A model on the hub and where its files go. */
export interface HubModelOptions extends DownloadLimits {
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
  /** The models pinned by this release (default {@link RELEASE_PINS}); tests name their own. */
  pins?: ReleasePins;
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

/** The path of the first file of `files` that no longer matches its checksum, if any. */
async function brokenFile(dir: string, files: Manifest["files"]): Promise<string | undefined> {
  for (const file of files) if (await kept(dir, file) === undefined) return file.path;
}

/** The SHA-256 of each file, by path. */
function digestsOf(files: Manifest["files"]): Record<string, string> {
  return Object.fromEntries(files.map((file) => [file.path, file.sha256]));
}

/** A download refused for its bytes: one line, whatever the hub lists. */
function refused(options: HubModelOptions, reason: string) {
  const hub = new Provider("the hub", options.endpoint ?? DEFAULT_HF_ENDPOINT).at;
  return new SvcError(
    "backend_unavailable",
    `Cannot use the ONNX model "${options.model}" from ${hub}: ${reason}; the download is refused`,
  );
}

/** The pinned files, with the pinned sizes and digests; refused if the listing differs. */
function pinnedWanted(
  options: HubModelOptions,
  siblings: Sibling[],
  pins: ModelPins,
  pin: NonNullable<Wanted["pin"]>,
): Wanted[] {
  const byPath = new Map(siblings.map((s) => [s.rfilename, s]));
  const pinner = pin === "release" ? "this release pins" : "the model's first download pinned";
  return Object.entries(pins).map(([path, { size, sha256 }]) => {
    const sibling = byPath.get(path);
    if (!sibling) throw refused(options, `the hub lists no ${path}, which ${pinner}`);
    const listed = sibling.lfs?.size ?? sibling.size;
    if (listed !== size) {
      throw refused(
        options,
        `the hub lists ${path} with ${listed} bytes, not the ${size} ${pinner}`,
      );
    }
    return { path, size, sha256, pin };
  });
}

/** The pins a download must match: this release's, else the model's first download's. */
async function pinsOf(options: HubModelOptions, dir: string, revision: string) {
  const release = revision === "main" ? (options.pins ?? RELEASE_PINS)[options.model] : undefined;
  if (release) return { pins: release, pin: "release" as const };
  const record = await readPinRecord(dir, options.model, revision);
  if (record) return { pins: record.files, pin: "first download" as const };
  const manifest = await readRecord<Manifest>(dir, MANIFEST);
  if (manifest?.model !== options.model || manifest.revision !== revision) return undefined;
  return { pins: asPins(manifest.files), pin: "first download" as const };
}

/**
 * The model's directory, downloading what is missing first; a directory whose `svc-model.json`
 * matches the request (and the model's pins) and whose files match their checksums is used
 * without the network.
 */
export async function openHubModel(options: HubModelOptions): Promise<HubModel> {
  const revision = options.revision ?? "main";
  const dir = hubModelDir(options.modelsDir, options.model);
  const pinned = await pinsOf(options, dir, revision);
  const manifest = await readRecord<Manifest>(dir, MANIFEST);
  if (
    manifest?.model === options.model &&
    (manifest.revision === revision || manifest.commit === revision)
  ) {
    const fits = !pinned || matchPins(manifest.files, pinned.pins);
    const broken = fits ? await brokenFile(dir, manifest.files) : undefined;
    if (fits && !broken) {
      return { dir, commit: manifest.commit, digests: digestsOf(manifest.files) };
    }
    options.logger?.warn(
      fits
        ? "a downloaded model file no longer matches its checksum; downloading again"
        : "the downloaded model is not the one this release pins; downloading again",
      { model: options.model, file: broken, dir },
    );
  }
  using deadline = downloadDeadline(options, options.signal);
  try {
    return await download({ ...options, signal: deadline.signal }, dir, revision, pinned);
  } catch (error) {
    if (deadline.expired) throw cannotDownload(options, dir, deadline.reason, error);
    throw error;
  }
}

/** Looks the files up, checks them against the pins and limits, and fetches them into `dir`. */
async function download(
  options: HubModelOptions,
  dir: string,
  revision: string,
  pinned: Awaited<ReturnType<typeof pinsOf>>,
): Promise<HubModel> {
  const endpoint = (options.endpoint ?? DEFAULT_HF_ENDPOINT).replace(/\/+$/, "");
  const { model, logger } = options;
  logger?.info("looking up the model on the hub", { model, revision });
  const { commit, siblings } = await repositoryFiles(options, endpoint, revision, dir);
  const wanted = pinned
    ? pinnedWanted(options, siblings, pinned.pins, pinned.pin)
    : pickOrRefuse(options, dir, siblings);
  const tooLarge = await refusedSize(options, dir, wanted);
  if (tooLarge) throw cannotDownload(options, dir, tooLarge);
  if (!pinned) {
    logger?.warn(
      "this model is not verified by this release: its files' digests are pinned at this first " +
        "download, and later downloads must match them",
      { model, revision },
    );
  }
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  await Deno.remove(`${dir}/${MANIFEST}`).catch(() => {});
  const total = wanted.reduce((sum, file) => sum + file.size, 0);
  logger?.info("downloading model", {
    model,
    revision,
    commit,
    files: wanted.length,
    total_mb: megabytes(total),
    pinned_by: pinned?.pin ?? "this download",
    dir,
  });
  await removePartials(dir);
  const fetching: FileFetch = {
    ...options,
    endpoint,
    commit,
    dir,
    fail: (reason, cause) => cannotDownload(options, dir, reason, cause),
    refuse: (reason) => refused(options, reason),
  };
  const files: Manifest["files"] = [];
  for (const file of wanted) {
    const sha256 = await kept(dir, file) ?? await fetchFile(fetching, file);
    files.push({ path: file.path, size: file.size, sha256 });
  }
  const at = new Date().toISOString();
  if (!pinned) {
    const record: PinRecord = { model, revision, pinned_at: at, files: asPins(files) };
    await writeRecord(dir, PINS_FILE, record);
  }
  const manifest: Manifest = { model, revision, commit, endpoint, files, completed_at: at };
  await writeRecord(dir, MANIFEST, manifest); // last: the mark of a finished download
  logger?.info("model downloaded", { model, commit, dir });
  return { dir, commit, digests: digestsOf(files) };
}

/** The files the embedder reads, from the listing; refused when one it needs is not there. */
function pickOrRefuse(options: HubModelOptions, dir: string, siblings: Sibling[]): Wanted[] {
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
  return wanted;
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
    const body = await readBounded(response, LISTING_MAX_BYTES, {
      signal: stall.signal,
      tooLarge: () => new Error(`the hub's listing passes ${megabytes(LISTING_MAX_BYTES)} MB`),
    });
    info = JSON.parse(new TextDecoder().decode(body));
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    const reason = stall.signal.aborted ? (stall.signal.reason as Error).message : "";
    const tooLarge = /listing passes/.test((error as Error).message) && (error as Error).message;
    throw cannotDownload(options, dir, reason || tooLarge || "the hub's answer is not JSON", error);
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
