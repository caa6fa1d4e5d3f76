/**
 * Operator-blind devices as the CLI runs them, for the benchmarks: `BlindMemory` clients that
 * embed with one ONNX model loaded in this process, rank with the GloVe re-ranker a relayer puts
 * on sentence models, and keep each namespace's vectors in the encrypted index, in memory.
 */
import { BlindMemory } from "../src/client/blind.ts";
import { OnnxEmbedder } from "../plugins/onnx_embedder/mod.ts";
import { EncryptedVectorStore } from "../plugins/encrypted_index/mod.ts";
import { SqliteBlockStorage } from "../plugins/encrypted_index/sqlite_storage.ts";
import { GloveEmbedder } from "../plugins/glove_embedder/mod.ts";

/** Where a device reaches its relayer, and as whom. */
export interface DeviceAccount {
  baseUrl: string;
  privateKey: string;
  accountId: string;
}

/** Loads the model in `modelDir` and the re-ranker's word vectors in `modelsDir`, once. */
export async function blindDevices(modelDir: string, modelsDir: string) {
  const embedder = await OnnxEmbedder.open({ dir: modelDir });
  const reranker = (await GloveEmbedder.open({ cacheDir: modelsDir })).reranker();
  return {
    embedder,
    /** A device of `account` reading `namespace`. */
    device: async (account: DeviceAccount, namespace: string) =>
      BlindMemory.open({
        ...account,
        embedder,
        reranker,
        namespace,
        vectors: await EncryptedVectorStore.open({
          storage: await SqliteBlockStorage.open(":memory:"),
          secret: crypto.getRandomValues(new Uint8Array(32)),
          model: embedder.model,
          dimensions: embedder.dimensions,
          soleWriter: true,
        }),
      }),
  };
}
