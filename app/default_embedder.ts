/**
 * The embedder of a relayer started without `SVC_EMBEDDER` in embedded mode: chosen at the data
 * directory's first start and recorded in it (`embedder.json`), so that it never changes on its
 * own.
 *
 * - Where the model hub answers, the recommended ONNX model (`RECOMMENDED_ONNX_MODEL`),
 *   downloaded once into `SVC_MODELS_DIR` with every file's SHA-256 verified and pinned; a
 *   download cut short by a stop resumes at the next start.
 * - Where it does not, or the download fails, `use`, whose weights ship with the relayer.
 * - A data directory from before the record keeps `use` (and an index built with another
 *   embedder keeps serving with that one).
 */
import { type Logger, SvcError } from "@svc/relayer/kit";
import { nullIfMissing, pathExists, writeWhole } from "@svc/util/files";
import type { EmbedderConfig } from "./config_types.ts";
import { openEmbedder } from "./models.ts";

/** The file in the data directory that records the choice. */
export const EMBEDDER_RECORD = "embedder.json";
/** What a data directory that has held memories holds: its job queue, or an index. */
const HELD_MEMORIES = ["jobs.kv", "index.sqlite", "index.kv", "lancedb"];

/** Whether the data directory has never held a memory: its embedder is chosen now. */
export async function holdsNothingYet(dataDir: string): Promise<boolean> {
  for (const name of HELD_MEMORIES) {
    if (await pathExists(`${dataDir}/${name}`)) return false;
  }
  return true;
}

type Choice = "onnx" | "use";

/** The embedder opened, and the configuration it was opened with. */
export type ChosenEmbedder = Awaited<ReturnType<typeof openEmbedder>> & {
  config: EmbedderConfig;
};

/**
 * Opens the configured embedder, or for a relayer started without `SVC_EMBEDDER` the one its
 * data directory chose (`fresh`: the directory holds nothing yet, so the choice is made now).
 */
export async function openChosenEmbedder(
  config: EmbedderConfig,
  dataDir: string,
  fresh: boolean,
  logger: Logger,
): Promise<ChosenEmbedder> {
  const open = async (chosen: EmbedderConfig) => ({
    ...await openEmbedder(chosen, logger),
    config: chosen,
  });
  if (config.kind !== "use" || !config.recommended) return await open(config);
  const { recommended, ...use } = config;
  const onnx = { kind: "onnx", settings: recommended, modelsDir: use.modelsDir };
  const recorded = await readChoice(dataDir);
  if (recorded) return await open(recorded === "onnx" ? onnx : use);
  if (!fresh) return await open(use);
  const { endpoint, model } = recommended;
  let opened: ChosenEmbedder | undefined;
  // The ONNX plugin is loaded only to ask whether the hub answers.
  const { hubAnswers } = await import("@svc/onnx-embedder");
  if (await hubAnswers(endpoint, model!)) {
    logger.info("a new data directory: downloading the recommended model once", { model });
    opened = await open(onnx).catch((error) => {
      logger.warn(
        "the recommended model could not be downloaded: serving with use, which needs no " +
          "download; to move to the model later, restart once with SVC_EMBEDDER=onnx " +
          `SVC_ONNX_MODEL=${model} SVC_REINDEX=1, and keep SVC_EMBEDDER set`,
        { error: (error as Error).message },
      );
      return undefined;
    });
  } else {
    logger.info(
      "the model hub does not answer: serving with use, which needs no download (set " +
        "SVC_EMBEDDER to choose)",
      { hub: new URL(endpoint).origin },
    );
  }
  opened ??= await open(use);
  await recordChoice(dataDir, opened.config.kind === "onnx" ? "onnx" : "use");
  return opened;
}

/** The embedder the data directory chose, if it has chosen. */
async function readChoice(dataDir: string): Promise<Choice | undefined> {
  const path = `${dataDir}/${EMBEDDER_RECORD}`;
  const text = await nullIfMissing(Deno.readTextFile(path));
  if (text === null) return undefined;
  let embedder: unknown;
  try {
    embedder = JSON.parse(text)?.embedder;
  } catch {
    // Said below.
  }
  if (embedder === "onnx" || embedder === "use") return embedder;
  throw new SvcError(
    "internal",
    `Cannot start the relayer: ${path} names no embedder this relayer knows. Set SVC_EMBEDDER, ` +
      `or write {"embedder":"use"} (or "onnx") into it`,
  );
}

/** Records the choice whole: a crash leaves the old file or the new, never a part. */
async function recordChoice(dataDir: string, embedder: Choice) {
  await writeWhole(`${dataDir}/${EMBEDDER_RECORD}`, JSON.stringify({ embedder }) + "\n");
}
