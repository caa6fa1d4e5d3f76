/**
 * Whether a data directory's key store went missing. The local cipher keeps every memory's
 * wrapped key in `keys.sqlite` (earlier versions: `keys.kv`, moved into it at the next start),
 * and opening it creates an empty one: without this record, a relayer whose key store was lost
 * (a backup restored without it, a file deleted) would start as if nothing were wrong and read
 * none of its memories, and `svc reindex` would build an index without them. Once a data
 * directory has had a key store, its `jobs.kv` says so, and a start without one is refused,
 * unless `SVC_KEYS_LOST=1` accepts the loss (then a new one is made).
 *
 * The job queue keeps the keys of its waiting texts in the same file, whatever the cipher
 * (`openKeyStore`): erasing a memory erases its job's key there too.
 */
import type { SqliteKeyStore } from "@svc/local-cipher/key_store";
import { SvcError } from "@svc/relayer/kit";
import { pathExists } from "@svc/util/files";

const KEY = ["key_store"];

/** The key store's file in a data directory. */
export const KEY_STORE_FILE = "keys.sqlite";
/** Where earlier versions kept it (a Deno KV database), moved into `KEY_STORE_FILE` at a start. */
const OLD_KEY_STORE_FILE = "keys.kv";

/** Whether `dataDir` holds a key store, of this version or an earlier one. */
export async function hasKeyStore(dataDir: string): Promise<boolean> {
  return await pathExists(`${dataDir}/${KEY_STORE_FILE}`) ||
    await pathExists(`${dataDir}/${OLD_KEY_STORE_FILE}`);
}

/**
 * Refuses `dataDir` when it had a key store and has none now, unless `lost` accepts that (with
 * `SVC_KEYS_LOST=1`); true when it accepted it.
 */
export async function checkKeyStore(kv: Deno.Kv, dataDir: string, lost = false): Promise<boolean> {
  if ((await kv.get(KEY)).value !== true || await hasKeyStore(dataDir)) return false;
  if (lost) return true;
  throw new SvcError(
    "conflict",
    `Cannot open ${dataDir}: its ${KEY_STORE_FILE}, which holds the key of every memory, is ` +
      `missing, so none of its memories could be read. Put back ${KEY_STORE_FILE} from a ` +
      "backup of this data " +
      "directory; if there is none, the memories are lost: start once with SVC_KEYS_LOST=1 " +
      "to go on without them.",
  );
}

/** Records that `dataDir` has a key store (once the cipher opened it). */
export async function recordKeyStore(kv: Deno.Kv): Promise<void> {
  await kv.set(KEY, true);
}

/**
 * Opens the key store of `dataDir` (created when missing). Check it first (`checkKeyStore`): this
 * creates the file. An earlier version's `keys.kv` is moved into it by the upgrades, before.
 */
export async function openKeyStore(dataDir: string): Promise<SqliteKeyStore> {
  const { SqliteKeyStore } = await import("@svc/local-cipher/key_store");
  return await SqliteKeyStore.open(`${dataDir}/${KEY_STORE_FILE}`);
}
