/**
 * The unit vectors of a resident namespace, one row after another in WebAssembly memory, and
 * their dot products with a query computed four lanes at a time by a WebAssembly SIMD kernel
 * (`dots.wat`): about three times the speed of the same loop in JavaScript, which is most of a
 * recall's time in a large namespace. Rows that fit in less than one WebAssembly page (64 KiB:
 * small namespaces, which are many) live in a plain `Float32Array` and are scored in
 * JavaScript, as are all rows where WebAssembly SIMD is missing or the dimensions are not a
 * multiple of 4. Both compute in single precision, so a row scores the same either way.
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
  #lanes = new Float32Array(4);

  /** Room for `capacity` rows of `dimensions` floats. */
  constructor(dimensions: number, capacity: number) {
    this.dimensions = dimensions;
    this.values = new Float32Array(0);
    this.grow(capacity);
  }

  /** Bytes the rows hold (with the room for a query and its scores). */
  get byteLength(): number {
    return this.#memory?.buffer.byteLength ?? this.values.byteLength;
  }

  /** Room for `capacity` rows, the rows kept. */
  grow(capacity: number): void {
    const floats = capacity * this.dimensions;
    // After the rows: the query, then one score per row.
    const needed = (floats + this.dimensions + capacity) * 4;
    if (!this.#memory && (!kernel || this.dimensions % 4 !== 0 || needed < PAGE)) {
      const values = new Float32Array(floats);
      values.set(this.values);
      this.values = values;
      return;
    }
    const plain = this.#memory ? undefined : this.values; // rows to move into the memory
    if (!this.#memory) {
      this.#memory = new WebAssembly.Memory({ initial: 0 });
      const { exports } = new WebAssembly.Instance(kernel!, { env: { memory: this.#memory } });
      this.#dots = exports.dots as Dots;
    }
    const pages = Math.ceil(needed / PAGE) - this.#memory.buffer.byteLength / PAGE;
    if (pages > 0) this.#memory.grow(pages);
    this.values = new Float32Array(this.#memory.buffer, 0, floats);
    if (plain) this.values.set(plain);
  }

  /**
   * The dot products of `query` with the first `n` rows, in row order. With WebAssembly the
   * answer is a view of scratch memory: read it before the next call or `grow`.
   */
  dots(query: Float32Array, n: number): Float32Array {
    const d = this.dimensions;
    if (!this.#memory) {
      return Float32Array.from({ length: n }, (_, row) => this.#scalar(query, row));
    }
    const at = this.values.byteLength;
    new Float32Array(this.#memory.buffer, at, d).set(query);
    this.#dots!(at, 0, n, d, at + d * 4);
    return new Float32Array(this.#memory.buffer, at + d * 4, n);
  }

  /** The dot products of `query` with the rows `rows`, in that order (as `dots` scores them). */
  dotsOf(query: Float32Array, rows: number[]): number[] {
    const d = this.dimensions;
    if (!this.#memory) return rows.map((row) => this.#scalar(query, row));
    const at = this.values.byteLength;
    new Float32Array(this.#memory.buffer, at, d).set(query);
    const out = new Float32Array(this.#memory.buffer, at + d * 4, 1);
    return rows.map((row) => {
      this.#dots!(at, row * d * 4, 1, d, at + d * 4);
      return out[0];
    });
  }

  /** A row's dot product in single precision, four lanes summed as the kernel sums them. */
  #scalar(query: Float32Array, row: number): number {
    const d = this.dimensions;
    const values = this.values;
    const lanes = this.#lanes.fill(0);
    for (let i = 0, at = row * d; i < d; i++, at++) {
      lanes[i & 3] = lanes[i & 3] + Math.fround(query[i] * values[at]);
    }
    return Math.fround(Math.fround(lanes[0] + lanes[1]) + Math.fround(lanes[2] + lanes[3]));
  }
}
