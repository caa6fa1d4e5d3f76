/**
 * The settings of an OpenAI-compatible API, for the embedder (`SVC_EMBEDDER=openai`) and the
 * language model (`SVC_LLM=openai`): its key or address, the model and the time limit.
 *
 * @module
 */
import type { SettingsReader } from "@svc/relayer/kit";

/** How the relayer reaches an OpenAI-compatible model. */
export interface OpenAiSettings {
  /** The model; the plugin's default when absent. */
  model?: string;
  /** Milliseconds a request may take (`SVC_LLM_TIMEOUT_MS`). */
  timeoutMs: number;
  /** `OPENAI_API_KEY`. */
  apiKey?: string;
  /** `OPENAI_BASE_URL`. */
  baseURL?: string;
}

/** The settings, the model named by `modelSetting` (`SVC_EMBED_MODEL` or `SVC_LLM_MODEL`). */
export function readOpenAiSettings(read: SettingsReader, modelSetting: string): OpenAiSettings {
  // Sent in a header: a placeholder such as "sk-…" would fail every request.
  const apiKey = read.matching(
    "OPENAI_API_KEY",
    /^[\x21-\x7e]+$/,
    "OPENAI_API_KEY must be the key as the provider issued it: visible ASCII characters, " +
      "without spaces",
  );
  const baseURL = read.httpUrl("OPENAI_BASE_URL");
  if (!apiKey && !baseURL) {
    read.problem(
      "SVC_EMBEDDER/SVC_LLM=openai needs OPENAI_API_KEY (or OPENAI_BASE_URL for a local server)",
    );
  }
  return {
    model: read.text(modelSetting),
    timeoutMs: read.integer("SVC_LLM_TIMEOUT_MS", 60_000, 1000, 600_000),
    apiKey,
    baseURL,
  };
}
