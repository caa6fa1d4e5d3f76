/**
 * Ollama (`npm:ollama`): an `Embedder` over `/api/embed` and an `Llm` over `/api/chat`.
 * Requests time out, 429/5xx and network failures are retried with backoff, and failures
 * become `SvcError`s that keep Ollama's message.
 *
 * @example
 * ```ts
 * const embedder = await OllamaEmbedder.open({ model: "nomic-embed-text" });
 * const llm = new OllamaLlm({ model: "llama3.2:3b" });
 * ```
 */
import { Ollama } from "ollama";
import {
  type CallOptions,
  ChatLlm,
  type ChatMessage,
  type Embedder,
  Provider,
  type RetryOptions,
} from "@svc/relayer/kit";

export type {
  CallOptions,
  ChatLlm,
  ChatMessage,
  Embedder,
  EmbedderRanking,
  EmbedOptions,
  FusionWeights,
  Llm,
  MemoryKind,
  RetryOptions,
} from "@svc/relayer/kit";

/** Where Ollama listens unless `host` says otherwise. */
export const DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434";
/** The embedding model the relayer asks Ollama for by default. */
export const DEFAULT_OLLAMA_EMBED_MODEL = "nomic-embed-text";
/** The chat model the relayer asks Ollama for by default. */
export const DEFAULT_OLLAMA_LLM_MODEL = "llama3.2:3b";
const BATCH = 64;
const MAX_ERROR_BYTES = 64 * 1024;

/** How to reach Ollama, which model to run, and how to retry a failed request. */
export interface OllamaOptions extends RetryOptions {
  /** Ollama's base URL (default `DEFAULT_OLLAMA_HOST`). */
  host?: string;
  /** The Ollama model name, for example "nomic-embed-text". */
  model: string;
  /** Per request (default 60 s). */
  timeoutMs?: number;
  /** Sends the HTTP requests (default the global `fetch`). */
  fetch?: typeof fetch;
}

/**
 * A client whose requests end when `signal` aborts (the SDK takes no signal for a request that
 * does not stream, so it is made per call). A failure answered with anything but Ollama's
 * `{"error": "…"}` (a proxy's page, another API's error) is `api.unexpected`: the SDK would
 * quote it, and it may echo the input.
 */
function client(api: Provider, options: OllamaOptions, signal: AbortSignal): Ollama {
  const base = Provider.bounded(options.fetch ?? fetch);
  return new Ollama({
    host: options.host ?? DEFAULT_OLLAMA_HOST,
    fetch: async (input, init) => {
      const any = init?.signal ? AbortSignal.any([init.signal, signal]) : signal;
      const response = await base(input, { ...init, signal: any });
      if (response.ok) return response;
      // Ollama's errors are a line of JSON with their length; a big or streamed body is not one.
      const length = Number(response.headers.get("content-length") ?? Infinity);
      const body = length <= MAX_ERROR_BYTES
        ? await response.clone().json().catch(() => undefined)
        : undefined;
      if (typeof body?.error === "string") return response;
      await response.body?.cancel();
      throw api.unexpected(response.status);
    },
  });
}

/** Ollama at `options.host`, as errors name it. */
const apiOf = (options: OllamaOptions) =>
  new Provider("Ollama", options.host ?? DEFAULT_OLLAMA_HOST, options);

/** Embeds texts with an Ollama model over `/api/embed`, in batches. */
export class OllamaEmbedder implements Embedder {
  readonly name = "ollama";
  readonly model: string;
  readonly dimensions: number;
  #options: OllamaOptions;
  #api: Provider;

  private constructor(options: OllamaOptions, dimensions: number) {
    this.#options = options;
    this.#api = apiOf(options);
    this.model = `ollama:${options.model}`;
    this.dimensions = dimensions;
  }

  /** Connects and learns the model's dimensions from a first embedding. */
  static async open(options: OllamaOptions): Promise<OllamaEmbedder> {
    const probe = new OllamaEmbedder(options, 0);
    const [vector] = await probe.#request(["dimension probe"], undefined, true);
    return new OllamaEmbedder(options, vector.length);
  }

  /** `probing`: at start, when the text sent is the relayer's own. */
  async #request(input: string[], signal?: AbortSignal, probing = false): Promise<number[][]> {
    const bounded = this.#api.signal(signal);
    const ollama = client(this.#api, this.#options, bounded);
    try {
      const { embeddings } = await this.#api.retry(
        () => ollama.embed({ model: this.#options.model, input }),
        bounded,
      );
      if (!Array.isArray(embeddings)) throw this.#api.unexpected();
      if (embeddings.length !== input.length) {
        throw new Error(`expected ${input.length} embeddings, got ${embeddings.length}`);
      }
      return embeddings;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const cause = bounded.aborted ? bounded.reason : error;
      // Memories' texts are not quoted; the probe's, the relayer's own, is.
      throw this.#api.error("embed the text", cause, { probing });
    }
  }

  async embed(texts: string[], options?: CallOptions): Promise<Float32Array[]> {
    options?.signal?.throwIfAborted();
    const vectors: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += BATCH) {
      for (const vector of await this.#request(texts.slice(i, i + BATCH), options?.signal)) {
        vectors.push(this.#api.normalised(vector, this.dimensions));
      }
    }
    return vectors;
  }
}

/** Extracts facts and answers questions with an Ollama chat model over `/api/chat`. */
export class OllamaLlm extends ChatLlm {
  /** The implementation's name, reported by `/health` as `llm`. */
  readonly name = "ollama";
  /** The model it runs, as `ollama:<model>`. */
  readonly model: string;
  /** The provider as errors name it. */
  protected readonly provider: string;
  #api: Provider;
  #options: OllamaOptions;

  /** A client for `options.model`; nothing is sent until it is used. */
  constructor(options: OllamaOptions) {
    super();
    this.#options = options;
    this.#api = apiOf(options);
    this.provider = this.#api.name;
    this.model = `ollama:${options.model}`;
  }
  /** The client, as every plugin is opened; nothing is sent until it is used. */
  static open(options: OllamaOptions): Promise<OllamaLlm> {
    return Promise.resolve(new OllamaLlm(options));
  }

  /** Ollama's answer to `messages`, at temperature 0; with `json`, in Ollama's JSON format. */
  protected async chat(
    messages: ChatMessage[],
    json: boolean,
    signal?: AbortSignal,
  ): Promise<string> {
    const bounded = this.#api.signal(signal);
    const ollama = client(this.#api, this.#options, bounded);
    try {
      const response = await this.#api.retry(
        () =>
          ollama.chat({
            model: this.#options.model,
            messages,
            stream: false,
            ...(json ? { format: "json" } : {}),
            options: { temperature: 0 },
          }),
        bounded,
      );
      if (typeof response?.message?.content !== "string") throw this.#api.unexpected();
      return response.message.content;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const cause = bounded.aborted ? bounded.reason : error;
      throw this.#api.error("answer", cause, { quoted: true });
    }
  }
}
