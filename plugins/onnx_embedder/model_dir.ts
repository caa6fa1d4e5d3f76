/**
 * Reads a sentence-transformers model directory, laid out as the hub lays it out, into the
 * recipe the embedder runs: which graph, which tokenizer, which pooling, how long a sequence,
 * which prefixes, and a digest of all of it (the embedder's `model` id, so an index built with
 * another model or recipe is refused). Everything wrong with the directory is a start-up error
 * that names the directory and the file.
 */
import { createHash } from "node:crypto";
import { SvcError } from "@svc/relayer/kit";
import { nullIfMissing } from "@svc/util/files";
import { POOLING_KEYS, POOLING_MODES, type PoolingMode } from "./pooling.ts";
import { familyPooling, modelPrefixes, type Prefixes } from "./families.ts";
import { operatorsOf } from "./onnx_operators.ts";

/** Where the ONNX graph may sit in a model directory, in the order they are looked for. */
export const MODEL_FILES = ["model.onnx", "onnx/model.onnx"];
/** The files a model directory must hold besides the graph. */
export const REQUIRED_FILES = ["tokenizer.json", "config.json"];
/** The files read when present. */
export const OPTIONAL_FILES = [
  "tokenizer_config.json",
  "special_tokens_map.json",
  "modules.json",
  "1_Pooling/config.json",
  "sentence_bert_config.json",
  "config_sentence_transformers.json",
];
/** Operators that quantise their input by its range in each run. */
const DYNAMIC_QUANTISATION = [
  "DynamicQuantizeLinear",
  "DynamicQuantizeMatMul",
  "DynamicQuantizeLSTM",
];
/** sentence-transformers modules the embedder runs; any other module is refused. */
const MODULES = new Set([
  "sentence_transformers.models.Transformer",
  "sentence_transformers.models.Pooling",
  "sentence_transformers.models.Normalize",
]);

/** Everything the embedder needs to turn texts into vectors with this model. */
export interface ModelRecipe {
  /** The model directory. */
  dir: string;
  /** The model's name: the hub id, or the directory's name. */
  name: string;
  /** The ONNX graph, a path inside `dir`. */
  modelFile: string;
  /** `tokenizer_config.json`, parsed (`{}` when absent). */
  tokenizerConfig: Record<string, unknown>;
  /** Pooling modes, concatenated in this order. */
  pooling: PoolingMode[];
  /** Where `pooling` came from. */
  poolingFrom: "1_Pooling/config.json" | "setting" | "family" | "default";
  /** Whether the model's modules end with `Normalize` (the vectors are normalised anyway). */
  normalize: boolean;
  /** Tokens per text at most, special tokens included; longer texts are truncated. */
  maxLength: number;
  /** The size of a token state, when the config states it. */
  hidden?: number;
  /** Put before queries and documents. */
  prefixes: Prefixes;
  /**
   * Whether the graph quantises its activations by the range of each run (dynamic
   * quantisation), so a text's vector would depend on the texts batched with it: the embedder
   * runs such a graph one text at a time.
   */
  oneAtATime: boolean;
  /** SHA-256 (hex) of everything above that shapes a vector, and of the graph's bytes. */
  digest: string;
}

/** How to read a model directory. */
export interface ModelDirOptions {
  /** The directory. */
  dir: string;
  /** The model's name (default: the directory's name); a hub id names its prefix family. */
  name?: string;
  /** Pooling instead of `1_Pooling/config.json`'s. */
  pooling?: PoolingMode[];
  /** Query prefix instead of the model's. */
  queryPrefix?: string;
  /** Document prefix instead of the model's. */
  documentPrefix?: string;
  /** SHA-256 (hex) of files already verified (a download), by path inside `dir`. */
  digests?: Record<string, string>;
}

/** The start-up error of a model that cannot be loaded from `dir`, saying why. */
export function cannotLoad(dir: string, state: string, cause?: unknown): SvcError {
  return new SvcError(
    "backend_unavailable",
    `Cannot load the ONNX model from ${dir}: ${state}`,
    cause === undefined ? undefined : { cause },
  );
}

async function isFile(path: string): Promise<boolean> {
  return (await nullIfMissing(Deno.stat(path)))?.isFile ?? false;
}

/** SHA-256 of a file, streamed. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  using file = await Deno.open(path);
  for await (const chunk of file.readable) hash.update(chunk);
  return hash.digest("hex");
}

async function readJson(
  dir: string,
  path: string,
  required: boolean,
): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(`${dir}/${path}`);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      throw cannotLoad(dir, `${path} cannot be read (${(error as Error).message})`, error);
    }
    if (required) throw cannotLoad(dir, `${path} is missing`);
    return undefined;
  }
  try {
    const value = JSON.parse(text);
    if (typeof value !== "object" || value === null) throw new Error("not a JSON object");
    return value;
  } catch (error) {
    throw cannotLoad(dir, `${path} is not valid JSON (${(error as Error).message})`, error);
  }
}

/** The modules of `modules.json`: the pooling config's path and whether it normalises. */
function readModules(dir: string, modules: unknown): { poolingPath: string; normalize: boolean } {
  if (modules === undefined) return { poolingPath: "1_Pooling", normalize: false };
  if (!Array.isArray(modules)) throw cannotLoad(dir, "modules.json is not a list of modules");
  let poolingPath = "1_Pooling";
  let normalize = false;
  for (const module of modules as { type?: string; path?: string }[]) {
    const type = String(module?.type);
    if (!MODULES.has(type)) {
      throw cannotLoad(
        dir,
        `modules.json lists ${type} (${module?.path ?? "?"}), which this embedder does not ` +
          `run; it runs Transformer, Pooling and Normalize modules only`,
      );
    }
    if (type.endsWith(".Pooling") && module.path) poolingPath = module.path;
    if (type.endsWith(".Normalize")) normalize = true;
  }
  return { poolingPath, normalize };
}

function readPooling(dir: string, path: string, config: Record<string, unknown>): PoolingMode[] {
  if (config.include_prompt === false) {
    throw cannotLoad(
      dir,
      `${path} sets include_prompt to false (prompt tokens left out of the pooling), which ` +
        `this embedder does not support`,
    );
  }
  const modes = POOLING_MODES.filter((mode) => config[POOLING_KEYS[mode]] === true);
  if (modes.length === 0) throw cannotLoad(dir, `${path} turns no pooling mode on`);
  return modes;
}

function positive(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** The longest sequence: sentence-transformers' limit, else the tokenizer's, capped by the model's. */
function readMaxLength(
  tokenizer: Record<string, unknown>,
  tokenizerConfig: Record<string, unknown>,
  config: Record<string, unknown>,
  sentenceBert?: Record<string, unknown>,
): number {
  const truncation = tokenizer.truncation as { max_length?: unknown } | null | undefined;
  const tokenizerMax = positive(tokenizerConfig.model_max_length);
  const length = positive(sentenceBert?.max_seq_length) ??
    positive(truncation?.max_length) ??
    (tokenizerMax !== undefined && tokenizerMax <= 100_000 ? tokenizerMax : undefined) ?? 512;
  return Math.min(length, positive(config.max_position_embeddings) ?? length);
}

/** Whether the graph at `path` quantises by the range of each run (`DYNAMIC_QUANTISATION`). */
async function quantisedPerRun(path: string): Promise<boolean> {
  const bytes = await Deno.readFile(path);
  let operators: Set<string>;
  try {
    operators = operatorsOf(bytes);
  } catch {
    return false; // not a graph protobufjs reads: onnxruntime names what is wrong with it
  }
  return DYNAMIC_QUANTISATION.some((op) => operators.has(op));
}

/** Reads and checks a model directory; throws a start-up error naming what is wrong. */
export async function readModelDirectory(options: ModelDirOptions): Promise<ModelRecipe> {
  const dir = options.dir.replace(/\/+$/, "") || "/";
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(dir);
  } catch (error) {
    throw cannotLoad(
      dir,
      error instanceof Deno.errors.NotFound
        ? "the directory does not exist (put model.onnx, tokenizer.json and config.json in it)"
        : `the directory cannot be read (${(error as Error).message})`,
      error,
    );
  }
  if (!info.isDirectory) throw cannotLoad(dir, "it is not a directory");
  let modelFile: string | undefined;
  for (const candidate of MODEL_FILES) {
    if (await isFile(`${dir}/${candidate}`)) {
      modelFile = candidate;
      break;
    }
  }
  if (!modelFile) {
    throw cannotLoad(dir, `it holds no ONNX graph (looked for ${MODEL_FILES.join(" and ")})`);
  }
  const json = (path: string, required = false) => readJson(dir, path, required);
  const tokenizer = (await json("tokenizer.json", true))!;
  const config = (await json("config.json", true))!;
  const tokenizerConfig = await json("tokenizer_config.json") ?? {};
  const { poolingPath, normalize } = readModules(dir, await json("modules.json"));
  const poolingConfig = await json(`${poolingPath}/config.json`);
  const sentenceBert = await json("sentence_bert_config.json");
  const sentenceTransformers = await json("config_sentence_transformers.json");
  const name = options.name ?? dir.slice(dir.lastIndexOf("/") + 1);
  const family = familyPooling(name);
  const pooling = options.pooling ??
    (poolingConfig
      ? readPooling(dir, `${poolingPath}/config.json`, poolingConfig)
      : [family ?? "mean"]);
  const poolingFrom = options.pooling
    ? "setting"
    : poolingConfig
    ? "1_Pooling/config.json"
    : family
    ? "family"
    : "default";
  const declared = modelPrefixes(name, sentenceTransformers);
  const prefixes = {
    query: options.queryPrefix ?? declared.query,
    document: options.documentPrefix ?? declared.document,
  };
  const maxLength = readMaxLength(tokenizer, tokenizerConfig, config, sentenceBert);
  const hidden = positive(poolingConfig?.word_embedding_dimension) ?? positive(config.hidden_size);
  const digestOf = async (path: string) =>
    options.digests?.[path] ??
      (await isFile(`${dir}/${path}`) ? await sha256File(`${dir}/${path}`) : null);
  const files = [modelFile, `${modelFile}_data`, "tokenizer.json", "tokenizer_config.json"];
  const digests = await Promise.all(files.map(digestOf));
  const oneAtATime = await quantisedPerRun(`${dir}/${modelFile}`);
  const digest = createHash("sha256").update(JSON.stringify({
    files: Object.fromEntries(files.map((path, i) => [path, digests[i]])),
    pooling,
    maxLength,
    prefixes,
  })).digest("hex");
  return {
    dir,
    name,
    modelFile,
    tokenizerConfig,
    pooling,
    poolingFrom,
    normalize,
    maxLength,
    hidden,
    prefixes,
    oneAtATime,
    digest,
  };
}
