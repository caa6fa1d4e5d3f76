/**
 * Ollama's embedder as the composition chooses it: `SVC_EMBEDDER=ollama`, the model
 * `SVC_EMBED_MODEL` on the server `OLLAMA_HOST`.
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
import { type OllamaSettings, readOllamaSettings } from "./settings.ts";

/** `SVC_EMBEDDER=ollama`. */
export const ollamaPlugin: EmbedderPlugin<OllamaSettings> = {
  kind: "ollama",
  settings: (read) => readOllamaSettings(read, "SVC_EMBED_MODEL"),
  async open({ host, model, timeoutMs }) {
    const { OllamaEmbedder, DEFAULT_OLLAMA_EMBED_MODEL } = await import("./mod.ts");
    const embedder = await OllamaEmbedder.open({
      host,
      model: model ?? DEFAULT_OLLAMA_EMBED_MODEL,
      timeoutMs,
    });
    return { embedder };
  },
  recognise(model, { configured }) {
    const name = nameOf(model);
    return name === undefined ? undefined : { timeoutMs: 60_000, ...configured, model: name };
  },
  choosing(model) {
    const name = nameOf(model);
    return name && `SVC_EMBEDDER=ollama SVC_EMBED_MODEL=${name}`;
  },
};

/** The model's name in a model id this embedder records (`ollama:<name>`). */
function nameOf(model: string): string | undefined {
  return /^ollama:(.+)$/s.exec(model)?.[1];
}
