/**
 * The relayer's secret: 32 bytes that seal queued texts, key the term hashes and, with the
 * local cipher, derive every owner's key. `SVC_MASTER_KEY` gives it as hex; otherwise it lives in
 * a key file outside the data directory, so that a copy of the directory alone (a backup, a disk
 * image) reads nothing: `SVC_MASTER_KEY_FILE`, else `<keys dir>/<id>.key`, where the keys
 * directory is `SVC_KEYS_DIR` (default `~/.config/svc/keys`) and the id is a random name the
 * data directory keeps in `svc.id` (moving the directory keeps its key). The file is created on
 * first start (mode 0600). A `master.key` inside the data directory, where earlier versions kept
 * it, is moved out at the next start.
 */
import { dirname } from "node:path";
import { type Logger, SvcError } from "@svc/relayer/kit";
import { pathExists } from "@svc/util/files";

const MASTER_KEY = /^[0-9a-f]{64}$/;
/** What the key seals: a data directory holding any of them without a key lost its key. */
const WRITTEN_UNDER_IT = ["keys.sqlite", "keys.kv", "index.sqlite", "index.kv", "jobs.kv"];
/** Where earlier versions kept the key, inside the data directory. */
const INSIDE = "master.key";

/** Where the master key comes from (`Config.masterKey`). */
export interface MasterKeySource {
  /** `SVC_MASTER_KEY`: the key itself, as hex. */
  hex?: string;
  /** `SVC_MASTER_KEY_FILE`: the key file. */
  file?: string;
  /** `SVC_KEYS_DIR`: where key files are kept by data directory id. */
  keysDir: string;
}

/** The configured key, or the data directory's key file, created when absent. */
export async function loadMasterKey(
  dataDir: string,
  source: MasterKeySource,
  logger?: Logger,
): Promise<Uint8Array<ArrayBuffer>> {
  if (source.hex !== undefined) return Uint8Array.fromHex(source.hex);
  const path = await masterKeyPath(dataDir, source);
  const inside = `${dataDir}/${INSIDE}`;
  if (await pathExists(inside) && !await sameFile(inside, path)) {
    await moveOut(inside, path, logger);
  }
  if (await pathExists(path).catch((error) => Promise.reject(unusable(path, error)))) {
    return await readKey(path);
  }
  await refuseLostKey(dataDir, path);
  const key = crypto.getRandomValues(new Uint8Array(32));
  try {
    await writeNew(path, key);
    return key;
  } catch (error) {
    // Another process made it meanwhile: its key is the one.
    if (error instanceof Deno.errors.AlreadyExists) return await readKey(path);
    throw error;
  }
}

/** The key file of the data directory (made, with its id, when absent). */
export async function masterKeyPath(
  dataDir: string,
  source: Omit<MasterKeySource, "hex">,
): Promise<string> {
  await Deno.mkdir(dataDir, { recursive: true, mode: 0o700 });
  return source.file ?? `${source.keysDir}/${await dataDirId(dataDir)}.key`;
}

/** The data directory's id, made on first use. */
async function dataDirId(dataDir: string): Promise<string> {
  const path = `${dataDir}/svc.id`;
  try {
    await Deno.writeTextFile(path, crypto.randomUUID() + "\n", { createNew: true, mode: 0o600 });
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
  const id = (await Deno.readTextFile(path)).trim();
  if (!/^[0-9a-f-]{36}$/.test(id)) {
    throw new SvcError("internal", `Cannot read the data directory's id: ${path} is not a UUID`);
  }
  return id;
}

/** Whether two paths name one file (however spelled: relative, through a link). */
async function sameFile(a: string, b: string): Promise<boolean> {
  try {
    return await Deno.realPath(a) === await Deno.realPath(b);
  } catch {
    return false; // `b` is not there yet
  }
}

/** Moves the key kept inside the data directory to `path`, then wipes and removes it. */
async function moveOut(inside: string, path: string, logger?: Logger) {
  const key = await readKey(inside);
  if (await pathExists(path)) {
    if ((await readKey(path)).toHex() !== key.toHex()) {
      throw new SvcError(
        "conflict",
        `Cannot open the data directory: its ${INSIDE} differs from the key file ${path}, where ` +
          `an earlier start moved its key. A ${INSIDE} made since is most likely an older ` +
          `version's, started on this directory: remove it, and the keys.kv and index.kv that ` +
          `version wrote (what it stored is lost; see "Going back" in docs/setup.md). If you put ` +
          `this ${INSIDE} back on purpose, set SVC_MASTER_KEY_FILE to it and remove the other.`,
      );
    }
  } else {
    await writeNew(path, key);
  }
  const file = await Deno.open(inside, { write: true });
  await file.write(new Uint8Array((await file.stat()).size));
  await file.sync();
  file.close();
  await Deno.remove(inside);
  logger?.info(
    "the master key moved out of the data directory; back it up, apart from the data directory's " +
      "backups (a copy of the directory alone reads nothing)",
    { file: path },
  );
}

/** A data directory whose data was written under a key no file holds: refused, not re-keyed. */
async function refuseLostKey(dataDir: string, path: string) {
  for (const name of WRITTEN_UNDER_IT) {
    if (!await pathExists(`${dataDir}/${name}`)) continue;
    throw new SvcError(
      "conflict",
      `Cannot open ${dataDir}: its ${name} was written under a master key, and there is no key ` +
        `file at ${path}. Put back the key file it came with (or set SVC_MASTER_KEY_FILE or ` +
        "SVC_MASTER_KEY to it); a new key would read none of it.",
    );
  }
}

/**
 * Writes a new key file (and its directory, owner-only), whole or not at all: written beside it,
 * synced, then linked into place, which fails (`AlreadyExists`) if the file is there.
 */
async function writeNew(path: string, key: Uint8Array) {
  const temporary = `${path}.${crypto.randomUUID()}.tmp`;
  try {
    await Deno.mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await Deno.writeTextFile(temporary, key.toHex() + "\n", { createNew: true, mode: 0o600 });
    const file = await Deno.open(temporary, { write: true });
    await file.sync();
    file.close();
    await Deno.link(temporary, path);
  } catch (error) {
    throw error instanceof Deno.errors.AlreadyExists ? error : unusable(path, error);
  } finally {
    await Deno.remove(temporary).catch(() => {});
  }
}

function unusable(path: string, error: unknown): SvcError {
  return new SvcError(
    "internal",
    `Cannot use the master key file ${path} (${(error as Error).message}): set SVC_KEYS_DIR ` +
      "or SVC_MASTER_KEY_FILE to a place this user can write, outside the data directory",
    { cause: error },
  );
}

async function readKey(path: string): Promise<Uint8Array<ArrayBuffer>> {
  // Made private when it is not; a file on a read-only mount (a secret) is read as it is.
  if (((await Deno.stat(path)).mode ?? 0) & 0o077) await Deno.chmod(path, 0o600).catch(() => {});
  const hex = (await Deno.readTextFile(path)).trim();
  if (!MASTER_KEY.test(hex)) {
    throw new SvcError("internal", `Cannot read the master key: ${path} is not 64 hex characters`);
  }
  return Uint8Array.fromHex(hex);
}
