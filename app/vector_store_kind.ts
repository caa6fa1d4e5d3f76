/**
 * Which vector store indexes a data directory's memories. Each store keeps an index of its own
 * (`index.sqlite`, `lancedb/`, or none in memory), so a relayer started with another
 * `SVC_VECTOR_STORE` than the one that indexed the memories would serve an index without them
 * (or with old rows): recall and list would miss memories that are stored. The store a directory
 * was last served with is kept in its `jobs.kv`; a start with another one is refused while that
 * store's index holds memories. The one switch allowed is the upgrade: an old LanceDB index with
 * `SVC_VECTOR_STORE` unset, which imports it into the encrypted index.
 */
import { pathExists } from "@svc/util/files";
import { SvcError, type VectorIndexSet } from "@svc/relayer/kit";
import type { VectorStoreConfig } from "./config.ts";
import { memoriesIn } from "./vector_index.ts";

type Kind = VectorStoreConfig["kind"];

const KEY = ["vector_store"];

/** Whether the index files of a store that persists are in `dataDir`. */
async function hasFiles(dataDir: string, kind: Kind): Promise<boolean> {
  const files = {
    encrypted: ["index.sqlite", "index.kv", "index.active"],
    lancedb: ["lancedb"],
    memory: [],
  };
  for (const file of files[kind]) if (await pathExists(`${dataDir}/${file}`)) return true;
  return false;
}

/**
 * The store that indexed `dataDir` as recorded, or for a directory from before the record, the
 * one whose files are there when only one's are.
 */
async function recordedKind(kv: Deno.Kv, dataDir: string): Promise<Kind | undefined> {
  const recorded = (await kv.get<Kind>(KEY)).value;
  if (recorded) return recorded;
  const encrypted = await hasFiles(dataDir, "encrypted");
  const lancedb = await hasFiles(dataDir, "lancedb");
  return encrypted === lancedb ? undefined : encrypted ? "encrypted" : "lancedb";
}

/** The memories in the active index of `indexes` (0 when it was never built). */
async function indexed(indexes: VectorIndexSet): Promise<number> {
  const name = await indexes.active();
  const built = await indexes.built(name);
  return built ? await memoriesIn(indexes, name, built) : 0;
}

const SETTING: Record<Kind, string> = {
  encrypted: "SVC_VECTOR_STORE unset (or encrypted)",
  lancedb: "SVC_VECTOR_STORE=lancedb, or unset to import it into the encrypted index",
  memory: "SVC_VECTOR_STORE=memory",
};

/**
 * Refuses to serve `dataDir` with the configured store when another store's index holds its
 * memories, then records the configured one. `open` opens a store's index set (called only for
 * one whose files are there).
 */
export async function checkVectorStore(
  kv: Deno.Kv,
  dataDir: string,
  configured: VectorStoreConfig,
  open: (kind: Kind) => Promise<VectorIndexSet>,
): Promise<void> {
  const recorded = await recordedKind(kv, dataDir);
  const upgrade = recorded === "lancedb" && configured.kind === "encrypted" &&
    configured.importLanceDb;
  if (
    recorded && recorded !== configured.kind && !upgrade &&
    await hasFiles(dataDir, recorded)
  ) {
    const count = await indexed(await open(recorded));
    if (count > 0) {
      throw new SvcError(
        "conflict",
        `${dataDir} has ${count} ${count === 1 ? "memory" : "memories"} in the ${recorded} ` +
          `vector store's index; SVC_VECTOR_STORE=${configured.kind} keeps another index, ` +
          `which recall and list would answer from instead. Start with ${SETTING[recorded]}. ` +
          "To move to another store, export each account's memories (`svc export`) and import " +
          "them into a relayer on a new data directory.",
      );
    }
  }
  if (configured.kind !== "memory") await kv.set(KEY, configured.kind);
}
