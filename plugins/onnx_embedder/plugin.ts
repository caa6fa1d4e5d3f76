/**
 * The ONNX embedder as the composition chooses it: `SVC_EMBEDDER=onnx` with a model directory or
 * a hub model id; recall re-ranks with GloVe's words on top. An index built with a hub model is
 * opened again from its download in the models directory.
 *
 * @module
 */
import type { EmbedderPlugin } from "@svc/relayer/kit";

export type {
  EmbedderOpenContext,
  EmbedderPlugin,
  ModelPlace,
  OpenedEmbedder,
  RecognitionContext,
  Reranker,
  RerankOptions,
} from "@svc/relayer/kit";
import {
  DEFAULT_BATCH,
  DEFAULT_DOWNLOAD,
  DEFAULT_HF_ENDPOINT,
  type OnnxSettings,
  readOnnxSettings,
} from "./settings.ts";

/** `SVC_EMBEDDER=onnx`. */
export const onnxPlugin: EmbedderPlugin<OnnxSettings> = {
  kind: "onnx",
  packages: { names: ["onnxruntime-node"], megabytes: 300 },
  wordReranker: true,
  settings: (read, { modelsDir }) => readOnnxSettings(read, modelsDir),
  async open(settings, { logger }) {
    const { OnnxEmbedder } = await import("./mod.ts");
    const { modelDir, model, revision, endpoint, modelsDir, download, pins, ...run } = settings;
    const embedder = await OnnxEmbedder.open({
      ...run,
      dir: modelDir,
      name: model,
      hub: model ? { model, revision, endpoint, modelsDir, pins, ...download } : undefined,
      logger,
    });
    return { embedder, close: () => embedder.close() };
  },
  /** A hub model, as downloaded into the models directory; a model directory's name says nothing of where it is. */
  recognise(model, { modelsDir, configured }) {
    const hub = /^onnx:([\w.-]+\/[\w.-]+):[0-9a-f]{16}$/.exec(model);
    if (!hub) return undefined;
    return {
      model: hub[1],
      revision: "main",
      modelsDir,
      endpoint: configured?.endpoint ?? DEFAULT_HF_ENDPOINT,
      batchSize: configured?.batchSize ?? DEFAULT_BATCH,
      threads: configured?.threads ?? 0,
      download: configured?.download ?? DEFAULT_DOWNLOAD,
    };
  },
  chosenBy: ({ modelDir, model }) =>
    modelDir ? `SVC_ONNX_MODEL_DIR=${modelDir}` : `SVC_ONNX_MODEL=${model}`,
  choosing(model) {
    const onnx = /^onnx:(.+):[0-9a-f]{16}$/s.exec(model);
    if (!onnx) return undefined;
    // The name is the hub id (SVC_ONNX_MODEL, beside SVC_ONNX_MODEL_DIR or not), else the
    // directory's name; the pooling and prefixes are part of the identity too.
    const name = onnx[1].includes("/")
      ? `SVC_ONNX_MODEL=${onnx[1]} (beside SVC_ONNX_MODEL_DIR for a model directory)`
      : `SVC_ONNX_MODEL_DIR naming a directory called ${onnx[1]} (or SVC_ONNX_MODEL=${onnx[1]})`;
    return `SVC_EMBEDDER=onnx with ${name}, and the same SVC_ONNX_POOLING and prefixes`;
  },
};
