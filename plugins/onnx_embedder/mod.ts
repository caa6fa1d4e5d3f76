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
import { type Embedder, type EmbedOptions, type Logger, SvcError } from "../../src/kit.ts";
import { type HubModelOptions, openHubModel } from "./hub.ts";
import { type ModelRecipe, readModelDirectory } from "./model_dir.ts";
import type { PoolingMode } from "./pooling.ts";
import type { WorkerReply, WorkerRequest } from "./worker.ts";

export { type HubModelOptions, openHubModel } from "./hub.ts";
export { type ModelRecipe, readModelDirectory } from "./model_dir.ts";
export { POOLING_MODES, type PoolingMode } from "./pooling.ts";
export { type OnnxSettings, readOnnxSettings } from "./settings.ts";

/** Texts per run of the graph, by default. */
export const DEFAULT_BATCH = 32;

/** How to open the embedder: a model directory, or a hub model to download into a cache. */
export interface OnnxEmbedderOptions {
  /** A model directory to load (nothing is downloaded). */
  dir?: string;
  /** A hub model, downloaded into its cache unless it is there already (when `dir` is absent). */
  hub?: Omit<HubModelOptions, "logger">;
  /** The model's name (default: the hub id, else the directory's name); names its prefix family. */
  name?: string;
  /** Texts per run of the graph (default 32). */
  batchSize?: number;
  /** Threads of one run; 0 (the default) lets onnxruntime choose. */
  threads?: number;
  /** Pooling instead of the model's `1_Pooling/config.json`. */
  pooling?: PoolingMode[];
  /** Query prefix instead of the model's. */
  queryPrefix?: string;
  /** Document prefix instead of the model's. */
  documentPrefix?: string;
  /** Where download progress and the loaded model are reported. */
  logger?: Logger;
}

/** Texts waiting for the worker, and their caller; queries go before documents. */
interface Batch {
  texts: string[];
  resolve(vectors: Float32Array[]): void;
  reject(error: Error): void;
}

/** Embeds with an ONNX sentence-transformers model, in a worker of its own. */
export class OnnxEmbedder implements Embedder, AsyncDisposable {
  readonly name = "onnx";
  readonly model: string;
  /** What was loaded: the directory, pooling, length and prefixes. */
  readonly recipe: Readonly<ModelRecipe>;
  readonly #worker: Worker;
  readonly #batchSize: number;
  readonly #waiting: { query: Batch[]; document: Batch[] } = { query: [], document: [] };
  #running: { id: number; batch: Batch } | undefined;
  #nextId = 1;
  #stopped: Error | undefined;
  #closed: Promise<void> | undefined;
  #onClosed: (() => void) | undefined;
  #dimensions: number;

  private constructor(recipe: ModelRecipe, worker: Worker, batchSize: number) {
    this.recipe = recipe;
    this.#worker = worker;
    this.#batchSize = batchSize;
    this.#dimensions = 0;
    this.model = `onnx:${recipe.name}:${recipe.digest.slice(0, 16)}`;
    worker.onmessage = (event: MessageEvent<WorkerReply>) => this.#reply(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      this.#stop(new Error(`the worker stopped (${event.message})`));
      this.#onClosed?.();
    };
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
    const worker = new Worker(new URL("./worker.ts", import.meta.url), { type: "module" });
    try {
      await opened(worker, recipe, options.threads ?? 0);
    } catch (error) {
      worker.terminate();
      throw new SvcError(
        "backend_unavailable",
        `Cannot load the ONNX model from ${recipe.dir}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    const embedder = new OnnxEmbedder(recipe, worker, options.batchSize ?? DEFAULT_BATCH);
    try {
      [{ length: embedder.#dimensions }] = await embedder.embed(["dimension probe"]);
    } catch (error) {
      await embedder.close();
      throw new SvcError(
        "backend_unavailable",
        `Cannot load the ONNX model from ${recipe.dir}: a first embedding failed ` +
          `(${((error as Error).cause as Error | undefined)?.message ?? (error as Error).message})`,
        { cause: error },
      );
    }
    const dimensions = embedder.dimensions;
    options.logger?.info("onnx embedder loaded", {
      model: embedder.model,
      dir: recipe.dir,
      dimensions,
      pooling: recipe.pooling.join("+"),
      pooling_from: recipe.poolingFrom,
      max_length: recipe.maxLength,
      prefixed: Boolean(recipe.prefixes.query || recipe.prefixes.document),
    });
    return embedder;
  }

  /**
   * One normalised vector per text. Texts are prefixed for their `purpose`, sorted by length and
   * run in batches; a query waits for the batch running, never for queued documents.
   */
  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const { signal } = options;
    signal?.throwIfAborted();
    if (texts.length === 0) return [];
    const purpose = options.purpose === "query" ? "query" : "document";
    const prefix = this.recipe.prefixes[purpose];
    const order = texts.map((_, i) => i).sort((a, b) => texts[b].length - texts[a].length);
    const out: Float32Array[] = new Array(texts.length);
    for (let start = 0; start < order.length; start += this.#batchSize) {
      const slice = order.slice(start, start + this.#batchSize);
      const vectors = await this.#run(purpose, slice.map((i) => prefix + texts[i]), signal);
      for (const [j, i] of slice.entries()) out[i] = vectors[j];
    }
    return out;
  }

  #run(purpose: "query" | "document", texts: string[], signal?: AbortSignal) {
    return new Promise<Float32Array[]>((resolve, reject) => {
      if (this.#stopped) return reject(this.#unavailable(this.#stopped));
      const lane = this.#waiting[purpose];
      const settled = () => signal?.removeEventListener("abort", onAbort);
      const batch: Batch = {
        texts,
        resolve: (vectors) => (settled(), resolve(vectors)),
        reject: (error) => (settled(), reject(error)),
      };
      // A batch still waiting leaves the queue; one running finishes, its vectors unused.
      const onAbort = () => {
        if (lane.includes(batch)) lane.splice(lane.indexOf(batch), 1);
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      lane.push(batch);
      this.#next();
    });
  }

  /** Sends the next batch when none is running. */
  #next() {
    if (this.#running || this.#stopped) return;
    const batch = this.#waiting.query.shift() ?? this.#waiting.document.shift();
    if (!batch) return;
    const id = this.#nextId++;
    this.#running = { id, batch };
    this.#post({ type: "encode", id, texts: batch.texts });
  }

  #post(request: WorkerRequest) {
    this.#worker.postMessage(request);
  }

  #reply(reply: WorkerReply) {
    if (reply.type === "closed") this.#onClosed?.();
    if (reply.type !== "vectors" && reply.type !== "error") return;
    const running = this.#running;
    if (!running || running.id !== reply.id) return;
    this.#running = undefined;
    if (reply.type === "vectors") running.batch.resolve(reply.vectors);
    else running.batch.reject(this.#unavailable(new Error(reply.message)));
    this.#next();
  }

  #unavailable(cause: Error): SvcError {
    return new SvcError(
      "backend_unavailable",
      `Cannot embed with the ONNX model: ${cause.message}`,
      { cause },
    );
  }

  /** Fails what waits and everything after: the worker is gone. */
  #stop(reason: Error) {
    if (this.#stopped) return;
    this.#stopped = reason;
    const batches = [
      ...(this.#running ? [this.#running.batch] : []),
      ...this.#waiting.query.splice(0),
      ...this.#waiting.document.splice(0),
    ];
    this.#running = undefined;
    for (const batch of batches) batch.reject(this.#unavailable(reason));
  }

  /** Stops the worker after it released the session; later calls fail. */
  close(): Promise<void> {
    this.#closed ??= this.#shutdown();
    return this.#closed;
  }

  async #shutdown() {
    const alive = this.#stopped === undefined;
    this.#stop(new Error("the embedder is closed"));
    if (alive) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        this.#onClosed = resolve;
        timer = setTimeout(resolve, 5_000);
        this.#post({ type: "close" });
      });
      clearTimeout(timer);
    }
    this.#worker.terminate();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** Resolves once the worker has loaded the model; rejects with its reason. */
function opened(worker: Worker, recipe: ModelRecipe, threads: number): Promise<void> {
  return new Promise((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<WorkerReply>) => {
      if (event.data.type === "opened") resolve();
      else if (event.data.type === "failed") reject(new Error(event.data.message));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(event.message));
    };
    const { dir, modelFile, tokenizerConfig, pooling, maxLength, hidden } = recipe;
    const request: WorkerRequest = {
      type: "open",
      recipe: { dir, modelFile, tokenizerConfig, pooling, maxLength, hidden },
      options: { threads },
    };
    worker.postMessage(request);
  });
}
