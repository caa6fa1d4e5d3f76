/**
 * The sentence encoder's worker (see `EmbedWorker` in the kit): owns the onnxruntime session, so
 * that a run of it never stalls the relayer's event loop. `open` carries the model package's
 * directory and the cache directory.
 */
import { EmbedWorker } from "@svc/relayer/kit";
import { UseModel } from "./model.ts";

EmbedWorker.serve(async (settings) => {
  const { dir, cacheDir } = settings as { dir: string; cacheDir?: string };
  return await UseModel.open(new URL(dir), cacheDir);
});
