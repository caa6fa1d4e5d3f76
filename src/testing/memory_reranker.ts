/**
 * The in-memory `Reranker`: a text's score is the share of the query's words it contains
 * (lower-cased, a few function words left out). Deterministic and offline; it knows words,
 * not meanings.
 *
 * @example
 * ```ts
 * import { MemoryReranker } from "./memory_reranker.ts";
 *
 * const scores = await new MemoryReranker().rerank("my dog Rex", ["Rex is my dog", "Taxes"]);
 * // [1, 0]
 * ```
 * @module
 */
import { words } from "@svc/util/words";
import type { CallOptions, Reranker } from "../backends/types.ts";

const FUNCTION_WORDS = new Set(
  ("a an the and or but of to in on at for with is are was were be am i me my you your it " +
    "its we our they their this that what which who how when where do does did called").split(" "),
);

function contentWords(text: string): Set<string> {
  return new Set(words(text).filter((word) => !FUNCTION_WORDS.has(word)));
}

/** Scores texts by the query words they contain; see the module documentation. */
export class MemoryReranker implements Reranker {
  readonly name = "memory";

  rerank(query: string, texts: string[], options?: CallOptions): Promise<number[]> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    const wanted = contentWords(query);
    return Promise.resolve(texts.map((text) => {
      if (wanted.size === 0) return 0;
      const present = contentWords(text);
      return [...wanted].filter((word) => present.has(word)).length / wanted.size;
    }));
  }
}
