"""Measures whether a multilingual model's vectors, mapped linearly into all-MiniLM-L6-v2's
space, let English questions find memories written in German, Spanish or French. Plain cosine,
outside svc's ranking: each memory of the probe set (bench/facts/probe.json) is embedded with
MiniLM, except those `foreign` detects, which are embedded with USE multilingual and mapped by a
ridge regression fitted on English texts that both models embed: LoCoMo's turns (the first six
conversations). Prints hit@3 of the English and the other-language questions for each offset
subtracted from a mapped memory's similarity. Needs models/all-MiniLM-L6-v2 (fetch.py),
models/use-multilingual (multilingual.py), numpy, onnxruntime and tokenizers:

    python3 tests/models/projection.py [path/to/locomo10.json]
"""
import json, re, sys
import numpy as np, onnxruntime as ort
from tokenizers import Tokenizer

MINILM, USEM = "models/all-MiniLM-L6-v2", "models/use-multilingual"
# Function words of German, Spanish and French, and of English: a memory is in another
# language when it holds two of the first and more than twice as many as of the second.
FOREIGN = set("""der die das und ist nicht ich mein meine meinen meinem mit vor dem den ein eine
einen wir zum zur jeden immer habe hat wurde letzte im auf zu von bei aus nach sehr auch aber wenn
wie was el la los las y es mi mis soy de desde hace sale con por para que del al una un muy pero
cuando como tengo tiene su sus le les et est je mon ma mes des du quand suis une avec pour dans
sur au aux chez pas ne qui mais très ai nous notre""".split())
ENGLISH = set("""the and is my i a to of in on at with for we our it was have has me i'm i've
you he she they be this that from""".split())


def foreign(text):
    words = re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?", text.lower())
    other = sum(word in FOREIGN for word in words)
    return other >= 2 and other > 2 * sum(word in ENGLISH for word in words)


def embedder(directory, mean):
    tokenizer = Tokenizer.from_file(f"{directory}/tokenizer.json")
    tokenizer.no_padding()
    session = ort.InferenceSession(f"{directory}/onnx/model.onnx", providers=["CPUExecutionProvider"])
    names = [given.name for given in session.get_inputs()]

    def embed(texts):
        vectors = []
        for text in texts:  # one at a time: USE multilingual quantises each run
            ids = np.array([tokenizer.encode(text).ids[:256]], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": np.ones_like(ids),
                    "token_type_ids": np.zeros_like(ids)}
            out = session.run(None, {name: feed[name] for name in names})[0][0]
            vector = out.mean(0) if mean else out
            vectors.append(vector / np.linalg.norm(vector))
        return np.array(vectors)
    return embed


def main():
    minilm, usem = embedder(MINILM, True), embedder(USEM, False)
    locomo = json.load(open(sys.argv[1] if len(sys.argv) > 1 else "../shared/bench/locomo10.json"))
    corpus = [turn["text"] for sample in locomo[:6] for key, turns in sample["conversation"].items()
              if re.fullmatch(r"session_\d+", key) for turn in turns if turn.get("text")]
    a, b = minilm(corpus), usem(corpus)
    mapping = np.linalg.solve(b.T @ b + np.eye(b.shape[1]), b.T @ a)
    probe = json.load(open("bench/facts/probe.json"))
    memories = [fact["text"] for fact in probe["facts"]] + probe["distractors"]
    other = np.array([foreign(text) for text in memories])
    plain = minilm(memories)
    vectors = plain.copy()
    mapped = usem([text for text, is_other in zip(memories, other) if is_other]) @ mapping
    vectors[other] = mapped / np.linalg.norm(mapped, axis=1, keepdims=True)
    questions = minilm([fact["question"] for fact in probe["facts"]])
    print(f"{len(corpus)} texts fitted; {other.sum()} memories in another language")
    for offset in [None, 0, 0.05, 0.1, 0.15]:
        scores = questions @ (plain if offset is None else vectors).T
        scores[:, other] -= offset or 0
        hits = {}
        for i, fact in enumerate(probe["facts"]):
            kind = "other language" if fact["kind"] == "other_language" else "English"
            hits.setdefault(kind, []).append((scores[i] > scores[i, i]).sum() < 3)
        label = "MiniLM alone" if offset is None else f"mapped, offset {offset}"
        print(f"{label}: " + ", ".join(f"{k} {np.mean(v):.3f}" for k, v in hits.items()))


if __name__ == "__main__":
    main()
