/**
 * An embedder whose model runs in a worker thread of its own, so that a run of the graph (which
 * holds its thread for tens to hundreds of milliseconds) never stalls the relayer's event loop.
 * `EmbedWorker` is the relayer's side: texts sorted by length go to the worker in batches, one
 * at a time, and a query waits for the batch running, never for queued documents; queries
 * waiting together go to the worker in one batch (micro-batching). It keeps no query's vector:
 * recall keeps each account's own apart (`services/memories.ts`).
 * `EmbedWorker.serve` is the worker's side: it answers one message at a time, in order.
 *
 * Messages in: `open` (the plugin's settings), `encode` (a batch of texts, by `id`), `close`.
 * Messages out: `opened` | `failed` (to `open`), `vectors` | `error` (to `encode`), `closed`.
 */
import { SvcError } from "../errors.ts";

/** A message to the worker; `open` carries the plugin's own settings. */
type EmbedWorkerRequest =
  | { type: "open"; settings: unknown }
  | { type: "encode"; id: number; texts: string[] }
  | { type: "close" };

/** A message from the worker. */
type EmbedWorkerReply =
  | { type: "opened" }
  | { type: "failed"; message: string }
  | { type: "vectors"; id: number; vectors: Float32Array[] }
  | { type: "error"; id: number; message: string }
  | { type: "closed" };

/** A loaded model, as the worker holds it. */
export interface WorkerModel {
  /** One vector per text, in order. */
  encode(texts: string[]): Promise<Float32Array[]>;
  /** Frees the model. */
  release(): void | Promise<void>;
}

/** Texts waiting for the worker, and their caller. */
interface Batch {
  texts: string[];
  resolve(vectors: Float32Array[]): void;
  reject(error: Error): void;
}

/** The relayer's side of an embedder's worker; see the module documentation. */
export class EmbedWorker {
  readonly #worker: Worker;
  readonly #batchSize: number;
  /** What the errors name: "the ONNX model", "the sentence encoder". */
  readonly #what: string;
  readonly #waiting: { query: Batch[]; document: Batch[] } = { query: [], document: [] };
  #running: { id: number; batches: Batch[] } | undefined;
  #nextId = 1;
  #stopped: Error | undefined;
  #closed: Promise<void> | undefined;
  #onClosed: (() => void) | undefined;

  /**
   * The worker's side, run in the worker's module: loads the model from `open`'s settings and
   * answers the relayer (see the module documentation).
   */
  static serve(load: (settings: unknown) => Promise<WorkerModel>): void {
    const scope = self as unknown as {
      onmessage: ((event: MessageEvent<EmbedWorkerRequest>) => void) | null;
      postMessage(message: EmbedWorkerReply, transfer?: Transferable[]): void;
    };
    let model: WorkerModel | undefined;
    let queue = Promise.resolve();
    const handle = async (request: EmbedWorkerRequest): Promise<void> => {
      switch (request.type) {
        case "open":
          try {
            model = await load(request.settings);
            scope.postMessage({ type: "opened" });
          } catch (error) {
            scope.postMessage({ type: "failed", message: (error as Error).message });
          }
          return;
        case "encode":
          try {
            if (!model) throw new Error("the model is not loaded");
            const vectors = await model.encode(request.texts);
            scope.postMessage(
              { type: "vectors", id: request.id, vectors },
              vectors.map((vector) => vector.buffer as ArrayBuffer),
            );
          } catch (error) {
            scope.postMessage({ type: "error", id: request.id, message: (error as Error).message });
          }
          return;
        case "close":
          await model?.release();
          model = undefined;
          scope.postMessage({ type: "closed" });
      }
    };
    scope.onmessage = (event) => {
      queue = queue.then(() => handle(event.data));
    };
  }

  private constructor(worker: Worker, batchSize: number, what: string) {
    this.#worker = worker;
    this.#batchSize = Math.max(1, batchSize);
    this.#what = what;
    worker.onmessage = (event: MessageEvent<EmbedWorkerReply>) => this.#reply(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      this.#stop(new Error(`the worker stopped (${event.message})`));
      this.#onClosed?.();
    };
  }

  /**
   * Starts the module worker at `url` and has it load its model from `settings`; rejects with
   * the worker's reason (the worker then stopped).
   */
  static async start(
    url: URL,
    settings: unknown,
    options: { batchSize: number; what: string },
  ): Promise<EmbedWorker> {
    const worker = new Worker(url, { type: "module" });
    try {
      await opened(worker, settings);
    } catch (error) {
      worker.terminate();
      throw error;
    }
    return new EmbedWorker(worker, options.batchSize, options.what);
  }

  /**
   * One vector per text, in the order of `texts`, each text after `prefix`; sorted by length and
   * run in batches. A text given twice is embedded once: a batch's padding can move a vector's
   * last bit, and equal texts get equal vectors.
   */
  async embed(
    texts: string[],
    purpose: "query" | "document",
    options: { prefix?: string; signal?: AbortSignal } = {},
  ): Promise<Float32Array[]> {
    const { prefix = "", signal } = options;
    signal?.throwIfAborted();
    const distinct = [...new Set(texts)].sort((a, b) => b.length - a.length);
    const vectors = new Map<string, Float32Array>();
    for (let start = 0; start < distinct.length; start += this.#batchSize) {
      const slice = distinct.slice(start, start + this.#batchSize);
      const batch = await this.#run(purpose, slice.map((text) => prefix + text), signal);
      for (const [j, text] of slice.entries()) vectors.set(text, batch[j]);
    }
    const given = new Set<string>();
    return texts.map((text) => {
      const vector = vectors.get(text)!;
      if (given.has(text)) return vector.slice();
      given.add(text);
      return vector;
    });
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

  /**
   * Sends the next batch when none is running: queries first, and the queries waiting together
   * in one run, up to a batch's size (concurrent recalls share one inference call).
   */
  #next() {
    if (this.#running || this.#stopped) return;
    const { query, document } = this.#waiting;
    const first = query.shift() ?? document.shift();
    if (!first) return;
    const batches = [first];
    let count = first.texts.length;
    while (query.length > 0 && count + query[0].texts.length <= this.#batchSize) {
      count += query[0].texts.length;
      batches.push(query.shift()!);
    }
    const id = this.#nextId++;
    this.#running = { id, batches };
    this.#post({ type: "encode", id, texts: batches.flatMap((batch) => batch.texts) });
  }

  #post(request: EmbedWorkerRequest) {
    this.#worker.postMessage(request);
  }

  #reply(reply: EmbedWorkerReply) {
    if (reply.type === "closed") this.#onClosed?.();
    if (reply.type !== "vectors" && reply.type !== "error") return;
    const running = this.#running;
    if (!running || running.id !== reply.id) return;
    this.#running = undefined;
    let at = 0;
    for (const batch of running.batches) {
      if (reply.type === "error") batch.reject(this.#unavailable(new Error(reply.message)));
      else batch.resolve(reply.vectors.slice(at, at += batch.texts.length));
    }
    this.#next();
  }

  #unavailable(cause: Error): SvcError {
    return new SvcError(
      "backend_unavailable",
      `Cannot embed with ${this.#what}: ${cause.message}`,
      { cause },
    );
  }

  /** Fails what waits and everything after: the worker is gone. */
  #stop(reason: Error) {
    if (this.#stopped) return;
    this.#stopped = reason;
    const batches = [
      ...this.#running?.batches ?? [],
      ...this.#waiting.query.splice(0),
      ...this.#waiting.document.splice(0),
    ];
    this.#running = undefined;
    for (const batch of batches) batch.reject(this.#unavailable(reason));
  }

  /** Stops the worker after it freed its model; later calls fail. */
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
}

/** Resolves once the worker has loaded its model; rejects with its reason. */
function opened(worker: Worker, settings: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<EmbedWorkerReply>) => {
      if (event.data.type === "opened") resolve();
      else if (event.data.type === "failed") reject(new Error(event.data.message));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(event.message));
    };
    const request: EmbedWorkerRequest = { type: "open", settings };
    worker.postMessage(request);
  });
}
