/**
 * Which operators a model's graph runs, read with protobufjs from the part of `onnx/onnx.proto`
 * that names them (every other field is skipped).
 *
 * @example
 * ```ts
 * const quantised = operatorsOf(await Deno.readFile("model.onnx")).has("DynamicQuantizeLinear");
 * ```
 * @module
 */
import protobuf from "protobufjs";

/** A model's graph, its nodes' operators only (protobufjs skips every other field). */
const OPERATORS_PROTO = `
syntax = "proto2";
message Model { optional Graph graph = 7; }
message Graph { repeated Node node = 1; }
message Node { optional string op_type = 4; }
`;

/** The operators the graph of the model `bytes` runs (of its top level; subgraphs not read). */
export function operatorsOf(bytes: Uint8Array): Set<string> {
  const Model = protobuf.parse(OPERATORS_PROTO, { keepCase: true }).root.lookupType("Model");
  const model = Model.toObject(Model.decode(bytes)) as {
    graph?: { node?: { op_type?: string }[] };
  };
  return new Set((model.graph?.node ?? []).map((node) => node.op_type ?? ""));
}
