/**
 * The models the configuration names: the embedder (with its re-ranker) and the language model
 * of analyze and ask, each plugin imported only when chosen.
 */
import type { Embedder, Llm, Reranker } from "../src/backends/types.ts";
import type { Logger } from "../src/log.ts";
import type { EmbedderConfig, LlmConfig } from "./config.ts";

/**
 * The configured embedder, and the re-ranker that comes with it; a remote embedder is asked once
 * for its vector size.
 */
export async function openEmbedder(
  config: EmbedderConfig,
  logger: Logger,
): Promise<{ embedder: Embedder; reranker?: Reranker; close?(): Promise<void> }> {
  switch (config.kind) {
    case "local": {
      const { GloveEmbedder } = await import("@svc/glove-embedder");
      const embedder = await GloveEmbedder.open({ cacheDir: config.modelsDir });
      return { embedder, reranker: embedder.reranker() };
    }
    case "lexical": {
      const { LexicalEmbedder } = await import("@svc/lexical-embedder");
      return { embedder: await LexicalEmbedder.open() };
    }
    case "onnx": {
      const { OnnxEmbedder } = await import("@svc/onnx-embedder");
      const { modelDir, model, revision, endpoint, modelsDir, download, pins, ...settings } =
        config.onnx;
      const embedder = await OnnxEmbedder.open({
        ...settings,
        dir: modelDir,
        name: model,
        hub: model ? { model, revision, endpoint, modelsDir, pins, ...download } : undefined,
        logger,
      });
      return await withWordReranker(embedder, modelsDir);
    }
    case "use": {
      const { UseEmbedder } = await import("@svc/use-embedder");
      const embedder = await UseEmbedder.open({ cacheDir: config.modelsDir, logger });
      return await withWordReranker(embedder, config.modelsDir);
    }
    case "ollama": {
      const { OllamaEmbedder, DEFAULT_OLLAMA_EMBED_MODEL } = await import(
        "@svc/ollama"
      );
      const { host, model = DEFAULT_OLLAMA_EMBED_MODEL, timeoutMs } = config.ollama;
      return { embedder: await OllamaEmbedder.open({ host, model, timeoutMs }) };
    }
    case "openai": {
      const { OpenAiEmbedder, DEFAULT_OPENAI_EMBED_MODEL } = await import(
        "@svc/openai"
      );
      const { apiKey, baseURL, model = DEFAULT_OPENAI_EMBED_MODEL, timeoutMs } = config.openai;
      return { embedder: await OpenAiEmbedder.open({ apiKey, baseURL, model, timeoutMs }) };
    }
  }
}

/** A sentence model's embedder with the GloVe word-level re-ranker on top; closes it on failure. */
async function withWordReranker(
  embedder: Embedder & { close(): Promise<void> },
  modelsDir: string,
): Promise<{ embedder: Embedder; reranker: Reranker; close(): Promise<void> }> {
  const { GloveEmbedder } = await import("@svc/glove-embedder");
  const glove = await GloveEmbedder.open({ cacheDir: modelsDir }).catch(async (error) => {
    await embedder.close();
    throw error;
  });
  return { embedder, reranker: glove.reranker(), close: () => embedder.close() };
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
