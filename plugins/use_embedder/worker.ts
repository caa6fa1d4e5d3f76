/**
 * The embedder's worker: owns the TensorFlow.js graph, so that a run of it (which holds the
 * thread for tens to hundreds of milliseconds) never stalls the relayer's event loop. It answers
 * one message at a time, in order.
 *
 * Messages in: `open`, `encode` (a batch of texts, by `id`), `close`.
 * Messages out: `opened` | `failed` (to `open`), `vectors` | `error` (to `encode`), `closed`.
 */
import { UseModel } from "./model.ts";

/** A message to the worker. */
export type WorkerRequest =
  | { type: "open"; dir: string }
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

let model: UseModel | undefined;
let queue = Promise.resolve();

async function handle(request: WorkerRequest): Promise<void> {
  switch (request.type) {
    case "open":
      try {
        model = await UseModel.open(new URL(request.dir));
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
      model?.release();
      model = undefined;
      scope.postMessage({ type: "closed" });
  }
}

scope.onmessage = (event) => {
  queue = queue.then(() => handle(event.data));
};
