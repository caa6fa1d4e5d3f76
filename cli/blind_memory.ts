/**
 * A `BlindMemory` as the CLI and the stdio package open one: it embeds with an ONNX model
 * (`modelDir`, else `SVC_ONNX_MODEL_DIR`), ranks with the GloVe re-ranker a relayer puts on
 * sentence models (its vectors in `SVC_MODELS_DIR`, converted there once), and keeps the
 * namespace's vectors in the encrypted index, in memory.
 */
import { BlindMemory } from "@svc/relayer/blind";
import type { SvcClientOptions } from "@svc/relayer/client";
import { OnnxEmbedder } from "@svc/onnx-embedder";
import { GloveEmbedder } from "@svc/glove-embedder";
import { EncryptedVectorStore } from "@svc/encrypted-index";
import { SqliteBlockStorage } from "@svc/encrypted-index/sqlite_storage";
import { UsageError } from "./client_flags.ts";

/**
 * The namespace's `BlindMemory`, and how to close what it opened; `settings`: where the model is,
 * which namespace, and the cache file, if any.
 */
export async function openBlindMemory(
  options: SvcClientOptions,
  env: (name: string) => string | undefined,
  settings: { modelDir?: string; namespace?: string; cacheFile?: string },
): Promise<{ memory: BlindMemory; close: () => Promise<void> }> {
  const dir = settings.modelDir ?? env("SVC_ONNX_MODEL_DIR");
  if (!dir) {
    throw new UsageError(
      "an operator-blind namespace is read with an ONNX model: give --model-dir DIR or " +
        "SVC_ONNX_MODEL_DIR",
    );
  }
  const embedder = await OnnxEmbedder.open({ dir });
  const glove = await GloveEmbedder.open({ cacheDir: env("SVC_MODELS_DIR") || "./data/models" });
  const vectors = await EncryptedVectorStore.open({
    storage: await SqliteBlockStorage.open(":memory:"),
    secret: crypto.getRandomValues(new Uint8Array(32)),
    model: embedder.model,
    dimensions: embedder.dimensions,
    soleWriter: true,
  });
  const memory = await BlindMemory.open({
    ...options,
    embedder,
    reranker: glove.reranker(),
    vectors,
    namespace: settings.namespace,
    cacheFile: settings.cacheFile,
  });
  const close = async () => {
    await vectors.close();
    await embedder.close();
  };
  return { memory, close };
}
