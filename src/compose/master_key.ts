/**
 * The relayer's secret: 32 bytes that seal queued texts, key the term hashes and, with the
 * local cipher, derive every owner's key. `SVC_MASTER_KEY` gives it as hex; otherwise it lives
 * in `<data dir>/master.key` (mode 0600), created on first start.
 */
import { SvcError } from "../errors.ts";
import { pathExists } from "../files.ts";

const MASTER_KEY = /^[0-9a-f]{64}$/;
/** What the key seals: a data directory holding any of them without a key lost its key. */
const WRITTEN_UNDER_IT = ["keys.kv", "index.kv", "jobs.kv"];

/** The configured key, or the data directory's key file, created when absent. */
export async function loadMasterKey(
  dataDir: string,
  masterKeyHex?: string,
): Promise<Uint8Array<ArrayBuffer>> {
  if (masterKeyHex !== undefined) return Uint8Array.fromHex(masterKeyHex);
  const path = `${dataDir}/master.key`;
  await Deno.mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (!await pathExists(path)) {
    for (const name of WRITTEN_UNDER_IT) {
      if (!await pathExists(`${dataDir}/${name}`)) continue;
      throw new SvcError(
        "conflict",
        `Cannot open ${dataDir}: its ${name} was written under a master key, and the data ` +
          "directory holds no master.key. Put back the master.key it came with (or set " +
          "SVC_MASTER_KEY to it); a new key would read none of it.",
      );
    }
  }
  try {
    const file = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
    const key = crypto.getRandomValues(new Uint8Array(32));
    await file.write(new TextEncoder().encode(key.toHex() + "\n"));
    await file.sync();
    file.close();
    return key;
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
  await Deno.chmod(path, 0o600);
  const hex = (await Deno.readTextFile(path)).trim();
  if (!MASTER_KEY.test(hex)) {
    throw new SvcError("internal", `Cannot read the master key: ${path} is not 64 hex characters`);
  }
  return Uint8Array.fromHex(hex);
}
