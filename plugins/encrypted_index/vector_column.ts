/**
 * The unit vectors of a resident namespace, one row after another in WebAssembly memory, and
 * their dot products with a query computed four lanes at a time by a WebAssembly SIMD kernel
 * (`dots.wat`): about three times the speed of the same loop in JavaScript, which is most of a
 * recall's time in a large namespace. Where WebAssembly SIMD is missing, or the dimensions are
 * not a multiple of 4, the rows live in a plain `Float32Array` and the loop runs in JavaScript.
 *
 * The kernel is `dots.wat` compiled with wabt 1.0.39 and base64-encoded:
 * `npx -y -p wabt@1.0.39 wat2wasm dots.wat -o dots.wasm && base64 -w0 dots.wasm`.
 *
 * @example
 * ```ts
 * const column = new VectorColumn(4, 16);
 * column.values.set([1, 0, 0, 0, 0, 1, 0, 0]);
 * column.dots(new Float32Array([1, 0, 0, 0]), 2); // Float32Array [1, 0]
 * ```
 */

const KERNEL =
  "AGFzbQEAAAABCQFgBX9/f39/AAIPAQNlbnYGbWVtb3J5AgAAAwIBAAcIAQRkb3RzAAAKlgEBkwECBH8BeyADQQJ0IQggASEFIAEgAiAIbGohBgJAA0AgBSAGTw0BQwAAAAD9EyEJQQAhBwJAA0AgByAITw0BIAkgACAHav0ABAAgBSAHav0ABAD95gH95AEhCSAHQRBqIQcMAAsLIAQgCf0fACAJ/R8BkiAJ/R8CIAn9HwOSkjgCACAEQQRqIQQgBSAIaiEFDAALCws=";

const PAGE = 65_536;

/** The compiled kernel, or `null` where this runtime has no WebAssembly SIMD. */
const kernel: WebAssembly.Module | null = (() => {
  try {
    return new WebAssembly.Module(Uint8Array.fromBase64(KERNEL));
  } catch {
    return null;
  }
})();

type Dots = (query: number, rows: number, n: number, d: number, out: number) => void;

export class VectorColumn {
  readonly dimensions: number;
  /** Row `r` is `values[r * dimensions .. (r + 1) * dimensions]`; replaced when it grows. */
  values: Float32Array;
  #memory?: WebAssembly.Memory;
  #dots?: Dots;

  /** Room for `capacity` rows of `dimensions` floats. */
  constructor(dimensions: number, capacity: number) {
    this.dimensions = dimensions;
    if (kernel && dimensions % 4 === 0) {
      this.#memory = new WebAssembly.Memory({ initial: 0 });
      const { exports } = new WebAssembly.Instance(kernel, { env: { memory: this.#memory } });
      this.#dots = exports.dots as Dots;
      this.values = new Float32Array(0);
      this.grow(capacity);
    } else {
      this.values = new Float32Array(capacity * dimensions);
    }
  }

  /** Bytes the rows hold (with the room for a query and its scores). */
  get byteLength(): number {
    return this.#memory?.buffer.byteLength ?? this.values.byteLength;
  }

  /** Room for `capacity` rows, the rows kept. */
  grow(capacity: number): void {
    const floats = capacity * this.dimensions;
    if (!this.#memory) {
      const values = new Float32Array(floats);
      values.set(this.values);
      this.values = values;
      return;
    }
    // After the rows: the query, then one score per row.
    const needed = (floats + this.dimensions + capacity) * 4;
    const pages = Math.ceil(needed / PAGE) - this.#memory.buffer.byteLength / PAGE;
    if (pages > 0) this.#memory.grow(pages);
    this.values = new Float32Array(this.#memory.buffer, 0, floats);
  }

  /** The dot products of `query` with the first `n` rows, in row order. */
  dots(query: Float32Array, n: number): Float32Array {
    return this.#run(query, 0, n);
  }

  /** The dot product of `query` with row `row` (as `dots` computes it). */
  dot(query: Float32Array, row: number): number {
    return this.#run(query, row, 1)[0];
  }

  /** The dot products of `query` with `n` rows from row `first`. */
  #run(query: Float32Array, first: number, n: number): Float32Array {
    const d = this.dimensions;
    if (this.#memory) {
      const at = this.values.byteLength;
      new Float32Array(this.#memory.buffer, at, d).set(query);
      this.#dots!(at, first * d * 4, n, d, at + d * 4);
      return new Float32Array(this.#memory.buffer, at + d * 4, n);
    }
    const out = new Float32Array(n);
    for (let row = first; row < first + n; row++) out[row - first] = this.#scalar(query, row);
    return out;
  }

  #scalar(query: Float32Array, row: number): number {
    const d = this.dimensions;
    const values = this.values;
    const at = row * d;
    let dot = 0;
    let i = 0;
    for (; i + 3 < d; i += 4) {
      dot += query[i] * values[at + i] + query[i + 1] * values[at + i + 1] +
        query[i + 2] * values[at + i + 2] + query[i + 3] * values[at + i + 3];
    }
    for (; i < d; i++) dot += query[i] * values[at + i];
    return dot;
  }
}
