/**
 * The GloVe table's rows as the re-ranker compares words: each row's int8 values padded with
 * zeros to {@link ROW} bytes, and its length. Where the runtime has WebAssembly SIMD they live
 * in WebAssembly memory and `similarities` runs the kernel of `word_rows.wat`; elsewhere they
 * live in a plain array and the same arithmetic runs in JavaScript. Either way a similarity is
 * the exact integer dot product divided, in single precision, by the product of the lengths.
 *
 * The kernel is `word_rows.wat` compiled with wabt 1.0.39 and base64-encoded:
 * `npx -y -p wabt@1.0.39 wat2wasm word_rows.wat -o word_rows.wasm && base64 -w0 word_rows.wasm`.
 *
 * @example
 * ```ts
 * const rows = new WordRows(table.values, table.count); // rows of DIMENSIONS values
 * rows.similarities(Int32Array.of(5), Int32Array.of(5, 9), (_q, _m, _w, _n, found) => {
 *   console.log(found); // [1, cos(row 5, row 9)]
 * });
 * ```
 * @module
 */
import { DIMENSIONS } from "./vectors.ts";

const KERNEL =
  "AGFzbQEAAAABDAFgCH9/f39/f39/AAIPAQNlbnYGbWVtb3J5AgAAAwIBAAcQAQxzaW1pbGFyaXRpZXMAAAqDAgGAAgMHfwF9A3sgBSEIIAUgBkECdGohCSADIARBAnRqIQsCQANAIAggCU8NASAAIAgoAgAgAWxqIQ0gAiAIKAIAQQJ0aioCACEPIAMhCgJAA0AgCiALTw0BIAAgCigCACABbGohDEEA/REhEEEAIQ4CQANAIA4gAU8NASAMIA5q/QAEACERIA0gDmr9AAQAIRIgECARIBL9nAEgESAS/Z0B/Y4B/X79rgEhECAOQRBqIQ4MAAsLIAcgEP0bACAQ/RsBaiAQ/RsCIBD9GwNqarIgDyACIAooAgBBAnRqKgIAlJU4AgAgB0EEaiEHIApBBGohCgwACwsgCEEEaiEIDAALCws=";

/** Bytes a row takes: {@link DIMENSIONS} values, then zeros up to a multiple of 16. */
export const ROW = Math.ceil(DIMENSIONS / 16) * 16;

const PAGE = 65_536;
/** Bytes of scratch memory for one part's rows and results; larger calls go in parts. */
const SCRATCH = 262_144;
/** Query rows at most in one part (so that a part always has room for some words). */
const QUERY_PART = 1_024;

type Kernel = (
  table: number,
  stride: number,
  norms: number,
  queries: number,
  m: number,
  words: number,
  n: number,
  out: number,
) => void;

/**
 * One part of a {@link WordRows.similarities} call: the similarities of the words
 * `firstWord .. firstWord + words` with the query rows `firstQuery .. firstQuery + queries`, as
 * `found[w * queries + q]` (`w` and `q` counted from the part's first); `found` is valid only
 * during the call.
 */
export type SimilarityPart = (
  firstQuery: number,
  queries: number,
  firstWord: number,
  words: number,
  found: Float32Array,
) => void;

const module: WebAssembly.Module | null = (() => {
  try {
    return new WebAssembly.Module(Uint8Array.fromBase64(KERNEL));
  } catch (error) {
    if (error instanceof WebAssembly.CompileError) return null; // no WebAssembly SIMD here
    throw error;
  }
})();

/** The word table's rows, padded, with their lengths; see the module documentation. */
export class WordRows {
  /** Row `r` is `values[r * ROW .. r * ROW + DIMENSIONS]`. */
  readonly values: Int8Array;
  #norms: Float32Array;
  /** The kernel, and its scratch memory (which never moves: the memory does not grow). */
  #kernel?: { similarities: Kernel; scratch: number; ints: Int32Array; floats: Float32Array };

  /**
   * Copies the `count` rows of {@link DIMENSIONS} values each in `values`; `webAssembly: false`
   * keeps them in JavaScript even where the kernel runs.
   */
  constructor(values: Int8Array, count: number, { webAssembly = true } = {}) {
    const normsAt = count * ROW, scratch = normsAt + count * 4;
    if (module && webAssembly) {
      const memory = new WebAssembly.Memory({ initial: Math.ceil((scratch + SCRATCH) / PAGE) });
      const { exports } = new WebAssembly.Instance(module, { env: { memory } });
      this.#kernel = {
        similarities: exports.similarities as Kernel,
        scratch,
        ints: new Int32Array(memory.buffer, scratch, SCRATCH / 4),
        floats: new Float32Array(memory.buffer, scratch, SCRATCH / 4),
      };
      this.values = new Int8Array(memory.buffer, 0, count * ROW);
      this.#norms = new Float32Array(memory.buffer, normsAt, count);
    } else {
      this.values = new Int8Array(count * ROW);
      this.#norms = new Float32Array(count);
    }
    const rows = this.values, norms = this.#norms;
    for (let row = 0; row < count; row++) {
      let squares = 0;
      for (let i = 0; i < DIMENSIONS; i++) {
        const value = values[row * DIMENSIONS + i];
        rows[row * ROW + i] = value;
        squares += value * value;
      }
      norms[row] = Math.sqrt(squares);
    }
  }

  /** Whether the similarities run in WebAssembly. */
  get inWebAssembly(): boolean {
    return this.#kernel !== undefined;
  }

  /**
   * The cosine similarity of each of the rows `words` with each of the rows `queries`, handed
   * to `part` a bounded part at a time (at most 64 Ki similarities).
   */
  similarities(queries: Int32Array, words: Int32Array, part: SimilarityPart): void {
    const m = queries.length, n = words.length;
    for (let q0 = 0; q0 < m; q0 += QUERY_PART) {
      const mPart = Math.min(QUERY_PART, m - q0);
      const wordsPerPart = Math.floor((SCRATCH / 4 - mPart) / (1 + mPart));
      const someQueries = queries.subarray(q0, q0 + mPart);
      for (let w0 = 0; w0 < n; w0 += wordsPerPart) {
        const nPart = Math.min(wordsPerPart, n - w0);
        part(q0, mPart, w0, nPart, this.#part(someQueries, words.subarray(w0, w0 + nPart)));
      }
    }
  }

  /** `found[w * queries.length + q]` for a part that fits the scratch memory. */
  #part(queries: Int32Array, words: Int32Array): Float32Array {
    const m = queries.length, n = words.length;
    if (!this.#kernel) {
      const found = new Float32Array(n * m);
      for (let w = 0; w < n; w++) {
        for (let q = 0; q < m; q++) found[w * m + q] = this.#similarity(queries[q], words[w]);
      }
      return found;
    }
    const { similarities, scratch, ints, floats } = this.#kernel;
    ints.set(queries);
    ints.set(words, m);
    // In 4-byte units from `scratch`: the queries, the words, then what is found.
    similarities(
      0,
      ROW,
      this.#norms.byteOffset,
      scratch,
      m,
      scratch + 4 * m,
      n,
      scratch + 4 * (m + n),
    );
    return floats.subarray(m + n, m + n + n * m);
  }

  /** The kernel's arithmetic: an exact dot product, divided in single precision. */
  #similarity(a: number, b: number): number {
    const values = this.values;
    let dot = 0;
    for (let i = 0; i < DIMENSIONS; i++) dot += values[a * ROW + i] * values[b * ROW + i];
    return Math.fround(dot / Math.fround(this.#norms[b] * this.#norms[a]));
  }
}
