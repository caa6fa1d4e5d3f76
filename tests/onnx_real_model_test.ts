/**
 * The ONNX embedder on real weights: its vectors equal, to float precision, those an independent
 * implementation (Hugging Face `tokenizers` and Python `onnxruntime`, pooled and normalised as
 * sentence-transformers does: `tests/models/reference.py`) computed from the same files. The
 * models come from `python3 tests/models/fetch.py` (CI runs it) into `models/`, or from
 * `SVC_TEST_MODELS_DIR`; a model not there is skipped, and says so.
 */
import assert from "node:assert/strict";
import { OnnxEmbedder } from "../plugins/onnx_embedder/mod.ts";
import { pathExists } from "@svc/util/files";

const MODELS_DIR = Deno.env.get("SVC_TEST_MODELS_DIR") ??
  new URL("../models", import.meta.url).pathname;

const reference = JSON.parse(
  await Deno.readTextFile(new URL("./vectors/onnx_reference.json", import.meta.url)),
) as {
  texts: { text: string; purpose: "query" | "document" }[];
  models: Record<string, { vectors: string[] }>;
};

for (const [name, model] of Object.entries(reference.models)) {
  const vectors = model.vectors.map((numbers) => numbers.split(" ").map(Number));
  const dir = `${MODELS_DIR}/${name}`;
  const present = await pathExists(`${dir}/onnx/model.onnx`);
  Deno.test({
    name: `onnx on real weights: ${name} gives the reference vectors` +
      (present ? "" : ` (skipped: no ${dir}; run python3 tests/models/fetch.py)`),
    ignore: !present,
    async fn() {
      const embedder = await OnnxEmbedder.open({ dir, threads: 1 });
      try {
        for (const [i, { text, purpose }] of reference.texts.entries()) {
          const [vector] = await embedder.embed([text], { purpose });
          assert.equal(vector.length, vectors[i].length);
          const worst = Math.max(...vectors[i].map((x, j) => Math.abs(x - vector[j])));
          assert.ok(worst < 1e-4, `${purpose} ${i}: a dimension differs by ${worst}`);
        }
        // Batched with the others, a text gets the vector it gets alone.
        const documents = reference.texts.filter(({ purpose }) => purpose === "document");
        const together = await embedder.embed(documents.map(({ text }) => text));
        const alone = vectors[reference.texts.indexOf(documents[0])];
        assert.ok(Math.max(...alone.map((x, j) => Math.abs(x - together[0][j]))) < 1e-4);
      } finally {
        await embedder.close();
      }
    },
  });
}

/** Memories in three languages, and an English question for each, about something else. */
const CROSS_LINGUAL = [
  { memory: "Mi tía vive en Valparaíso, cerca del puerto.", question: "Where does my aunt live?" },
  {
    memory: "Meine Tochter spielt jeden Dienstag Handball.",
    question: "What sport does my daughter play?",
  },
  { memory: "Je suis allergique aux noix de cajou.", question: "Which nuts can't I eat?" },
  { memory: "I renewed my passport in March.", question: "When does the ferry leave?" },
];

const multilingual = `${MODELS_DIR}/use-multilingual`;
const multilingualPresent = await pathExists(`${multilingual}/onnx/model.onnx`);
Deno.test({
  name: "onnx on real weights: use-multilingual finds a memory in another language" +
    (multilingualPresent ? "" : ` (skipped: no ${multilingual}; run tests/models/multilingual.py)`),
  ignore: !multilingualPresent,
  async fn() {
    const embedder = await OnnxEmbedder.open({ dir: multilingual, threads: 1 });
    try {
      const memories = await embedder.embed(CROSS_LINGUAL.map(({ memory }) => memory));
      for (const [i, { question }] of CROSS_LINGUAL.slice(0, 3).entries()) {
        const [query] = await embedder.embed([question], { purpose: "query" });
        const scores = memories.map((memory) =>
          memory.reduce((sum, x, j) => sum + x * query[j], 0)
        );
        assert.equal(scores.indexOf(Math.max(...scores)), i, `${question}: ${scores.join(", ")}`);
      }
    } finally {
      await embedder.close();
    }
  },
});
