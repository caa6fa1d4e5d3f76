/**
 * The lexical embedder as the composition chooses it: `SVC_EMBEDDER=lexical`, no settings.
 *
 * @module
 */
import type { EmbedderPlugin } from "@svc/relayer/kit";

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

/** `SVC_EMBEDDER=lexical`. */
export const lexicalPlugin: EmbedderPlugin<Record<never, never>> = {
  kind: "lexical",
  settings: () => ({}),
  async open() {
    const { LexicalEmbedder } = await import("./mod.ts");
    return { embedder: await LexicalEmbedder.open() };
  },
  recognise: (model) => model === "svc-lexical-hash-v1-384" ? {} : undefined,
};
