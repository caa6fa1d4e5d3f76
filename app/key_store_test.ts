import assert from "node:assert/strict";
import process from "node:process";
import { silentLogger, SvcError } from "@svc/relayer/kit";
import { pathExists } from "@svc/util/files";
import { loadMasterKey } from "./master_key.ts";
import { masterKeyFileOf } from "./config.ts";
import { openBackends, readConfig, restrictNewFiles } from "./mod.ts";

const OWNER = "0x" + "ab".repeat(32);
const mode = (path: string) => Deno.lstatSync(path).mode! & 0o777;

async function open(dataDir: string, env: Record<string, string> = {}) {
  const config = readConfig({
    SVC_DATA_DIR: dataDir,
    SVC_EMBEDDER: "lexical",
    SVC_VECTOR_STORE: "memory",
    SVC_LLM: "none",
    ...env,
  });
  assert.ok(config.ok);
  return await openBackends(config.config, silentLogger);
}

Deno.test("composition: the local cipher's key store is keys.sqlite in the data directory, private, kept across restarts and closed on shutdown", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-keys-" });
  const previous = restrictNewFiles();
  try {
    // A key store left readable (restored from a backup with loose modes, say), with its key.
    await loadMasterKey(dataDir, masterKeyFileOf({}, dataDir));
    await Deno.writeFile(`${dataDir}/keys.sqlite`, new Uint8Array());
    Deno.chmodSync(`${dataDir}/keys.sqlite`, 0o644);

    const memoryId = crypto.randomUUID();
    let backends = await open(dataDir);
    const sealed = await backends.relayer.cipher!.encrypt(OWNER, new TextEncoder().encode("hi"), {
      memoryId,
    });
    const names = [...Deno.readDirSync(dataDir)].map((entry) => entry.name);
    const keyFiles = names.filter((name) => name.startsWith("keys."));
    assert.ok(keyFiles.includes("keys.sqlite"), names.join(", "));
    for (const name of keyFiles) assert.equal(mode(`${dataDir}/${name}`), 0o600, name);
    const cipher = backends.relayer.cipher!;
    await backends.close();
    await assert.rejects(
      () => cipher.encrypt(OWNER, new Uint8Array(1), { memoryId: "after-close" }),
      SvcError,
      "the key store is closed",
    );

    backends = await open(dataDir);
    const text = await backends.relayer.cipher!.decrypt(OWNER, sealed);
    assert.equal(new TextDecoder().decode(text), "hi");
    await backends.relayer.cipher!.erase(OWNER, [memoryId]);
    await backends.close();

    backends = await open(dataDir);
    await assert.rejects(
      () => backends.relayer.cipher!.decrypt(OWNER, sealed),
      (error) => error instanceof SvcError && error.code === "forbidden",
    );
    await backends.close();
  } finally {
    if (previous !== undefined) process.umask(previous);
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("composition: a data directory whose keys.sqlite went missing is refused until it is put back", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-keys-" });
  const aside = await Deno.makeTempDir({ prefix: "svc-keys-aside-" });
  try {
    // The first start of a directory without keys.sqlite (new, or from before it) makes one.
    let backends = await open(dataDir);
    const sealed = await backends.relayer.cipher!.encrypt(OWNER, new TextEncoder().encode("hi"), {
      memoryId: crypto.randomUUID(),
    });
    await backends.close();
    const keyFiles = [...Deno.readDirSync(dataDir)].map((entry) => entry.name)
      .filter((name) => name.startsWith("keys.sqlite"));
    for (const name of keyFiles) await Deno.rename(`${dataDir}/${name}`, `${aside}/${name}`);

    await assert.rejects(
      () => open(dataDir),
      (error) =>
        error instanceof SvcError && error.code === "conflict" &&
        error.message.includes("its keys.sqlite, which holds the key of every memory, is missing"),
    );
    assert.equal(await pathExists(`${dataDir}/keys.sqlite`), false, "none was made");

    for (const name of keyFiles) await Deno.copyFile(`${aside}/${name}`, `${dataDir}/${name}`);
    backends = await open(dataDir);
    const text = await backends.relayer.cipher!.decrypt(OWNER, sealed);
    assert.equal(new TextDecoder().decode(text), "hi");
    await backends.close();

    // Without a backup, the loss is accepted once: a new keys.sqlite, which later starts find.
    for (const name of keyFiles) await Deno.remove(`${dataDir}/${name}`).catch(() => {});
    backends = await open(dataDir, { SVC_KEYS_LOST: "1" });
    await assert.rejects(() => backends.relayer.cipher!.decrypt(OWNER, sealed), SvcError);
    await backends.close();
    backends = await open(dataDir);
    await backends.close();
  } finally {
    await Deno.remove(dataDir, { recursive: true });
    await Deno.remove(aside, { recursive: true });
  }
});
