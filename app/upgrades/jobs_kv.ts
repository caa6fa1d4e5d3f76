/**
 * What earlier versions kept in clear in a data directory's `jobs.kv`, sealed: the namespaces and
 * errors of job records and dead letters, and the owners of erased memories (filed under their
 * keyed hash, where they are looked for). Each is marked done in `jobs.kv` once finished.
 */
import { KvStateStore } from "@svc/denokv";
import { SvcError } from "@svc/relayer/kit";
import { sealStoredRecords, StateLifecycleRecords } from "@svc/relayer/stored";
import { pathExists } from "@svc/util/files";

/** Set in `jobs.kv` once what earlier versions kept in clear there has been sealed. */
const SEALED_MARK = ["at_rest", "names_sealed"];
/**
 * Set in `jobs.kv` once the lifecycle records are sealed: every erased memory filed under its
 * owner's keyed hash, every expiry's owner and namespace sealed.
 */
const TAGGED_MARK = ["at_rest", "erased_owners_tagged"];

/** Job records and dead letters of the data directory's `jobs.kv` sealed, once; how many. */
export function sealJobRecords(dataDir: string, secret: Uint8Array<ArrayBuffer>): Promise<number> {
  return once(dataDir, SEALED_MARK, (state) => sealStoredRecords(state, secret));
}

/** Erased memories of the data directory's `jobs.kv` filed under their owner's keyed hash, once. */
export function tagErasedOwners(dataDir: string, secret: Uint8Array<ArrayBuffer>): Promise<number> {
  return once(dataDir, TAGGED_MARK, async (state) => {
    try {
      return await new StateLifecycleRecords(state, secret).sealStored();
    } catch (error) {
      throw new SvcError(
        "backend_unavailable",
        `Cannot upgrade jobs.kv: its erased memories could not be filed under keyed hashes (${
          (error as Error).message
        })`,
        { cause: error },
      );
    }
  });
}

/**
 * Runs `work` on the data directory's `jobs.kv` unless `mark` says it ran, then sets `mark`;
 * what `work` counted (0 without a `jobs.kv`).
 */
async function once(
  dataDir: string,
  mark: string[],
  work: (state: KvStateStore) => Promise<number>,
): Promise<number> {
  const path = `${dataDir}/jobs.kv`;
  if (!await pathExists(path)) return 0;
  const kv = await Deno.openKv(path);
  try {
    const state = new KvStateStore(kv);
    if (await state.get(mark)) return 0;
    const done = await work(state);
    await state.set(mark, true);
    return done;
  } finally {
    kv.close();
  }
}
