/**
 * Writes ONNX models from code, for the tests' tiny model and the benchmark's MiniLM-shaped one:
 * a graph builder over the part of `onnx/onnx.proto` they need, encoded with protobufjs.
 *
 * @example
 * ```ts
 * const graph = new GraphBuilder("double");
 * graph.input("x", "float", ["n"]);
 * graph.output(graph.node("Add", ["x", "x"]), "float", ["n"]);
 * const bytes = graph.encode(14);
 * ```
 */
import protobuf from "protobufjs";

/**
 * The part of `onnx/onnx.proto` (proto2, package `onnx`) these models need; the field numbers
 * are the specification's.
 */
const ONNX_PROTO = `
syntax = "proto2";
package onnx;
message AttributeProto {
  optional string name = 1;
  optional int32 type = 20;
  optional float f = 2;
  optional int64 i = 3;
  repeated float floats = 7;
  repeated int64 ints = 8;
}
message ValueInfoProto {
  optional string name = 1;
  optional TypeProto type = 2;
}
message NodeProto {
  repeated string input = 1;
  repeated string output = 2;
  optional string name = 3;
  optional string op_type = 4;
  optional string domain = 7;
  repeated AttributeProto attribute = 5;
}
message OperatorSetIdProto {
  optional string domain = 1;
  optional int64 version = 2;
}
message ModelProto {
  optional int64 ir_version = 1;
  repeated OperatorSetIdProto opset_import = 8;
  optional string producer_name = 2;
  optional string producer_version = 3;
  optional GraphProto graph = 7;
}
message GraphProto {
  repeated NodeProto node = 1;
  optional string name = 2;
  repeated TensorProto initializer = 5;
  repeated ValueInfoProto input = 11;
  repeated ValueInfoProto output = 12;
}
message TensorProto {
  repeated int64 dims = 1;
  optional int32 data_type = 2;
  optional string name = 8;
  optional bytes raw_data = 9;
}
message TensorShapeProto {
  message Dimension {
    oneof value {
      int64 dim_value = 1;
      string dim_param = 2;
    }
  }
  repeated Dimension dim = 1;
}
message TypeProto {
  message Tensor {
    optional int32 elem_type = 1;
    optional TensorShapeProto shape = 2;
  }
  oneof value {
    Tensor tensor_type = 1;
  }
}
`;

/** `TensorProto.DataType` values by name. */
export const DATA_TYPES = { float: 1, int64: 7 } as const;
/** `AttributeProto.AttributeType` values. */
const ATTRIBUTE = { float: 1, int: 2, ints: 7 } as const;

/** An element type of a graph's inputs, outputs and constants. */
export type ElementType = keyof typeof DATA_TYPES;
/** A node attribute: a number (an `int` when whole, else a `float`) or a list of ints. */
export type Attribute = number | number[];

function valueInfo(name: string, type: ElementType, dims: (number | string)[]) {
  return {
    name,
    type: {
      tensor_type: {
        elem_type: DATA_TYPES[type],
        shape: {
          dim: dims.map((d) => typeof d === "number" ? { dim_value: d } : { dim_param: d }),
        },
      },
    },
  };
}

/** Builds one graph: inputs, constants, nodes (in order) and outputs; `encode` gives the model. */
export class GraphBuilder {
  readonly #name: string;
  readonly #nodes: Record<string, unknown>[] = [];
  readonly #initializers: Record<string, unknown>[] = [];
  readonly #inputs: Record<string, unknown>[] = [];
  readonly #outputs: Record<string, unknown>[] = [];
  #count = 0;

  /** An empty graph named `name`. */
  constructor(name: string) {
    this.#name = name;
  }

  /** Declares a graph input. */
  input(name: string, type: ElementType, dims: (number | string)[]): string {
    this.#inputs.push(valueInfo(name, type, dims));
    return name;
  }

  /** Declares `value` a graph output. */
  output(value: string, type: ElementType, dims: (number | string)[]): void {
    this.#outputs.push(valueInfo(value, type, dims));
  }

  /** A float constant (an initializer) of shape `dims`. */
  floats(name: string, dims: number[], values: Float32Array): string {
    const raw = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    this.#initializers.push({ name, data_type: DATA_TYPES.float, dims, raw_data: raw });
    return name;
  }

  /** An int64 constant of shape `dims`. */
  ints(name: string, dims: number[], values: number[]): string {
    const raw = new Uint8Array(BigInt64Array.from(values.map(BigInt)).buffer);
    this.#initializers.push({ name, data_type: DATA_TYPES.int64, dims, raw_data: raw });
    return name;
  }

  /** Adds a node of the default domain; returns its (first) output's name. */
  node(
    op: string,
    inputs: string[],
    attributes: Record<string, Attribute> = {},
    output = `${op.toLowerCase()}_${this.#count}`,
  ): string {
    const attribute = Object.entries(attributes).map(([name, value]) =>
      Array.isArray(value)
        ? { name, type: ATTRIBUTE.ints, ints: value }
        : Number.isInteger(value)
        ? { name, type: ATTRIBUTE.int, i: value }
        : { name, type: ATTRIBUTE.float, f: value }
    );
    this.#nodes.push({
      op_type: op,
      name: `n${this.#count++}`,
      input: inputs,
      output: [output],
      attribute,
    });
    return output;
  }

  /** The model's bytes, importing the default operator set at `opset`. */
  encode(opset: number): Uint8Array {
    const root = protobuf.parse(ONNX_PROTO, { keepCase: true }).root;
    const ModelProto = root.lookupType("onnx.ModelProto");
    const model = {
      ir_version: 8,
      opset_import: [{ domain: "", version: opset }],
      producer_name: "svc",
      producer_version: "1",
      graph: {
        name: this.#name,
        node: this.#nodes,
        initializer: this.#initializers,
        input: this.#inputs,
        output: this.#outputs,
      },
    };
    const problem = ModelProto.verify(model);
    if (problem) throw new Error(`Cannot encode the ONNX model: ${problem}`);
    return ModelProto.encode(ModelProto.fromObject(model)).finish();
  }
}
