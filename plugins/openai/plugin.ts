/**
 * The embedder of an OpenAI-compatible API as the composition chooses it:
 * `SVC_EMBEDDER=openai`, the model `SVC_EMBED_MODEL`, reached with `OPENAI_API_KEY` or at
 * `OPENAI_BASE_URL`.
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
import { type OpenAiSettings, readOpenAiSettings } from "./settings.ts";

/** `SVC_EMBEDDER=openai`. */
export const openAiPlugin: EmbedderPlugin<OpenAiSettings> = {
  kind: "openai",
  settings: (read) => readOpenAiSettings(read, "SVC_EMBED_MODEL"),
  async open({ apiKey, baseURL, model, timeoutMs }) {
    const { OpenAiEmbedder, DEFAULT_OPENAI_EMBED_MODEL } = await import("./mod.ts");
    const embedder = await OpenAiEmbedder.open({
      apiKey,
      baseURL,
      model: model ?? DEFAULT_OPENAI_EMBED_MODEL,
      timeoutMs,
    });
    return { embedder };
  },
  /** Only where the configuration says how to reach the API. */
  recognise(model, { configured }) {
    const name = nameOf(model);
    if (name === undefined || !(configured?.apiKey || configured?.baseURL)) return undefined;
    return { ...configured, model: name };
  },
  choosing(model) {
    const name = nameOf(model);
    return name && `SVC_EMBEDDER=openai SVC_EMBED_MODEL=${name}`;
  },
};

/** The model's name in a model id this embedder records (`openai:<name>`). */
function nameOf(model: string): string | undefined {
  return /^openai:(.+)$/s.exec(model)?.[1];
}
