/**
 * Where a named index lives in a folder: `<dir>/<name>.sqlite`, a `SqliteBlockStorage`. An index
 * an earlier version kept in Deno KV (`<name>.kv`) is moved into it when it is first opened:
 * copied whole, then the old files deleted. A move cut short is done again at the next open.
 *
 * @example
 * ```ts ignore
 * const storage = await openIndexFile("./data", "index"); // ./data/index.sqlite
 * ```
 */
import { checkIndexName, SvcError } from "@svc/relayer/kit";
import { nullIfMissing, pathExists } from "@svc/util/files";
import { KvIndexReader } from "./kv_storage.ts";
import { SqliteBlockStorage } from "./sqlite_storage.ts";
import type { BlockStorage, NamespaceRef, StoredBlock } from "./storage.ts";

/** The note an import from LanceDB leaves in the index it filled. */
const IMPORT_NOTE = "lancedb-import";

/** The file of index `name` in `dir`. */
export const indexPath = (dir: string, name: string): string =>
  `${dir}/${checkIndexName(name)}.sqlite`;

/** The files of index `name` as earlier versions kept it, in Deno KV (the database first). */
const oldFiles = (dir: string, name: string) => {
  const path = `${dir}/${checkIndexName(name)}.kv`;
  return [path, `${path}-wal`, `${path}-shm`];
};

/** Whether `dir` holds index `name`, in this version's file or an earlier one's. */
export async function hasIndexFile(dir: string, name: string): Promise<boolean> {
  return await pathExists(indexPath(dir, name)) || await pathExists(oldFiles(dir, name)[0]);
}

/** Deletes the files of index `name` in `dir`, whichever version wrote them. */
export async function removeIndexFiles(dir: string, name: string): Promise<void> {
  const path = indexPath(dir, name);
  for (const file of [path, `${path}-wal`, `${path}-shm`, ...oldFiles(dir, name)]) {
    await nullIfMissing(Deno.remove(file));
  }
}

/** Opens index `name` in `dir`, moving an earlier version's Deno KV index into it first. */
export async function openIndexFile(dir: string, name: string): Promise<SqliteBlockStorage> {
  const storage = await SqliteBlockStorage.open(indexPath(dir, name));
  const [old, ...rest] = oldFiles(dir, name);
  try {
    if (await pathExists(old)) {
      const source = await KvIndexReader.open(old);
      try {
        await copyIndex(source, storage);
      } finally {
        source.close();
      }
    }
    // The database first: what a move cut short leaves is its log, removed here.
    for (const file of [old, ...rest]) await Deno.remove(file).catch(() => {});
    return storage;
  } catch (error) {
    storage.close();
    throw error;
  }
}

/** An index read whole: a file storage, or an earlier version's Deno KV index. */
export interface IndexSource extends Pick<BlockStorage, "meta" | "note" | "headers" | "blocks"> {
  /** Where every memory of the index is. */
  locations(): AsyncIterable<{ id: string; ref: NamespaceRef }>;
}

/**
 * Copies index `source` into `target`, a namespace a commit; a namespace `target` holds already
 * (an earlier copy cut short got that far) is left. Refused when `target` was written under
 * another secret. Calls `tell` after each namespace; resolves to how many there are.
 */
export async function copyIndex(
  source: IndexSource,
  target: BlockStorage,
  tell?: (done: number, total: number) => void,
): Promise<number> {
  const meta = await source.meta();
  if (!meta) return 0;
  const held = await target.meta();
  if (held && held.keyCheck !== meta.keyCheck) {
    throw new SvcError(
      "conflict",
      "Cannot copy the index: its target was written under another master key",
    );
  }
  if (!held) await target.setMeta(meta);
  const imported = await source.note(IMPORT_NOTE);
  if (imported) await target.setNote(IMPORT_NOTE, imported);
  const ids = new Map<string, string[]>();
  for await (const { id, ref } of source.locations()) {
    const list = ids.get(ref.ns) ?? [];
    if (list.push(id) === 1) ids.set(ref.ns, list);
  }
  const headers = await source.headers();
  let done = 0;
  for (const { ref, header, version } of headers) {
    const blocks: StoredBlock[] = [];
    for await (const { id, bytes } of source.blocks(ref, version)) {
      if (bytes) blocks.push({ id, bytes }); // none held: each comes with its bytes
    }
    await target.commit({
      expect: [{ ref, version: null }],
      headers: [{ ref, header }],
      putBlocks: blocks.map((block) => ({ ns: ref.ns, block })),
      deleteBlocks: [],
      putIds: (ids.get(ref.ns) ?? []).map((id) => ({ id, ref })),
      deleteIds: [],
    });
    tell?.(++done, headers.length);
  }
  return headers.length;
}
