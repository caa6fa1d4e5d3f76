/**
 * The unit vectors of a resident namespace, one row after another in WebAssembly memory, and
 * their dot products with a query computed by WebAssembly SIMD kernels (`dots.wat`). Rows that
 * fit in less than one WebAssembly page (64 KiB: small namespaces, which are many) live in a
 * plain `Float32Array` and are scored in JavaScript, as are all rows where WebAssembly SIMD (with
 * its relaxed instructions) is missing or the dimensions are not a multiple of 4. Both compute in single precision, so a row
 * scores the same either way.
 *
 * In WebAssembly memory each row also has a 7-bit copy (one scale a row; each code is stored plus
 * 64, as relaxed SIMD's dot product of 8-bit by 7-bit lanes wants it), which a search scans first
 * with the query coded in 8 bits: a quarter of the bytes, three to four times as fast as the exact
 * scan. `shortlist` keeps every row whose approximate score could, within a bound on the rounding
 * worked out for each query, place among the best; only those are scored exactly. A search so
 * returns exactly what scoring every row would, ties included.
 *
 * The kernels are `dots.wat` compiled with wabt 1.0.39 and base64-encoded:
 * `npx -y -p wabt@1.0.39 wat2wasm --enable-relaxed-simd dots.wat -o dots.wasm && base64 -w0
 * dots.wasm`. A runtime without (relaxed) WebAssembly SIMD scores every row in JavaScript.
 *
 * @example
 * ```ts
 * const column = new VectorColumn(4, 16);
 * column.set(0, new Float32Array([1, 0, 0, 0, 0, 1, 0, 0]));
 * column.dotsOf(new Float32Array([1, 0, 0, 0]), [0, 1]); // [1, 0]
 * ```
 */

const KERNELS =
  "AGFzbQEAAAABHANgBX9/f39/AGAIf39/f399f38AYAR7f399AX0CDwEDZW52Bm1lbW9yeQIAAAMEAwABAgcTAgRkb3RzAAAIY29kZURvdHMAAQqFBwOTAQIEfwF7IANBAnQhCCABIQUgASACIAhsaiEGAkADQCAFIAZPDQFDAAAAAP0TIQlBACEHAkADQCAHIAhPDQEgCSAAIAdq/QAEACAFIAdq/QAEAP3mAf3kASEJIAdBEGohBwwACwsgBCAJ/R8AIAn9HwGSIAn9HwIgCf0fA5KSOAIAIARBBGohBCAFIAhqIQUMAAsLC8YFAgR/BXsgASEIIAEgAyADQQRwayAEbGohCSABIAMgBGxqIQoCQANAIAggCU8NAUEA/REhDUEA/REhDkEA/REhD0EA/REhEEEAIQsCQANAIAsgBE8NASAAIAtq/QAEACEMIAwgCCALav0ABAAgDf2TAiENIAwgCCAEQQFsaiALav0ABAAgDv2TAiEOIAwgCCAEQQJsaiALav0ABAAgD/2TAiEPIAwgCCAEQQNsaiALav0ABAAgEP2TAiEQIAAgC2r9AAQQIQwgDCAIIAtq/QAEECAN/ZMCIQ0gDCAIIARBAWxqIAtq/QAEECAO/ZMCIQ4gDCAIIARBAmxqIAtq/QAEECAP/ZMCIQ8gDCAIIARBA2xqIAtq/QAEECAQ/ZMCIRAgACALav0ABCAhDCAMIAggC2r9AAQgIA39kwIhDSAMIAggBEEBbGogC2r9AAQgIA79kwIhDiAMIAggBEECbGogC2r9AAQgIA/9kwIhDyAMIAggBEEDbGogC2r9AAQgIBD9kwIhECAAIAtq/QAEMCEMIAwgCCALav0ABDAgDf2TAiENIAwgCCAEQQFsaiALav0ABDAgDv2TAiEOIAwgCCAEQQJsaiALav0ABDAgD/2TAiEPIAwgCCAEQQNsaiALav0ABDAgEP2TAiEQIAtBwABqIQsMAAsLIAcgDSAGIAJBAGogBRACOAIAIAcgDiAGIAJBBGogBRACOAIEIAcgDyAGIAJBCGogBRACOAIIIAcgECAGIAJBDGogBRACOAIMIAdBEGohByACQRBqIQIgCCAEQQRsaiEIDAALCwJAA0AgCCAKTw0BQQD9ESENQQAhCwJAA0AgCyAETw0BIAAgC2r9AAQAIAggC2r9AAQAIA39kwIhDSALQRBqIQsMAAsLIAcgDSAGIAIgBRACOAIAIAdBBGohByACQQRqIQIgCCAEaiEIDAALCwsmACAA/RsAIAD9GwFqIAD9GwIgAP0bA2pqIAFrsiACKgIAlCADlAs=";

const PAGE = 65_536;
/** The largest code of a query (-127..127). */
const CODE = 127;
/** The largest code of a row (-63..63), stored plus {@link ROW_OFFSET} (1..127, as i7 lanes). */
const ROW_CODE = 63;
const ROW_OFFSET = 64;

/** The compiled kernels, or `null` where this runtime has no (relaxed) WebAssembly SIMD. */
const kernels: WebAssembly.Module | null = (() => {
  try {
    return new WebAssembly.Module(Uint8Array.fromBase64(KERNELS));
  } catch {
    return null;
  }
})();

type Dots = (query: number, rows: number, n: number, d: number, out: number) => void;
type CodeDots = (
  query: number,
  codes: number,
  scales: number,
  n: number,
  stride: number,
  scale: number,
  offset: number,
  out: number,
) => void;

/** The kernels over a memory of their own. */
class Kernel {
  readonly memory = new WebAssembly.Memory({ initial: 0 });
  readonly dots: Dots;
  readonly codeDots: CodeDots;

  constructor() {
    const { exports } = new WebAssembly.Instance(kernels!, { env: { memory: this.memory } });
    this.dots = exports.dots as Dots;
    this.codeDots = exports.codeDots as CodeDots;
  }

  /** Room for at least `bytes`. */
  reserve(bytes: number): void {
    const pages = Math.ceil(bytes / PAGE) - this.memory.buffer.byteLength / PAGE;
    if (pages > 0) this.memory.grow(pages);
  }
}

export class VectorColumn {
  readonly dimensions: number;
  #capacity = 0;
  /** Row `r` is `#values[r * dimensions .. (r + 1) * dimensions]`; replaced when it grows. */
  #values: Float32Array = new Float32Array(0);
  /** The rows' memory (`#values`, then a query, then one score), once in WebAssembly. */
  #exact?: Kernel;
  /**
   * The codes' memory: `#stride` bytes a row, then one scale a row (`#scales`), then a query's
   * codes, then one approximate score a row.
   */
  #approximate?: Kernel;
  /**
   * Code bytes a row: the dimensions rounded up to 64. Padding is zero, a row's and the query's,
   * so it adds nothing.
   */
  #stride: number;
  #codes: Int8Array = new Int8Array(0);
  /** Each row's scale: its value `i` is about `(codes[i] - ROW_OFFSET) * scale`. */
  #scales: Float32Array = new Float32Array(0);
  /** The largest distance between a row and its codes, and the largest row length, ever set. */
  #codeError = 0;
  #longest = 0;
  #lanes = new Float32Array(4);

  /** Room for `capacity` rows of `dimensions` floats. */
  constructor(dimensions: number, capacity: number) {
    this.dimensions = dimensions;
    this.#stride = Math.ceil(dimensions / 64) * 64;
    this.grow(capacity);
  }

  /** Bytes the rows hold (with their codes and the room for a query and its scores). */
  get byteLength(): number {
    return (this.#exact?.memory.buffer.byteLength ?? this.#values.byteLength) +
      (this.#approximate?.memory.buffer.byteLength ?? 0);
  }

  /** Room for `capacity` rows, the rows kept. */
  grow(capacity: number): void {
    if (capacity <= this.#capacity) return;
    this.#capacity = capacity;
    const d = this.dimensions;
    const floats = capacity * d;
    const needed = (floats + d + 1) * 4;
    if (!this.#exact && (!kernels || d % 4 !== 0 || needed < PAGE)) {
      const values = new Float32Array(floats);
      values.set(this.#values);
      this.#values = values;
      return;
    }
    const moving = this.#exact ? undefined : this.#values;
    this.#exact ??= new Kernel();
    this.#exact.reserve(needed);
    this.#values = new Float32Array(this.#exact.memory.buffer, 0, floats);
    this.#approximate ??= new Kernel();
    const scales = this.#scales.slice(); // where they were is now room for codes
    this.#approximate.reserve(capacity * (this.#stride + 8) + this.#stride);
    const { buffer } = this.#approximate.memory;
    this.#codes = new Int8Array(buffer, 0, capacity * this.#stride);
    this.#scales = new Float32Array(buffer, capacity * this.#stride, capacity);
    this.#scales.set(scales);
    if (moving) this.set(0, moving);
  }

  /** A column of its own holding the same rows. */
  copy(): VectorColumn {
    const copy = new VectorColumn(this.dimensions, this.#capacity);
    copy.#values.set(this.#values);
    copy.#codes.set(this.#codes);
    copy.#scales.set(this.#scales);
    copy.#codeError = this.#codeError;
    copy.#longest = this.#longest;
    return copy;
  }

  /** Writes rows from row `row` on: `vectors` holds them one after another. */
  set(row: number, vectors: Float32Array): void {
    this.#values.set(vectors, row * this.dimensions);
    if (!this.#approximate) return;
    const rows = vectors.length / this.dimensions;
    for (let r = row; r < row + rows; r++) this.#encode(r);
  }

  /** Copies row `from` over row `to`. */
  move(from: number, to: number): void {
    const d = this.dimensions, stride = this.#stride;
    this.#values.copyWithin(to * d, from * d, (from + 1) * d);
    this.#codes.copyWithin(to * stride, from * stride, (from + 1) * stride);
    this.#scales[to] = this.#scales[from];
  }

  /** A copy of row `row`. */
  row(row: number): Float32Array {
    return this.#values.slice(row * this.dimensions, (row + 1) * this.dimensions);
  }

  /** The dot products of `query` with the rows `rows`, in that order. */
  dotsOf(query: Float32Array, rows: number[]): number[] {
    const d = this.dimensions;
    const kernel = this.#exact;
    if (!kernel) return rows.map((row) => this.#scalar(query, row));
    const at = this.#values.byteLength;
    new Float32Array(kernel.memory.buffer, at, d).set(query);
    const out = new Float32Array(kernel.memory.buffer, at + d * 4, 1);
    return rows.map((row) => {
      kernel.dots(at, row * d * 4, 1, d, at + d * 4);
      return out[0];
    });
  }

  /**
   * Rows among the first `n` that hold the `k` whose dot products with `query` are largest,
   * ties included (all `n` rows when there are no codes): the rows whose approximate score is
   * within twice the rounding bound of the `k`-th best approximate score.
   */
  shortlist(query: Float32Array, n: number, k: number): number[] {
    const kernel = this.#approximate;
    if (k <= 0) return [];
    if (!kernel || k >= n) return Array.from({ length: n }, (_, row) => row);
    const d = this.dimensions, stride = this.#stride;
    const at = this.#scales.byteOffset + this.#scales.byteLength;
    const codes = new Int8Array(kernel.memory.buffer, at, stride);
    const { scale, error, length } = encode(query, codes, CODE);
    codes.fill(0, d);
    let sum = 0;
    for (let i = 0; i < d; i++) sum += codes[i];
    kernel.codeDots(
      at,
      0,
      this.#scales.byteOffset,
      n,
      stride,
      scale,
      ROW_OFFSET * sum,
      at + stride,
    );
    const approximations = new Float32Array(kernel.memory.buffer, at + stride, n);
    // |q·r − approximation| ≤ |q|·|r − r'| + |q − q'|·|r'|, plus single precision's rounding.
    const bound = length * this.#codeError + error * (this.#longest + this.#codeError) +
      d * 2 ** -22 * length * this.#longest;
    const best = new Float64Array(k); // a min-heap of the k best approximations
    for (let row = 0; row < k; row++) siftUp(best, row, approximations[row]);
    let least = best[0];
    for (let row = k; row < n; row++) {
      const approximation = approximations[row];
      if (approximation <= least) continue;
      siftDown(best, k, approximation);
      least = best[0];
    }
    const cut = least - 2 * bound;
    const rows: number[] = [];
    for (let row = 0; row < n; row++) if (approximations[row] >= cut) rows.push(row);
    return rows;
  }

  /** Row `row`'s codes (plus the offset, zeros past the dimensions) and scale, from its values. */
  #encode(row: number): void {
    const d = this.dimensions;
    const values = this.#values.subarray(row * d, (row + 1) * d);
    const codes = this.#codes.subarray(row * this.#stride, (row + 1) * this.#stride);
    const { scale, error, length } = encode(values, codes, ROW_CODE);
    for (let i = 0; i < d; i++) codes[i] += ROW_OFFSET;
    codes.fill(0, d);
    this.#scales[row] = scale;
    this.#codeError = Math.max(this.#codeError, error);
    this.#longest = Math.max(this.#longest, length);
  }

  /** A row's dot product in single precision, four lanes summed as the kernel sums them. */
  #scalar(query: Float32Array, row: number): number {
    const d = this.dimensions;
    const values = this.#values;
    const lanes = this.#lanes.fill(0);
    for (let i = 0, at = row * d; i < d; i++, at++) {
      lanes[i & 3] = lanes[i & 3] + Math.fround(query[i] * values[at]);
    }
    return Math.fround(Math.fround(lanes[0] + lanes[1]) + Math.fround(lanes[2] + lanes[3]));
  }
}

/**
 * Writes `vector`'s codes, in -`top`..`top`, to `codes`, with one scale (a single-precision
 * value, as rows keep it): `scale`, the distance between the vector and its codes times the scale
 * (`error`), and the vector's length.
 */
function encode(vector: Float32Array, codes: Int8Array, top: number): {
  scale: number;
  error: number;
  length: number;
} {
  const n = vector.length;
  let largest = 0, squares = 0;
  for (let i = 0; i < n; i++) {
    const value = vector[i];
    largest = Math.max(largest, Math.abs(value));
    squares += value * value;
  }
  const scale = Math.fround(largest / top);
  let errors = 0;
  for (let i = 0; i < n; i++) {
    const value = vector[i];
    const rounded = scale === 0 ? 0 : Math.round(value / scale);
    const code = rounded > top ? top : rounded < -top ? -top : rounded;
    codes[i] = code;
    const error = value - code * scale;
    errors += error * error;
  }
  return { scale, error: Math.sqrt(errors), length: Math.sqrt(squares) };
}

/** Adds `value` to the min-heap `heap[0 .. size)`. */
function siftUp(heap: Float64Array, size: number, value: number): void {
  let at = size;
  while (at > 0) {
    const parent = (at - 1) >> 1;
    if (heap[parent] <= value) break;
    heap[at] = heap[parent];
    at = parent;
  }
  heap[at] = value;
}

/** Replaces the least of the full min-heap `heap[0 .. size)` by `value`. */
function siftDown(heap: Float64Array, size: number, value: number): void {
  let at = 0;
  while (true) {
    const left = 2 * at + 1;
    if (left >= size) break;
    const child = left + 1 < size && heap[left + 1] < heap[left] ? left + 1 : left;
    if (heap[child] >= value) break;
    heap[at] = heap[child];
    at = child;
  }
  heap[at] = value;
}
