/**
 * What opening an encrypted index checks of the index's record of itself (`IndexMeta`): its
 * format, the secret it was written under, and its embedder; a new index is recorded.
 */
import { SvcError } from "@svc/relayer/kit";
import { IndexKeys } from "./keys.ts";
import type { EncryptedIndexOptions } from "./mod.ts";
import type { BlockStorage } from "./storage.ts";

/**
 * Written since blocks are sealed with ChaCha20-Poly1305 (format 2: AES-GCM; format 1: rows
 * without `MemoryInfo`). An older index is marked 3 when opened here, its blocks read as they
 * are and sealed anew as writes replace them; versions that read only formats 1 and 2 then
 * refuse it, with the reason.
 */
const FORMAT = 3;
const READS = new Set([1, 2, 3]);

/**
 * The index's keys, once its record shows it readable with `options` (else a `conflict` naming
 * the fix); records a new index (or marks an older one 3).
 */
export async function openKeys(
  storage: BlockStorage,
  options: Pick<EncryptedIndexOptions, "secret" | "model" | "dimensions" | "storage">,
  where: string | undefined,
): Promise<IndexKeys> {
  const keys = await IndexKeys.derive(options.secret);
  const keyCheck = await keys.keyCheck();
  const meta = await storage.meta();
  const { model, dimensions } = options;
  const files = options.storage ? where : `${where} (with its -wal and -shm files)`;
  const fix = `move ${files} away and call POST /api/restore (or \`deno task svc restore\`) ` +
    `for each namespace to re-index from the blob store`;
  if (meta && !READS.has(meta.format)) {
    throw new SvcError(
      "conflict",
      `Cannot open the vector index in ${where}: it is of format ${meta.format}, this ` +
        `version reads formats ${[...READS].join(" and ")}. Either run the version that ` +
        `wrote it, or ${fix}.`,
    );
  }
  if (meta && meta.keyCheck !== keyCheck) {
    // A shared storage (PostgreSQL) is the relayers': the key is theirs, the index not to move.
    const remedy = options.storage
      ? ": every relayer on the database must start with the same SVC_MASTER_KEY (the memories' " +
        "own keys are wrapped under it too, so without it nothing there can be read)."
      : ". Start with that key (SVC_MASTER_KEY, or the data directory's key file): the " +
        "memories' own keys are wrapped under it too, so without it nothing here can be read. " +
        `Only with SVC_CIPHER=seal, whose keys do not depend on it, ${fix}.`;
    throw new SvcError(
      "conflict",
      `Cannot open the vector index in ${where}: it was written under another master key${remedy}`,
    );
  }
  if (meta && (meta.model !== model || meta.dimensions !== dimensions)) {
    throw new SvcError(
      "conflict",
      `Cannot open the vector index in ${where}: it was built with embedder ` +
        `"${meta.model}" (${meta.dimensions} dimensions) but "${model}" (${dimensions}) is ` +
        `configured. Either configure the original embedder, or rebuild the index for the new ` +
        `one: restart with SVC_REINDEX=1, or stop the relayer and run ` +
        `\`deno task svc reindex --embedder NAME\`.`,
    );
  }
  if (!meta || meta.format !== FORMAT) {
    await storage.setMeta({ format: FORMAT, model, dimensions, keyCheck });
  }
  return keys;
}
