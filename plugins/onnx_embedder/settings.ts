/** The settings of `SVC_EMBEDDER=onnx`, read with the rest of the configuration. */
import type { SettingsReader } from "@svc/relayer/kit";
import { POOLING_MODES, type PoolingMode } from "./pooling.ts";
import {
  DEFAULT_DOWNLOAD_MAX_MB,
  DEFAULT_DOWNLOAD_STALL_S,
  DEFAULT_DOWNLOAD_TIMEOUT_S,
} from "./download_limits.ts";
import type { ReleasePins } from "./pins.ts";

/** The hub's address, unless `SVC_HF_ENDPOINT` names a mirror. */
export const DEFAULT_HF_ENDPOINT = "https://huggingface.co";
/**
 * The model a new data directory downloads when its relayer starts without `SVC_EMBEDDER` and
 * the hub answers: the best of the models measured on the project's retrieval benchmarks.
 */
export const RECOMMENDED_ONNX_MODEL = "sentence-transformers/all-MiniLM-L6-v2";
/** Texts per run of the graph, by default. */
export const DEFAULT_BATCH = 32;
/** A hub repository id: `name` or `owner/name`, without `..`. */
const HUB_ID = /^(?!.*\.\.)[A-Za-z0-9][\w.-]{0,95}(\/[A-Za-z0-9][\w.-]{0,95})?$/;
/** A branch, tag or commit, without `..`. */
const REVISION = /^(?!.*\.\.)[\w][\w./-]{0,199}$/;

export { POOLING_MODES, type PoolingMode } from "./pooling.ts";

/** The model to load or download, and how it runs. */
export interface OnnxSettings {
  /** `SVC_ONNX_MODEL_DIR`: a model directory to load; nothing is downloaded. */
  modelDir?: string;
  /** `SVC_ONNX_MODEL`: a hub model id, downloaded into `modelsDir` unless `modelDir` is set. */
  model?: string;
  /** `SVC_ONNX_REVISION`: the hub revision to download (default `main`). */
  revision: string;
  /** `SVC_MODELS_DIR`: the cache of downloaded models. */
  modelsDir: string;
  /** `SVC_HF_ENDPOINT` (or the hub's own `HF_ENDPOINT`): the hub or a mirror. */
  endpoint: string;
  /** `SVC_ONNX_BATCH`: texts per run of the graph. */
  batchSize: number;
  /** `SVC_ONNX_THREADS`: threads of one run; 0 lets onnxruntime choose. */
  threads: number;
  /** `SVC_ONNX_POOLING`: pooling instead of the model's `1_Pooling/config.json`. */
  pooling?: PoolingMode[];
  /** `SVC_ONNX_QUERY_PREFIX`: put before recall queries instead of the model's prefix. */
  queryPrefix?: string;
  /** `SVC_ONNX_PASSAGE_PREFIX`: put before memories instead of the model's prefix. */
  documentPrefix?: string;
  /** How long and how large a download may be. */
  download: DownloadSettings;
  /** The models pinned by this release, when not the release's own (tests only; no setting). */
  pins?: ReleasePins;
}

/** The limits of a model download. */
export interface DownloadSettings {
  /** `SVC_MODEL_DOWNLOAD_TIMEOUT_S`: milliseconds the whole download may take. */
  timeoutMs: number;
  /** `SVC_MODEL_DOWNLOAD_STALL_S`: milliseconds the hub may send nothing. */
  stallMs: number;
  /** `SVC_MODEL_DOWNLOAD_MAX_MB`: bytes the files may hold, one or all. */
  maxBytes: number;
}

/** The limits of a model download when no setting changes them. */
export const DEFAULT_DOWNLOAD: DownloadSettings = Object.freeze({
  timeoutMs: DEFAULT_DOWNLOAD_TIMEOUT_S * 1000,
  stallMs: DEFAULT_DOWNLOAD_STALL_S * 1000,
  maxBytes: DEFAULT_DOWNLOAD_MAX_MB * 1024 * 1024,
});

/** The limits of a model download, from the settings. */
function readDownloadSettings(read: SettingsReader): DownloadSettings {
  const timeout = read.integer(
    "SVC_MODEL_DOWNLOAD_TIMEOUT_S",
    DEFAULT_DOWNLOAD_TIMEOUT_S,
    1,
    86_400,
  );
  const stall = read.integer("SVC_MODEL_DOWNLOAD_STALL_S", DEFAULT_DOWNLOAD_STALL_S, 1, 3_600);
  const maxMb = read.integer("SVC_MODEL_DOWNLOAD_MAX_MB", DEFAULT_DOWNLOAD_MAX_MB, 1, 1_048_576);
  return { timeoutMs: timeout * 1000, stallMs: stall * 1000, maxBytes: maxMb * 1024 * 1024 };
}

function readPooling(read: SettingsReader): PoolingMode[] | undefined {
  const modes = read.list("SVC_ONNX_POOLING");
  if (modes.length === 0) return undefined;
  const known = modes.filter((mode): mode is PoolingMode =>
    (POOLING_MODES as readonly string[]).includes(mode)
  );
  if (known.length !== modes.length) {
    read.problem(
      `SVC_ONNX_POOLING must list pooling modes among ${POOLING_MODES.join(", ")} ` +
        `(got "${modes.join(",")}")`,
    );
  }
  return known;
}

/**
 * The settings of the recommended model, which a relayer started without `SVC_EMBEDDER` may
 * download: the hub's address, batches and threads; the model runs with its own pooling and
 * prefixes, as measured.
 */
export function readRecommendedOnnxSettings(read: SettingsReader, modelsDir: string): OnnxSettings {
  const { endpoint, batchSize, threads, download } = readRunSettings(read);
  return {
    endpoint,
    batchSize,
    threads,
    download,
    revision: "main",
    model: RECOMMENDED_ONNX_MODEL,
    modelsDir,
  };
}

/** The settings of `SVC_EMBEDDER=onnx`; `modelsDir` is `SVC_MODELS_DIR` or its default. */
export function readOnnxSettings(read: SettingsReader, modelsDir: string): OnnxSettings {
  const modelDir = read.text("SVC_ONNX_MODEL_DIR");
  const model = read.matching(
    "SVC_ONNX_MODEL",
    HUB_ID,
    "SVC_ONNX_MODEL must be a hub model id such as sentence-transformers/all-MiniLM-L6-v2",
  );
  if (!modelDir && !model) {
    read.problem(
      "SVC_EMBEDDER=onnx needs SVC_ONNX_MODEL_DIR (a model directory) or SVC_ONNX_MODEL " +
        "(a hub model id, downloaded into SVC_MODELS_DIR on first start)",
    );
  }
  const revision = read.matching(
    "SVC_ONNX_REVISION",
    REVISION,
    "SVC_ONNX_REVISION must be a branch, tag or commit of the model's repository",
  ) ?? "main";
  return { ...readRunSettings(read), modelDir, model, revision, modelsDir };
}

/**
 * The hub's address, a download's limits, and how a model runs: batches, threads, pooling and
 * prefixes.
 */
function readRunSettings(read: SettingsReader) {
  const endpointName = read.text("SVC_HF_ENDPOINT") === undefined
    ? "HF_ENDPOINT"
    : "SVC_HF_ENDPOINT";
  const endpoint = read.httpUrl(endpointName) ?? DEFAULT_HF_ENDPOINT;
  if (URL.canParse(endpoint)) {
    const { username, password, search, hash } = new URL(endpoint);
    if (username || password || search || hash) {
      read.problem(
        `${endpointName} must be the hub's address alone, without a user, password, query or ` +
          "fragment (the model's paths are added to it)",
      );
    }
  }
  return {
    endpoint: endpoint.replace(/\/+$/, ""),
    batchSize: read.integer("SVC_ONNX_BATCH", DEFAULT_BATCH, 1, 1024),
    threads: read.integer("SVC_ONNX_THREADS", 0, 0, 256),
    pooling: readPooling(read),
    queryPrefix: read.text("SVC_ONNX_QUERY_PREFIX"),
    documentPrefix: read.text("SVC_ONNX_PASSAGE_PREFIX"),
    download: readDownloadSettings(read),
  };
}
