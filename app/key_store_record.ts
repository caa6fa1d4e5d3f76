/**
 * Whether a data directory's `keys.kv` went missing. The local cipher keeps every memory's
 * wrapped key there, and opening it creates an empty one: without this record, a relayer whose
 * `keys.kv` was lost (a backup restored without it, a file deleted) would start as if nothing
 * were wrong and read none of its memories, and `svc reindex` would build an index without them.
 * Once a data directory has had a `keys.kv`, its `jobs.kv` says so, and a start without one is
 * refused, unless `SVC_KEYS_LOST=1` accepts the loss (then a new `keys.kv` is made).
 */
import { SvcError } from "../src/errors.ts";
import { pathExists } from "@svc/util/files";

const KEY = ["key_store"];

/**
 * Refuses `dataDir` when it had a `keys.kv` and has none now, unless `lost` accepts that (with
 * `SVC_KEYS_LOST=1`); true when it accepted it.
 */
export async function checkKeyStore(kv: Deno.Kv, dataDir: string, lost = false): Promise<boolean> {
  if ((await kv.get(KEY)).value !== true || await pathExists(`${dataDir}/keys.kv`)) return false;
  if (lost) return true;
  throw new SvcError(
    "conflict",
    `Cannot open ${dataDir}: its keys.kv, which holds the key of every memory, is missing, so ` +
      "none of its memories could be read. Put back keys.kv from a backup of this data " +
      "directory; if there is none, the memories are lost: start once with SVC_KEYS_LOST=1 " +
      "to go on without them.",
  );
}

/** Records that `dataDir` has a `keys.kv` (once the cipher opened it). */
export async function recordKeyStore(kv: Deno.Kv): Promise<void> {
  await kv.set(KEY, true);
}
