/**
 * The upgrade from a LanceDB index to the encrypted one. An install from before the encrypted
 * index kept its vectors in `<data dir>/lancedb`; when `SVC_VECTOR_STORE` is unset, the
 * encrypted index is new (or an import was cut short) and that directory exists, its rows are
 * copied into the encrypted index once, at start. The old directory still holds readable
 * vectors, so every start that finds it says so until the operator deletes it.
 *
 * Rows of versions before duplicates were found by a text's digest, or before client-encrypted
 * memories were marked, gain both on the way (see {@link completeRow}).
 */
import type { EncryptedVectorStore } from "@svc/encrypted-index";
import {
  type BlobStore,
  type Cipher,
  type ListedBlobMeta,
  type Logger,
  SvcError,
  type VectorRow,
} from "@svc/relayer/kit";
import type { TermHasher } from "@svc/relayer/stored";
import { nullIfMissing } from "@svc/util/files";

const NOTE = "lancedb-import";

/** A store that keeps notes (the encrypted index). */
interface Noting {
  note(name: string): Promise<string | null>;
  setNote(name: string, value: string): Promise<void>;
}

const notes = (store: object): store is Noting => "note" in store && "setNote" in store;

/**
 * Notes on the index a reindex builds that the LanceDB index was imported into the one it
 * replaces, if it was: the next start then knows it was, as it knew of the old index.
 */
export async function carryImportNote(from: object, to: object): Promise<void> {
  if (!notes(from) || !notes(to)) return;
  const state = await from.note(NOTE);
  if (state === "done") await to.setNote(NOTE, state);
}

/** What reads an old row's memory: its blob, decrypted. */
export interface OldRowReading {
  blobs: BlobStore;
  cipher: Cipher;
  hasher: TermHasher;
}

/**
 * `row` with what later versions keep in every row: a memory whose blob's metadata carries its
 * vector is client-encrypted (`manual`); any other gets the digest of its text (no thread: rows
 * from before digests have none). A row whose blob is missing or does not decrypt is kept as it
 * is; a blob store or cipher that is down fails the import (the next start resumes it).
 */
async function completeRow(
  row: VectorRow,
  reading: OldRowReading,
  metaOf: (row: VectorRow) => Promise<ListedBlobMeta | undefined>,
): Promise<VectorRow> {
  if (row.info?.digest !== undefined || row.info?.manual) return row;
  const meta = await metaOf(row);
  if (meta?.sealedVector !== undefined || meta?.legacyVector) {
    return { ...row, info: { ...row.info, manual: true } };
  }
  try {
    const bytes = await reading.blobs.get(row.blobId);
    if (!bytes) return row;
    const plaintext = await reading.cipher.decrypt(row.owner, bytes, { memoryId: row.id });
    const text = new TextDecoder().decode(plaintext);
    return { ...row, info: { ...row.info, digest: await reading.hasher.digest(row.owner, text) } };
  } catch (error) {
    if (error instanceof SvcError && error.status >= 500) throw error;
    return row;
  }
}

/** Rows completed at once (each may read a blob). */
const COMPLETING = 16;

/** Imports `<dataDir>/lancedb` into `store` when it should; returns the rows imported. */
export async function importLanceDb(
  store: EncryptedVectorStore,
  dataDir: string,
  embedder: { model: string; dimensions: number },
  reading: OldRowReading,
  logger: Logger,
): Promise<number> {
  const dir = `${dataDir}/lancedb`;
  if (!(await nullIfMissing(Deno.stat(dir)))?.isDirectory) return 0;
  const state = await store.note(NOTE);
  const warning = `${dir} still holds the memories' vectors in readable form: delete it ` +
    `(the encrypted index ${dataDir}/index.sqlite replaces it)`;
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
  const { LanceDbVectorStore } = await import("@svc/lancedb");
  const legacy = await LanceDbVectorStore.open({ dir, ...embedder, logger });
  // The blobs' metadata of each namespace met, read once.
  const metas = new Map<string, Promise<Map<string, ListedBlobMeta>>>();
  const metaOf = async ({ owner, namespace, id }: VectorRow) => {
    const place = JSON.stringify([owner, namespace]);
    let namespaceMetas = metas.get(place);
    if (!namespaceMetas) {
      namespaceMetas = reading.blobs.list(owner, namespace)
        .then((entries) => new Map(entries.map(({ meta }) => [meta.memoryId, meta])));
      metas.set(place, namespaceMetas);
    }
    return (await namespaceMetas).get(id);
  };
  let rows = 0, undigested = 0;
  try {
    for await (const batch of legacy.rows()) {
      const completed: VectorRow[] = [];
      for (let at = 0; at < batch.length; at += COMPLETING) {
        const part = batch.slice(at, at + COMPLETING);
        completed.push(...await Promise.all(part.map((row) => completeRow(row, reading, metaOf))));
      }
      await store.upsert(completed);
      rows += batch.length;
      undigested += completed.filter(({ info }) => !info?.digest && !info?.manual).length;
    }
  } finally {
    await legacy.close();
  }
  await store.setNote(NOTE, "done");
  logger.warn(`imported ${rows} memories from LanceDB; ${warning}`, { dir, rows });
  if (undigested > 0) {
    logger.warn(
      "imported memories whose blob could not be read: a text remembered again is not found as " +
        "their duplicate",
      { memories: undigested },
    );
  }
  return rows;
}
