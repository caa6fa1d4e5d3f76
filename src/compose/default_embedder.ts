/**
 * The embedder of a relayer started without `SVC_EMBEDDER` in embedded mode: chosen at the data
 * directory's first start and recorded in it (`embedder.json`), so that it never changes on its
 * own.
 *
 * - Where the model hub answers, the recommended ONNX model (`RECOMMENDED_ONNX_MODEL`),
 *   downloaded once into `SVC_MODELS_DIR` with every file's SHA-256 verified and pinned; a
 *   download cut short resumes at the next start.
 * - Where it does not, `use`, whose weights ship with the relayer.
 * - A data directory from before the record keeps `use` (and an index built with another
 *   embedder keeps serving with that one).
 */
import type { Logger } from "../log.ts";
import type { EmbedderConfig } from "./config_types.ts";
import { openEmbedder } from "./models.ts";

/** The file in the data directory that records the choice. */
export const EMBEDDER_RECORD = "embedder.json";

type Opened = Awaited<ReturnType<typeof openEmbedder>>;
type Choice = "onnx" | "use";

/**
 * Opens the configured embedder, or for a relayer started without `SVC_EMBEDDER` the one its
 * data directory chose (`fresh`: the directory holds nothing yet, so the choice is made now).
 */
export async function openChosenEmbedder(
  config: EmbedderConfig,
  dataDir: string,
  fresh: boolean,
  logger: Logger,
  hubAnswers: (endpoint: string, model: string) => Promise<boolean> = lookUp,
): Promise<Opened> {
  if (config.kind !== "use" || !config.recommended) return await openEmbedder(config, logger);
  const { recommended, ...use } = config;
  const onnx = { kind: "onnx", onnx: recommended } as const;
  const recorded = await readChoice(dataDir);
  if (recorded) return await openEmbedder(recorded === "onnx" ? onnx : use, logger);
  if (!fresh) return await openEmbedder(use, logger);
  const { endpoint, model } = recommended;
  let opened: Opened | undefined;
  if (await hubAnswers(endpoint, model!)) {
    logger.info("a new data directory: downloading the recommended model once", { model });
    opened = await openEmbedder(onnx, logger).catch((error) => {
      logger.warn(
        "the recommended model could not be downloaded: serving with use, which needs no " +
          `download; to move to the model later, restart once with SVC_EMBEDDER=onnx ` +
          `SVC_ONNX_MODEL=${model} SVC_REINDEX=1`,
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
  opened ??= await openEmbedder(use, logger);
  await recordChoice(dataDir, opened.embedder.model.startsWith("onnx:") ? "onnx" : "use");
  return opened;
}

async function lookUp(endpoint: string, model: string): Promise<boolean> {
  const { hubAnswers } = await import("../../plugins/onnx_embedder/mod.ts");
  return await hubAnswers(endpoint, model);
}

/** The embedder the data directory chose, if it has chosen. */
async function readChoice(dataDir: string): Promise<Choice | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(`${dataDir}/${EMBEDDER_RECORD}`);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  const { embedder } = (() => {
    try {
      return JSON.parse(text) as { embedder?: unknown };
    } catch {
      return {};
    }
  })();
  if (embedder === "onnx" || embedder === "use") return embedder;
  throw new Error(
    `${dataDir}/${EMBEDDER_RECORD} names no embedder this relayer knows; set SVC_EMBEDDER`,
  );
}

async function recordChoice(dataDir: string, embedder: Choice) {
  await Deno.writeTextFile(
    `${dataDir}/${EMBEDDER_RECORD}`,
    JSON.stringify({ embedder }) + "\n",
    { mode: 0o600 },
  );
}
