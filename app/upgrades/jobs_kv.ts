/**
 * What earlier versions kept in clear in a data directory's `jobs.kv`, sealed: the namespaces and
 * errors of job records and dead letters, and the owners of erased memories (filed under their
 * keyed hash, where they are looked for). Each is marked done in `jobs.kv` once finished.
 */
import { KvStateStore } from "@svc/denokv";
import { SvcError } from "@svc/relayer/kit";
import { sealStoredRecords, StateLifecycleRecords } from "@svc/relayer/stored";

/** Set in `jobs.kv` once what earlier versions kept in clear there has been sealed. */
const SEALED_MARK = ["at_rest", "names_sealed"];
/**
 * Set in `jobs.kv` once the lifecycle records are sealed: every erased memory filed under its
 * owner's keyed hash, every expiry's owner and namespace sealed.
 */
const TAGGED_MARK = ["at_rest", "erased_owners_tagged"];

/** Job records and dead letters of `jobs.kv` at `path` sealed, once; how many. */
export async function sealJobRecords(path: string, secret: Uint8Array<ArrayBuffer>) {
  return await withKv(path, async (state) => {
    if (await state.get(SEALED_MARK)) return 0;
    const sealed = await sealStoredRecords(state, secret);
    await state.set(SEALED_MARK, true);
    return sealed;
  });
}

/** Erased memories of `jobs.kv` at `path` filed under their owner's keyed hash, once; how many. */
export async function tagErasedOwners(path: string, secret: Uint8Array<ArrayBuffer>) {
  return await withKv(path, async (state) => {
    if (await state.get(TAGGED_MARK)) return 0;
    let moved: number;
    try {
      moved = await new StateLifecycleRecords(state, secret).sealStored();
    } catch (error) {
      throw new SvcError(
        "backend_unavailable",
        `Cannot upgrade jobs.kv: its erased memories could not be filed under keyed hashes (${
          (error as Error).message
        })`,
        { cause: error },
      );
    }
    await state.set(TAGGED_MARK, true);
    return moved;
  });
}

async function withKv<T>(path: string, use: (state: KvStateStore) => Promise<T>): Promise<T> {
  const kv = await Deno.openKv(path);
  try {
    return await use(new KvStateStore(kv));
  } finally {
    kv.close();
  }
}
