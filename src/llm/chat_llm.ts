/**
 * A language model over a chat API: the prompts it is given, the checks of what it answers and
 * the second try at a malformed extraction are written once here; a provider writes `chat`.
 *
 * @example
 * ```ts
 * class EchoLlm extends ChatLlm {
 *   readonly name = "echo";
 *   readonly model = "echo:1";
 *   protected readonly provider = "Echo";
 *   protected chat(messages: ChatMessage[]): Promise<string> {
 *     return Promise.resolve(messages.at(-1)!.content);
 *   }
 * }
 * ```
 */
import type { CallOptions, Llm } from "../backends/types.ts";
import {
  answerFrom,
  answerPrompt,
  type ChatMessage,
  extractionPrompt,
  extractWithRetry,
} from "./prompts.ts";

export type { ChatMessage };

/** An `Llm` whose provider answers chats; see the module documentation. */
export abstract class ChatLlm implements Llm {
  /** The implementation's name, reported by `/health` as `llm`. */
  abstract readonly name: string;
  /** The model it runs. */
  abstract readonly model: string;
  /** The provider as errors name it, for example "Ollama". */
  protected abstract readonly provider: string;

  /**
   * The model's answer to `messages`; with `json`, asked for a JSON object. A failure throws the
   * provider's `SvcError`; an abort of `signal`, its reason.
   */
  protected abstract chat(
    messages: ChatMessage[],
    json: boolean,
    signal?: AbortSignal,
  ): Promise<string>;

  /** The facts about the user in `text` (at most `MAX_FACTS`), asked again once if malformed. */
  extractFacts(text: string, options?: CallOptions): Promise<string[]> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    return extractWithRetry(
      () => this.chat(extractionPrompt(text), true, options?.signal),
      this.provider,
    );
  }

  /** The answer to `question` from `memories` only. */
  async answer(question: string, memories: string[], options?: CallOptions): Promise<string> {
    options?.signal?.throwIfAborted();
    const content = await this.chat(answerPrompt(question, memories), false, options?.signal);
    return answerFrom(content, this.provider);
  }
}
