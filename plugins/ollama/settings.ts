/**
 * Ollama's settings, for the embedder (`SVC_EMBEDDER=ollama`) and the language model
 * (`SVC_LLM=ollama`): the server (`OLLAMA_HOST`), the model and the time limit.
 *
 * @module
 */
import type { SettingsReader } from "@svc/relayer/kit";

/** How the relayer reaches an Ollama model. */
export interface OllamaSettings {
  /** The model; the plugin's default when absent. */
  model?: string;
  /** Milliseconds a request may take (`SVC_LLM_TIMEOUT_MS`). */
  timeoutMs: number;
  /** The Ollama server; the plugin's default (`http://127.0.0.1:11434`) when absent. */
  host?: string;
}

/**
 * `OLLAMA_HOST` completed as Ollama completes it: without a scheme, `http://` and, without a
 * port, 11434; without a host, 127.0.0.1 (`127.0.0.1:11434`, `gpu-box`, `:11500`).
 */
export function ollamaHost(value: string): string {
  if (value.includes("://")) return value;
  const [given, ...path] = value.split("/");
  const host = given.startsWith(":") ? `127.0.0.1${given}` : given;
  const port = /:[0-9]+$/.test(host) ? "" : ":11434";
  return `http://${[host + port, ...path].join("/")}`;
}

/** The settings, the model named by `modelSetting` (`SVC_EMBED_MODEL` or `SVC_LLM_MODEL`). */
export function readOllamaSettings(read: SettingsReader, modelSetting: string): OllamaSettings {
  return {
    model: read.text(modelSetting),
    timeoutMs: read.integer("SVC_LLM_TIMEOUT_MS", 60_000, 1000, 600_000),
    host: read.httpUrl("OLLAMA_HOST", ollamaHost),
  };
}
