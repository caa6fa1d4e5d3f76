/**
 * The embedder's worker: owns the tokenizer and the ONNX session, so that a run of the graph
 * (which holds the thread it runs on) never stalls the relayer's event loop. It answers one
 * message at a time, in order.
 *
 * Messages in: `open` (the recipe), `encode` (a batch of texts, prefixed already), `close`.
 * Messages out: `opened` | `failed` (to `open`), `vectors` | `error` (to `encode`, by `id`),
 * `closed`.
 */
import { type EncoderOptions, type EncoderRecipe, SentenceEncoder } from "./encoder.ts";

/** A message to the worker. */
export type WorkerRequest =
  | { type: "open"; recipe: EncoderRecipe; options: EncoderOptions }
  | { type: "encode"; id: number; texts: string[] }
  | { type: "close" };

/** A message from the worker. */
export type WorkerReply =
  | { type: "opened" }
  | { type: "failed"; message: string }
  | { type: "vectors"; id: number; vectors: Float32Array[] }
  | { type: "error"; id: number; message: string }
  | { type: "closed" };

const scope = self as unknown as {
  onmessage: ((event: MessageEvent<WorkerRequest>) => void) | null;
  postMessage(message: WorkerReply, transfer?: Transferable[]): void;
};

let encoder: SentenceEncoder | undefined;
let queue = Promise.resolve();

async function handle(request: WorkerRequest): Promise<void> {
  switch (request.type) {
    case "open":
      try {
        encoder = await SentenceEncoder.open(request.recipe, request.options);
        scope.postMessage({ type: "opened" });
      } catch (error) {
        scope.postMessage({ type: "failed", message: (error as Error).message });
      }
      return;
    case "encode":
      try {
        if (!encoder) throw new Error("the model is not loaded");
        const vectors = await encoder.encode(request.texts);
        scope.postMessage(
          { type: "vectors", id: request.id, vectors },
          vectors.map((vector) => vector.buffer as ArrayBuffer),
        );
      } catch (error) {
        scope.postMessage({ type: "error", id: request.id, message: (error as Error).message });
      }
      return;
    case "close":
      await encoder?.release();
      encoder = undefined;
      scope.postMessage({ type: "closed" });
  }
}

scope.onmessage = (event) => {
  queue = queue.then(() => handle(event.data));
};
