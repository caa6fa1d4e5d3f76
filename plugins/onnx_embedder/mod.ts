/**
 * `SVC_EMBEDDER=onnx`: a sentence-transformers model exported to ONNX (all-MiniLM-L6-v2,
 * bge-small-en-v1.5, multilingual-e5-small and the like), run on this machine with
 * `onnxruntime-node` and tokenised by `@huggingface/tokenizers` from the model's own
 * `tokenizer.json`. The model's pooling comes from `1_Pooling/config.json`, its maximum length
 * from its configs, its query/passage prefixes from `config_sentence_transformers.json` or its
 * family (e5, bge, nomic); vectors are L2-normalised. Texts go to the graph in batches, sorted
 * by length so little padding is computed, and the graph runs in a worker of its own.
 *
 * The model comes from a directory (`dir`), or from the hub (`hub`): downloaded once into a
 * cache with every file's checksum verified (`hub.ts`). `model` is `onnx:<name>:<digest>`, the
 * digest covering the graph's and tokenizer's bytes, the pooling, the length and the prefixes,
 * so an index built with anything else is refused.
 *
 * @example
 * ```ts
 * const embedder = await OnnxEmbedder.open({ dir: "./models/all-MiniLM-L6-v2" });
 * const [memory] = await embedder.embed(["I commute by bicycle"]);
 * const [query] = await embedder.embed(["How do I get to work?"], { purpose: "query" });
 * await embedder.close();
 * ```
 */
import {
  type Embedder,
  type EmbedderRanking,
  type EmbedOptions,
  EmbedWorker,
  type Logger,
} from "@svc/relayer/kit";
import { type HubModelOptions, openHubModel } from "./hub.ts";
import { DEFAULT_BATCH } from "./settings.ts";
import {
  cannotLoad,
  type ModelDirOptions,
  type ModelRecipe,
  readModelDirectory,
} from "./model_dir.ts";
import type { WorkerSettings } from "./worker.ts";

export { hubAnswers, type HubModel, type HubModelOptions, openHubModel } from "./hub.ts";
export { type ModelDirOptions, type ModelRecipe, readModelDirectory } from "./model_dir.ts";
export type { Prefixes } from "./families.ts";
export type { DownloadLimits } from "./download_limits.ts";
export type { ModelPins, PinnedFile, ReleasePins } from "./pins.ts";
export { POOLING_MODES, type PoolingMode } from "./pooling.ts";
export { DEFAULT_BATCH, type OnnxSettings, readOnnxSettings } from "./settings.ts";
export type {
  CallOptions,
  Embedder,
  EmbedderRanking,
  EmbedOptions,
  FusionWeights,
  LogFields,
  Logger,
  MemoryKind,
  SettingsReader,
} from "@svc/relayer/kit";

/**
 * How to open the embedder: a model directory, or a hub model to download into a cache; pooling
 * and prefixes instead of the model's.
 */
export interface OnnxEmbedderOptions
  extends Pick<ModelDirOptions, "pooling" | "queryPrefix" | "documentPrefix"> {
  /** A model directory to load (nothing is downloaded). */
  dir?: string;
  /** A hub model, downloaded into its cache unless it is there already (when `dir` is absent). */
  hub?: Omit<HubModelOptions, "logger">;
  /** The model's name (default: the hub id, else the directory's name); names its prefix family. */
  name?: string;
  /** Texts per run of the graph (default 32; 1 for a dynamically quantised graph). */
  batchSize?: number;
  /** Threads of one run; 0 (the default) lets onnxruntime choose. */
  threads?: number;
  /** Where download progress and the loaded model are reported. */
  logger?: Logger;
}

/**
 * Recall's weights for sentence-transformers models (with the GloVe word-level re-ranker), tuned
 * with bench/fusion_tuning.ts on the tuning halves with all-MiniLM-L6-v2 and bge-small-en-v1.5,
 * which chose the same weights for a fact and, for a turn, 1.5 and 1 for the re-ranker
 * (MiniLM's kept).
 */
export const ONNX_RANKING: EmbedderRanking = {
  weights: {
    turn: { lexical: 0.5, rerank: 1.5, answer: 0 },
    fact: { lexical: 0, rerank: 0.1, answer: 0 },
  },
};

/**
 * The model id an embedder of `recipe` reports (`onnx:<name>:<digest>`): what an index and an
 * operator-blind namespace's manifest pin. A client in another language embedding by the same
 * recipe reports it too.
 */
export function onnxModelId(recipe: Pick<ModelRecipe, "name" | "digest">): string {
  return `onnx:${recipe.name}:${recipe.digest.slice(0, 16)}`;
}

/** Embeds with an ONNX sentence-transformers model, in a worker of its own. */
export class OnnxEmbedder implements Embedder, AsyncDisposable {
  readonly name = "onnx";
  readonly model: string;
  readonly ranking: EmbedderRanking = ONNX_RANKING;
  /** What was loaded: the directory, pooling, length and prefixes. */
  readonly recipe: Readonly<ModelRecipe>;
  readonly #worker: EmbedWorker;
  #dimensions: number;

  private constructor(recipe: ModelRecipe, worker: EmbedWorker) {
    this.recipe = recipe;
    this.#worker = worker;
    this.#dimensions = 0;
    this.model = onnxModelId(recipe);
  }

  /** The size of every vector, learnt from a first embedding at `open`. */
  get dimensions(): number {
    return this.#dimensions;
  }

  /**
   * Loads the model (downloading it first with `hub`), starts the worker and embeds a probe to
   * learn the dimensions. Any problem is a `backend_unavailable` error naming the directory.
   */
  static async open(options: OnnxEmbedderOptions): Promise<OnnxEmbedder> {
    let dir = options.dir;
    let digests: Record<string, string> | undefined;
    if (dir === undefined) {
      if (!options.hub) throw new Error("OnnxEmbedder.open needs `dir` or `hub`");
      ({ dir, digests } = await openHubModel({ ...options.hub, logger: options.logger }));
    }
    const recipe = await readModelDirectory({
      dir,
      name: options.name ?? options.hub?.model,
      pooling: options.pooling,
      queryPrefix: options.queryPrefix,
      documentPrefix: options.documentPrefix,
      digests,
    });
    const { modelFile, tokenizerConfig, pooling, maxLength, hidden } = recipe;
    const settings: WorkerSettings = {
      recipe: { dir: recipe.dir, modelFile, tokenizerConfig, pooling, maxLength, hidden },
      options: { threads: options.threads ?? 0 },
    };
    let worker: EmbedWorker;
    try {
      worker = await EmbedWorker.start(new URL("./worker.ts", import.meta.url), settings, {
        batchSize: recipe.oneAtATime ? 1 : options.batchSize ?? DEFAULT_BATCH,
        what: "the ONNX model",
      });
    } catch (error) {
      throw cannotLoad(recipe.dir, (error as Error).message, error);
    }
    const embedder = new OnnxEmbedder(recipe, worker);
    try {
      [{ length: embedder.#dimensions }] = await embedder.embed(["dimension probe"]);
    } catch (error) {
      await embedder.close();
      const why = ((error as Error).cause as Error | undefined)?.message ??
        (error as Error).message;
      throw cannotLoad(recipe.dir, `a first embedding failed (${why})`, error);
    }
    const dimensions = embedder.dimensions;
    options.logger?.info("onnx embedder loaded", {
      model: embedder.model,
      dir: recipe.dir,
      dimensions,
      pooling: recipe.pooling.join("+"),
      pooling_from: recipe.poolingFrom,
      max_length: recipe.maxLength,
      one_at_a_time: recipe.oneAtATime,
      prefixed: Boolean(recipe.prefixes.query || recipe.prefixes.document),
    });
    return embedder;
  }

  /**
   * One normalised vector per text. Texts are prefixed for their `purpose`, sorted by length and
   * run in batches; a query waits for the batch running, never for queued documents.
   */
  embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const purpose = options.purpose === "query" ? "query" : "document";
    const prefix = this.recipe.prefixes[purpose];
    return this.#worker.embed(texts, purpose, { prefix, signal: options.signal });
  }

  /** Stops the worker after it released the session; later calls fail. */
  close(): Promise<void> {
    return this.#worker.close();
  }

  /** Stops the worker, as `close` does. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
