/**
 * The ONNX embedder's worker (see `EmbedWorker` in the kit): owns the tokenizer and the ONNX
 * session, so that a run of the graph never stalls the relayer's event loop.
 */
import { EmbedWorker } from "@svc/relayer/kit";
import { type EncoderOptions, type EncoderRecipe, SentenceEncoder } from "./encoder.ts";

/** What `open` carries: the model's recipe and the session's options. */
export interface WorkerSettings {
  recipe: EncoderRecipe;
  options: EncoderOptions;
}

EmbedWorker.serve(async (settings) => {
  const { recipe, options } = settings as WorkerSettings;
  return await SentenceEncoder.open(recipe, options);
});
