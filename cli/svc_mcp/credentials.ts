/**
 * The credentials file of the stdio package, `~/.svc/credentials.json`: directory 0700, file
 * 0600 (both repaired when found looser), written atomically (temporary file, fsync, rename),
 * never through a symbolic link. A corrupt file is reported and treated as signed out.
 */
import type { KeyLimitsJson } from "@svc/relayer/kit";
import { nullIfMissing, writeWhole } from "@svc/util/files";

export interface Credentials {
  version: 1;
  delegatePrivateKey: string;
  delegatePublicKey: string;
  delegateAddress: string;
  walletAddress: string;
  accountId: string;
  packageId: string;
  relayerUrl: string;
  label: string;
  createdAt: string;
  /**
   * The scope the dashboard approved, as it said at sign-in (for display: the relayer decides);
   * absent in credentials from before scopes.
   */
  scope?: KeyLimitsJson;
}

export type LoadedCredentials =
  | { kind: "ok"; credentials: Credentials }
  | { kind: "missing" }
  | { kind: "corrupt"; reason: string };

const HEX64 = /^[0-9a-f]{64}$/;
const POSIX = Deno.build.os !== "windows";

function validate(value: unknown): Credentials | string {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return "it is not a JSON object";
  }
  const c = value as Record<string, unknown>;
  if (c.version !== 1) return `unknown version ${JSON.stringify(c.version)}`;
  for (
    const field of [
      "delegatePrivateKey",
      "delegatePublicKey",
      "delegateAddress",
      "walletAddress",
      "accountId",
      "packageId",
      "relayerUrl",
      "label",
      "createdAt",
    ]
  ) {
    if (typeof c[field] !== "string") return `${field} is missing`;
  }
  if (!HEX64.test(c.delegatePrivateKey as string)) return "delegatePrivateKey is not 64 hex";
  if (!HEX64.test(c.delegatePublicKey as string)) return "delegatePublicKey is not 64 hex";
  if (!/^0x[0-9a-fA-F]+$/.test(c.accountId as string)) return "accountId is not 0x-hex";
  if (!URL.canParse(c.relayerUrl as string)) return "relayerUrl is not a URL";
  return c as unknown as Credentials;
}

/** Whether nothing is at `path`: not found, or a file stands where a folder of it should. */
const absent = (error: unknown) =>
  error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory;

async function isSymlink(path: string): Promise<boolean> {
  try {
    return (await Deno.lstat(path)).isSymlink;
  } catch (error) {
    if (absent(error)) return false;
    throw error;
  }
}

/**
 * Takes group and other permissions off `path`; nothing when it went meanwhile (a sign-out or a
 * new sign-in in another process replaced it after it was read).
 */
async function keepPrivate(path: string, mode: number): Promise<void> {
  const info = await nullIfMissing(Deno.stat(path));
  if (info && (info.mode! & 0o077) !== 0) await nullIfMissing(Deno.chmod(path, mode));
}

/** How old a save's temporary file must be to be taken as left by a save cut short. */
const STALE_TEMPORARY_MS = 10_000;

export class CredentialsFile {
  readonly path: string;
  readonly dir: string;

  constructor(path: string) {
    this.path = path;
    this.dir = path.slice(0, Math.max(0, path.lastIndexOf("/"))) || ".";
  }

  /** `~/.svc/credentials.json` for the given home directory. */
  static inHome(home: string): CredentialsFile {
    return new CredentialsFile(`${home}/.svc/credentials.json`);
  }

  /**
   * Removes the temporary files a save cut short left (SIGKILL, a crash: each holds a private
   * key), once older than a save can take.
   */
  async #removeStale(): Promise<void> {
    const prefix = `${this.path.slice(this.dir.length + 1)}.`;
    try {
      for await (const entry of Deno.readDir(this.dir)) {
        if (!entry.isFile || !entry.name.startsWith(prefix) || !entry.name.endsWith(".tmp")) {
          continue;
        }
        const path = `${this.dir}/${entry.name}`;
        const { mtime } = await Deno.lstat(path);
        if (Date.now() - (mtime?.getTime() ?? 0) > STALE_TEMPORARY_MS) {
          await Deno.remove(path).catch(() => {});
        }
      }
    } catch (error) {
      if (!absent(error)) throw error;
    }
  }

  async load(): Promise<LoadedCredentials> {
    await this.#removeStale();
    if (await isSymlink(this.path)) {
      return { kind: "corrupt", reason: `${this.path} is a symbolic link; refusing to follow it` };
    }
    let text: string;
    try {
      text = await Deno.readTextFile(this.path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return { kind: "missing" };
      return { kind: "corrupt", reason: `cannot read ${this.path}: ${(error as Error).message}` };
    }
    if (POSIX) {
      await keepPrivate(this.path, 0o600);
      if (!(await isSymlink(this.dir))) await keepPrivate(this.dir, 0o700);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { kind: "corrupt", reason: `${this.path} is not valid JSON` };
    }
    const credentials = validate(value);
    return typeof credentials === "string"
      ? { kind: "corrupt", reason: `${this.path} is not usable: ${credentials}` }
      : { kind: "ok", credentials };
  }

  /** Writes the file atomically with mode 0600 in a directory with mode 0700. */
  async save(credentials: Credentials): Promise<void> {
    for (const path of [this.dir, this.path]) {
      if (await isSymlink(path)) {
        throw new Error(`Cannot save credentials: ${path} is a symbolic link`);
      }
    }
    await Deno.mkdir(this.dir, { recursive: true, mode: 0o700 });
    if (POSIX) await Deno.chmod(this.dir, 0o700);
    await writeWhole(this.path, JSON.stringify(credentials, null, 2) + "\n");
  }

  /**
   * Deletes the file (and what saves cut short left); `false` when there was none. A folder
   * there is left as it is, and refused.
   */
  async remove(): Promise<boolean> {
    await this.#removeStale();
    try {
      if ((await Deno.lstat(this.path)).isDirectory) {
        throw new Error(`Cannot sign out: ${this.path} is a folder, not credentials; move it away`);
      }
      await Deno.remove(this.path);
      return true;
    } catch (error) {
      if (absent(error)) return false;
      throw error;
    }
  }
}
