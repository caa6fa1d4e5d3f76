/**
 * The in-memory `Embedder`: hashed word features, deterministic and offline. Each word of a
 * text (lower-cased, a trailing plural "s" dropped, a few function words left out) adds ±1 to
 * one bucket of the vector and ±0.25 to the buckets of its character trigrams, chosen by an
 * FNV-1a hash; the vector is then L2-normalised. Texts sharing words (or word pieces) are
 * closer than unrelated ones; synonyms are not. A text without words is a fixed unit vector.
 *
 * @example
 * ```ts
 * import { MemoryEmbedder } from "./memory_embedder.ts";
 *
 * const embedder = new MemoryEmbedder(64);
 * const [dog, tax] = await embedder.embed(["I adore my dog", "Quarterly tax filing"]);
 * dog.length; // 64
 * ```
 * @module
 */
import type { CallOptions, Embedder } from "../backends/types.ts";

const FUNCTION_WORDS = new Set(
  ("a an the and or but of to in on at for with is are was were be am i me my you your it " +
    "its we our they their this that what which who how when where do does did").split(" "),
);

/** FNV-1a, 32 bits. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** Deterministic hashed-word vectors; see the module documentation. */
export class MemoryEmbedder implements Embedder {
  readonly name = "memory";
  readonly model: string;
  readonly dimensions: number;

  /** `dimensions`: the size of every vector (default 64). */
  constructor(dimensions = 64) {
    if (!Number.isInteger(dimensions) || dimensions < 1) {
      throw new RangeError("Cannot create the in-memory embedder: dimensions must be ≥ 1");
    }
    this.dimensions = dimensions;
    this.model = `svc-memory-hashed-words-v1-${dimensions}`;
  }

  embed(texts: string[], options?: CallOptions): Promise<Float32Array[]> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    return Promise.resolve(texts.map((text) => this.#embedOne(text)));
  }

  #embedOne(text: string): Float32Array {
    const vector = new Float32Array(this.dimensions);
    const add = (feature: string, weight: number) => {
      const hash = fnv1a(feature);
      vector[hash % this.dimensions] += hash & 0x80000000 ? -weight : weight;
    };
    const words = (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
      .map((word) => word.length > 3 ? word.replace(/(?<=[^s])s$/, "") : word);
    const content = words.filter((word) => !FUNCTION_WORDS.has(word));
    for (const word of content.length > 0 ? content : words) {
      add(`w:${word}`, 1);
      const padded = `<${word}>`;
      for (let i = 0; i + 3 <= padded.length; i++) add(`c:${padded.slice(i, i + 3)}`, 0.25);
    }
    const norm = Math.hypot(...vector);
    if (norm === 0) vector[0] = 1;
    else for (let i = 0; i < vector.length; i++) vector[i] /= norm;
    return vector;
  }
}
