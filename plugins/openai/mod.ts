/**
 * OpenAI-compatible APIs (`npm:openai`: OpenAI, OpenRouter, vLLM, LM Studio, llama.cpp
 * servers): an `Embedder` over `/v1/embeddings`, batched, and an `Llm` over
 * `/v1/chat/completions`. The client times out and retries 408/429/5xx with backoff; failures
 * become `SvcError`s that keep the provider's message.
 *
 * @example
 * ```ts
 * const embedder = await OpenAiEmbedder.open({ apiKey, model: "text-embedding-3-small" });
 * const llm = new OpenAiLlm({ apiKey, baseURL: "http://127.0.0.1:1234/v1", model: "qwen2.5-7b" });
 * ```
 */
import { AsyncLocalStorage } from "node:async_hooks";
import OpenAI from "openai";
import {
  type CallOptions,
  ChatLlm,
  type ChatMessage,
  type Embedder,
  Provider,
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
} from "@svc/relayer/kit";

/** The embedding model the relayer asks for by default. */
export const DEFAULT_OPENAI_EMBED_MODEL = "text-embedding-3-small";
/** The chat model the relayer asks for by default. */
export const DEFAULT_OPENAI_LLM_MODEL = "gpt-4o-mini";
const BATCH = 256;

/** How to reach the API, which model to run, and how long to wait and retry. */
export interface OpenAiOptions {
  /** The API key; local servers (vLLM, LM Studio, llama.cpp) need none. */
  apiKey?: string;
  /** `OPENAI_BASE_URL`, for example `https://openrouter.ai/api/v1`. */
  baseURL?: string;
  /** The API's model name, for example "text-embedding-3-small". */
  model: string;
  /** Per request (default 60 s). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 2). */
  retries?: number;
  /** Sends the HTTP requests (default the global `fetch`). */
  fetch?: typeof fetch;
}

/**
 * Each call's record of a 429 answered to it: the client waits out a `Retry-After` before it tries
 * again, past the call's time limit too, and the call should then say it was rate limited rather
 * than that it timed out.
 */
const calls = new AsyncLocalStorage<{ limited: boolean }>();

/** Runs `call` with a record of its own, which it is handed. */
function tracked<T>(call: (record: { limited: boolean }) => Promise<T>): Promise<T> {
  const record = { limited: false };
  return calls.run(record, () => call(record));
}

/** The API's client, which notes each 429 on the record of the call it answers. */
function client(options: OpenAiOptions): OpenAI {
  const send = Provider.bounded(options.fetch ?? fetch);
  return new OpenAI({
    // Local servers (vLLM, LM Studio, llama.cpp) accept any key.
    apiKey: options.apiKey || "not-needed",
    baseURL: options.baseURL,
    timeout: options.timeoutMs ?? 60_000,
    maxRetries: options.retries ?? 2,
    fetch: async (input: string | URL | Request, init?: RequestInit) => {
      const response = await send(input, init);
      const call = calls.getStore();
      if (call && response.status === 429) call.limited = true;
      return response;
    },
  });
}

/** The API as errors name it, at the client's base URL. */
const apiOf = (client: OpenAI, options: OpenAiOptions) =>
  new Provider("The OpenAI-compatible API", client.baseURL, options);

/** Why a call failed: its time limit, unless the API was rate limiting it meanwhile. */
function failureOf(
  api: Provider,
  error: unknown,
  bounded: AbortSignal,
  limited: boolean,
): unknown {
  if (!bounded.aborted) return unquoted(api, error);
  return limited ? { status: 429 } : bounded.reason;
}

/**
 * A failure answered with anything but the API's error object (a proxy's page, another API's
 * error) as `api.unexpected`: the SDK would quote it, and it may echo the input.
 */
function unquoted(api: Provider, error: unknown): unknown {
  if (!(error instanceof OpenAI.APIError) || error.status === undefined) return error;
  const message = (error.error as { message?: unknown } | undefined)?.message;
  return typeof message === "string" ? error : api.unexpected(error.status);
}

/** A 400 that says the API does not take `response_format: json_object` (LM Studio's). */
function refusesJsonFormat(error: unknown): boolean {
  return error instanceof OpenAI.APIError && error.status === 400 &&
    /response_format/i.test(error.message);
}

/** Embeds texts with an OpenAI-compatible API over `/v1/embeddings`, in batches. */
export class OpenAiEmbedder implements Embedder {
  readonly name = "openai";
  readonly model: string;
  readonly dimensions: number;
  #options: OpenAiOptions;
  #client: OpenAI;
  #api: Provider;

  private constructor(options: OpenAiOptions, dimensions: number) {
    this.#options = options;
    this.#client = client(options);
    this.#api = apiOf(this.#client, options);
    this.model = `openai:${options.model}`;
    this.dimensions = dimensions;
  }

  /** Connects and learns the model's dimensions from a first embedding. */
  static async open(options: OpenAiOptions): Promise<OpenAiEmbedder> {
    const probe = new OpenAiEmbedder(options, 0);
    const [vector] = await probe.#request(["dimension probe"], undefined, true);
    return new OpenAiEmbedder(options, vector.length);
  }

  /** `probing`: at start, when the text sent is the relayer's own. */
  async #request(
    input: string[],
    signal?: AbortSignal,
    probing = false,
  ): Promise<ArrayLike<number>[]> {
    const bounded = this.#api.signal(signal);
    return await tracked(async (call) => {
      try {
        const { data } = await this.#client.embeddings.create(
          { model: this.#options.model, input },
          { signal: bounded },
        );
        if (!Array.isArray(data)) throw this.#api.unexpected();
        if (data.length !== input.length) {
          throw new Error(`expected ${input.length} embeddings, got ${data.length}`);
        }
        return data.toSorted((a, b) => a.index - b.index).map((d) => d.embedding);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        const cause = failureOf(this.#api, error, bounded, call.limited);
        // Memories' texts are not quoted; the probe's, the relayer's own, is.
        throw this.#api.error("embed the text", cause, { probing });
      }
    });
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

/** Extracts facts and answers questions with an OpenAI-compatible chat model. */
export class OpenAiLlm extends ChatLlm {
  /** The implementation's name, reported by `/health` as `llm`. */
  readonly name = "openai";
  /** The model it runs, as `openai:<model>`. */
  readonly model: string;
  /** The provider as errors name it. */
  protected readonly provider: string;
  #api: Provider;
  #options: OpenAiOptions;
  #client: OpenAI;
  /**
   * Whether the API takes `response_format: json_object`; LM Studio takes only `json_schema` or
   * `text`, and its 400 turns it off (the prompt asks for JSON all the same, and it is checked).
   */
  #jsonFormat = true;

  /** A client for `options.model`; nothing is sent until it is used. */
  constructor(options: OpenAiOptions) {
    super();
    this.#options = options;
    this.#client = client(options);
    this.#api = apiOf(this.#client, options);
    this.provider = this.#api.name;
    this.model = `openai:${options.model}`;
  }
  /** The client, as every plugin is opened; nothing is sent until it is used. */
  static open(options: OpenAiOptions): Promise<OpenAiLlm> {
    return Promise.resolve(new OpenAiLlm(options));
  }

  /**
   * The API's answer to `messages`, at temperature 0; with `json`, asked for a JSON object unless
   * the API refuses that format.
   */
  protected async chat(
    messages: ChatMessage[],
    json: boolean,
    signal?: AbortSignal,
  ): Promise<string> {
    const bounded = this.#api.signal(signal);
    const complete = async (format: boolean) => {
      const completion = await this.#client.chat.completions.create({
        model: this.#options.model,
        messages,
        temperature: 0,
        ...(format ? { response_format: { type: "json_object" as const } } : {}),
      }, { signal: bounded });
      if (!Array.isArray(completion?.choices)) throw this.#api.unexpected();
      return completion.choices[0]?.message?.content ?? "";
    };
    return await tracked(async (call) => {
      try {
        try {
          return await complete(json && this.#jsonFormat);
        } catch (error) {
          if (!(json && this.#jsonFormat && refusesJsonFormat(error))) throw error;
          this.#jsonFormat = false;
          return await complete(false);
        }
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        const cause = failureOf(this.#api, error, bounded, call.limited);
        throw this.#api.error("answer", cause, { quoted: true });
      }
    });
  }
}
