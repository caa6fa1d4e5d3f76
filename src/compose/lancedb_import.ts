/**
 * The upgrade from a LanceDB index to the encrypted one. An install from before the encrypted
 * index kept its vectors in `<data dir>/lancedb`; when `SVC_VECTOR_STORE` is unset, the
 * encrypted index is new (or an import was cut short) and that directory exists, its rows are
 * copied into the encrypted index once, at start. The old directory still holds readable
 * vectors, so every start that finds it says so until the operator deletes it.
 */
import type { EncryptedVectorStore } from "../../plugins/encrypted_index/mod.ts";
import type { Logger } from "../log.ts";

const NOTE = "lancedb-import";

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** Imports `<dataDir>/lancedb` into `store` when it should; returns the rows imported. */
export async function importLanceDb(
  store: EncryptedVectorStore,
  dataDir: string,
  embedder: { model: string; dimensions: number },
  logger: Logger,
): Promise<number> {
  const dir = `${dataDir}/lancedb`;
  if (!await isDirectory(dir)) return 0;
  const state = await store.note(NOTE);
  const warning = `${dir} still holds the memories' vectors in readable form: delete it ` +
    `(the encrypted index ${dataDir}/index.kv replaces it)`;
  if (state === "done") {
    logger.warn(warning, { dir });
    return 0;
  }
  if (state !== "started" && await store.count() > 0) {
    logger.warn(`${warning}; it was not imported because the encrypted index has memories`, {
      dir,
    });
    return 0;
  }
  await store.setNote(NOTE, "started");
  logger.info("importing the LanceDB vector index into the encrypted index", { dir });
  const { LanceDbVectorStore } = await import("../../plugins/lancedb/mod.ts");
  const legacy = await LanceDbVectorStore.open({ dir, ...embedder, logger });
  let rows = 0;
  try {
    for await (const batch of legacy.rows()) {
      await store.upsert(batch);
      rows += batch.length;
    }
  } finally {
    await legacy.close();
  }
  await store.setNote(NOTE, "done");
  logger.warn(`imported ${rows} memories from LanceDB; ${warning}`, { dir, rows });
  return rows;
}
