/**
 * The data directory's index lock: `index.lock`, an advisory lock the system releases when the
 * process ends, so a relayer, `svc reindex` and `svc migrate-store` never share an index.
 */
import { SvcError } from "@svc/relayer/kit";

/** An advisory lock on the data directory's index, held until `release` or the process ends. */
export interface IndexLock {
  release(): void;
}

/**
 * Locks `<dataDir>/index.lock`, refusing at once when another process holds it (a relayer, or
 * `svc reindex`).
 */
export async function lockIndex(dataDir: string, holder: string): Promise<IndexLock> {
  const path = `${dataDir}/index.lock`;
  const file = await Deno.open(path, { read: true, write: true, create: true, mode: 0o600 });
  let locked = false;
  try {
    locked = await file.tryLock(true);
  } finally {
    if (!locked) file.close();
  }
  if (!locked) {
    const instead = holder === "reindex"
      ? "; to change the embedder while a relayer serves, restart it with SVC_REINDEX=1 and " +
        "the new SVC_EMBEDDER instead"
      : "";
    throw new SvcError(
      "conflict",
      `Cannot ${holder}: another process holds the vector index of ${dataDir} (${path}): a ` +
        `relayer, or \`svc reindex\`. Stop it first${instead}.`,
    );
  }
  return {
    release() {
      try {
        file.close();
      } catch { /* closed already */ }
    },
  };
}
