/**
 * The models the configuration names: the embedder (with its re-ranker) and the language model
 * of analyze and ask, each plugin imported only when chosen.
 */
import { type Llm, type Logger, type OpenedEmbedder, silentLogger } from "@svc/relayer/kit";
import { glovePlugin } from "@svc/glove-embedder/plugin";
import type { EmbedderConfig, LlmConfig } from "./config.ts";
import { embedderPlugin } from "./embedders.ts";

/**
 * The configured embedder, and the re-ranker that comes with it; a sentence model gets GloVe's
 * word-level re-ranker on top.
 */
export async function openEmbedder(
  config: EmbedderConfig,
  logger: Logger,
): Promise<OpenedEmbedder> {
  const { kind, settings, modelsDir } = config;
  const plugin = embedderPlugin(kind);
  const opened = await plugin.open(settings, { modelsDir, logger });
  return plugin.wordReranker ? await withWordReranker(opened, modelsDir) : opened;
}

/** A sentence model's embedder with the GloVe word-level re-ranker on top; closes it on failure. */
async function withWordReranker(
  opened: OpenedEmbedder,
  modelsDir: string,
): Promise<OpenedEmbedder> {
  const glove = await glovePlugin.open({ modelsDir }, { modelsDir, logger: silentLogger })
    .catch(async (error) => {
      await opened.close?.();
      throw error;
    });
  return { ...opened, reranker: glove.reranker };
}

/** The language model of analyze and ask; none with `SVC_LLM=none`. */
export async function openLlm(config: LlmConfig): Promise<Llm | undefined> {
  switch (config.kind) {
    case "none":
      return undefined;
    case "local":
      return await (await import("@svc/local-llm")).LocalExtractiveLlm.open();
    case "ollama": {
      const { OllamaLlm, DEFAULT_OLLAMA_LLM_MODEL } = await import("@svc/ollama");
      const { host, model = DEFAULT_OLLAMA_LLM_MODEL, timeoutMs } = config.ollama;
      return await OllamaLlm.open({ host, model, timeoutMs });
    }
    case "openai": {
      const { OpenAiLlm, DEFAULT_OPENAI_LLM_MODEL } = await import("@svc/openai");
      const { apiKey, baseURL, model = DEFAULT_OPENAI_LLM_MODEL, timeoutMs } = config.openai;
      return await OpenAiLlm.open({ apiKey, baseURL, model, timeoutMs });
    }
  }
}
