/**
 * An offline, deterministic lexical embedder: words, word pairs and character trigrams are
 * hashed into signed buckets of a fixed-size vector, which is then L2-normalised. Texts that
 * share words or word pieces land close together; it knows nothing of synonyms.
 *
 * @example
 * ```ts
 * const embedder = new LexicalEmbedder();
 * const [vector] = await embedder.embed(["I am vegetarian"]);
 * ```
 */
import type { CallOptions, Embedder } from "@svc/relayer/kit";
import { words } from "@svc/util/words";

export type {
  CallOptions,
  Embedder,
  EmbedderRanking,
  EmbedOptions,
  FusionWeights,
  MemoryKind,
} from "@svc/relayer/kit";

const STOP_WORDS = new Set(
  ("a an the and or but of to in on at for with is are was were be been am i me my you your " +
    "he she it its we our they their this that these those do does did have has had").split(" "),
);

/**
 * Lower-cased word tokens with a light plural/possessive folding; a curly apostrophe splits a
 * word (as it always has for this model's vectors).
 */
export function lexicalTokens(text: string): string[] {
  return words(text, { curlyApostrophes: false }).map((word) =>
    word.replace(/'s$/, "").replace(/(?<=[^s])s$/, "").replace(/'.*$/, "")
  );
}

/** FNV-1a 32-bit hash of a string. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Embeds texts offline and deterministically: words, word pairs and trigrams, hashed. */
export class LexicalEmbedder implements Embedder {
  readonly name = "lexical";
  readonly dimensions: number;
  readonly model: string;

  /** An embedder that makes vectors of `dimensions` numbers (384 by default). */
  constructor(dimensions = 384) {
    this.dimensions = dimensions;
    this.model = `svc-lexical-hash-v1-${dimensions}`;
  }

  /** The embedder, as every plugin is opened; it needs no I/O. */
  static open(options: { dimensions?: number } = {}): Promise<LexicalEmbedder> {
    return Promise.resolve(new LexicalEmbedder(options.dimensions));
  }

  embed(texts: string[], options?: CallOptions): Promise<Float32Array[]> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    return Promise.resolve(texts.map((text) => this.#embedOne(text)));
  }

  #add(vector: Float32Array, feature: string, weight: number) {
    const hash = fnv1a(feature);
    vector[hash % this.dimensions] += hash & 0x80000000 ? -weight : weight;
  }

  #embedOne(text: string): Float32Array {
    const vector = new Float32Array(this.dimensions);
    const tokens = lexicalTokens(text);
    const content = tokens.filter((t) => !STOP_WORDS.has(t));
    const used = content.length > 0 ? content : tokens;
    for (const [i, word] of used.entries()) {
      this.#add(vector, `w:${word}`, 1);
      if (i > 0) this.#add(vector, `b:${used[i - 1]} ${word}`, 0.5);
      const padded = `<${word}>`;
      for (let j = 0; j + 3 <= padded.length; j++) {
        this.#add(vector, `c:${padded.slice(j, j + 3)}`, 0.25);
      }
    }
    let norm = 0;
    for (const x of vector) norm += x * x;
    norm = Math.sqrt(norm);
    if (norm > 0) { for (let i = 0; i < vector.length; i++) vector[i] /= norm; }
    return vector;
  }
}
