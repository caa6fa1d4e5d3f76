/**
 * A graph of the shape and size of all-MiniLM-L6-v2 — a 6-layer BERT encoder, 384 wide, 12
 * heads, 1536-wide feed-forward, 30,522-token vocabulary, 512 positions, about 22.7 million
 * weights — with random weights, for the ONNX embedder's benchmark. It does the same matrix
 * products, softmax attention and layer norms as the real model (ReLU stands in for GELU), so
 * its speed is what the real one costs on this machine; its vectors mean nothing.
 *
 * @example
 * ```ts
 * await writeTinyModel(dir, { hidden: 384, graph: miniLmShapedGraph() });
 * ```
 */
import { GraphBuilder } from "../plugins/onnx_embedder/onnx_graph.ts";
import { floats, random } from "../plugins/onnx_embedder/testing/tiny_model.ts";

const VOCABULARY = 30_522;
const POSITIONS = 512;
const HIDDEN = 384;
const HEADS = 12;
const FEED_FORWARD = 1536;
const LAYERS = 6;

/** The graph's bytes (about 91 MB). */
export function miniLmShapedGraph(seed = 7): Uint8Array {
  const next = random(seed);
  const graph = new GraphBuilder("minilm_shaped_encoder");
  const weights = (name: string, dims: number[], scale = 0.05) =>
    graph.floats(name, dims, floats(dims.reduce((a, b) => a * b, 1), () => next() * scale));
  const ones = (name: string) => graph.floats(name, [HIDDEN], new Float32Array(HIDDEN).fill(1));
  const shape = ["batch_size", "sequence_length"];
  const ids = graph.input("input_ids", "int64", shape);
  const attention = graph.input("attention_mask", "int64", shape);
  const tokenTypes = graph.input("token_type_ids", "int64", shape);

  // Embeddings: word + position + token type, then a layer norm.
  const length = graph.node("Gather", [
    graph.node("Shape", [ids]),
    graph.ints("one", [], [1]),
  ]);
  const positions = graph.node("Range", [
    graph.ints("zero", [], [0]),
    length,
    graph.ints("step", [], [1]),
  ]);
  let x = graph.node("Add", [
    graph.node("Add", [
      graph.node("Gather", [weights("word_embeddings", [VOCABULARY, HIDDEN]), ids]),
      graph.node("Gather", [weights("position_embeddings", [POSITIONS, HIDDEN]), positions]),
    ]),
    graph.node("Gather", [weights("type_embeddings", [2, HIDDEN]), tokenTypes]),
  ]);
  const norm = (input: string, name: string) =>
    graph.node("LayerNormalization", [
      input,
      ones(`${name}_gamma`),
      weights(`${name}_beta`, [HIDDEN]),
    ], {
      axis: -1,
      epsilon: 1e-12,
    });
  x = norm(x, "embeddings");

  // The attention mask as a bias: 0 for tokens, -10000 for padding, shaped [batch, 1, 1, seq].
  const bias = graph.node("Mul", [
    graph.node("Sub", [
      graph.floats("one_f", [], new Float32Array([1])),
      graph.node("Cast", [attention], { to: 1 }),
    ]),
    graph.floats("minus_big", [], new Float32Array([-10_000])),
  ]);
  const maskBias = graph.node("Unsqueeze", [bias, graph.ints("mask_axes", [2], [1, 2])]);
  const heads = graph.ints("heads_shape", [4], [0, 0, HEADS, HIDDEN / HEADS]);
  const merged = graph.ints("merged_shape", [3], [0, 0, HIDDEN]);
  const scale = graph.floats("scale", [], new Float32Array([1 / Math.sqrt(HIDDEN / HEADS)]));
  const linear = (input: string, name: string, from: number, to: number) =>
    graph.node("Add", [
      graph.node("MatMul", [input, weights(`${name}_w`, [from, to])]),
      weights(`${name}_b`, [to]),
    ]);
  const split = (input: string, perm: number[]) =>
    graph.node("Transpose", [graph.node("Reshape", [input, heads])], { perm });

  for (let layer = 0; layer < LAYERS; layer++) {
    const at = (name: string) => `l${layer}_${name}`;
    const q = split(linear(x, at("q"), HIDDEN, HIDDEN), [0, 2, 1, 3]);
    const k = split(linear(x, at("k"), HIDDEN, HIDDEN), [0, 2, 3, 1]);
    const v = split(linear(x, at("v"), HIDDEN, HIDDEN), [0, 2, 1, 3]);
    const scores = graph.node("Add", [
      graph.node("Mul", [graph.node("MatMul", [q, k]), scale]),
      maskBias,
    ]);
    const context = graph.node("Reshape", [
      graph.node("Transpose", [
        graph.node("MatMul", [graph.node("Softmax", [scores], { axis: -1 }), v]),
      ], {
        perm: [0, 2, 1, 3],
      }),
      merged,
    ]);
    x = norm(
      graph.node("Add", [linear(context, at("o"), HIDDEN, HIDDEN), x]),
      at("attention_norm"),
    );
    const up = graph.node("Relu", [linear(x, at("up"), HIDDEN, FEED_FORWARD)]);
    x = norm(
      graph.node("Add", [linear(up, at("down"), FEED_FORWARD, HIDDEN), x]),
      at("output_norm"),
    );
  }
  graph.output(graph.node("Identity", [x], {}, "last_hidden_state"), "float", [...shape, HIDDEN]);
  return graph.encode(17);
}
