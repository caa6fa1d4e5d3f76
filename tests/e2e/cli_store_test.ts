import assert from "node:assert/strict";
import { testDatabase } from "../../plugins/postgres/testing/test_server.ts";
import { MIGRATIONS } from "../../plugins/postgres/schema/mod.ts";
import { Database } from "../../plugins/postgres/database.ts";
import { startRelayer, svcCli } from "../relayer_process.ts";
import { taskCommand } from "../task_flags.ts";
import { addressOf, keyPairFromSeed } from "@svc/util/keys";
import { lockIndex } from "@svc/app";

const MASTER_KEY = "ab".repeat(32);

Deno.test("svc migrate brings a database's schema up to date, then finds nothing to do; another key is refused", async () => {
  await using db = await testDatabase();
  const dataDir = await Deno.makeTempDir();
  try {
    const env = { SVC_STORE: "postgres", SVC_DATABASE_URL: db.url, SVC_MASTER_KEY: MASTER_KEY };
    const latest = Math.max(...MIGRATIONS.map((m) => m.version));
    assert.deepEqual(await svcCli(dataDir, ["migrate"], env), { from: 0, to: latest });
    assert.deepEqual(await svcCli(dataDir, ["migrate"], env), { from: latest, to: latest });
    // Another installation's master key is refused, as a relayer refuses it.
    await assert.rejects(
      svcCli(dataDir, ["migrate"], { ...env, SVC_MASTER_KEY: "cd".repeat(32) }),
      /exited 1: .*written under another master key/s,
    );
    // Without PostgreSQL configured, a usage error that says what to set.
    await assert.rejects(svcCli(dataDir, ["migrate"]), /exited 2.*SVC_STORE=postgres/s);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("svc migrate-store refuses a missing data directory, one without a relayer's data, and a database set up under another key", async () => {
  await using db = await testDatabase();
  const dataDir = await Deno.makeTempDir();
  try {
    const env = { SVC_DATABASE_URL: db.url };
    const copy = (dir: string, more: Record<string, string> = {}) =>
      svcCli(dir, ["migrate-store", "--to", "postgres"], { ...env, ...more });
    await assert.rejects(
      copy(`${dataDir}/typo`, { SVC_MASTER_KEY: MASTER_KEY }),
      /exited 2: .*there is no data directory .*\/typo \(SVC_DATA_DIR\)/s,
    );
    await assert.rejects(
      copy(dataDir, { SVC_MASTER_KEY: MASTER_KEY }),
      /exited 2: .*holds no relayer's data \(it has no jobs\.kv\)/s,
    );
    // A relayer's data directory, and a database a relayer of another installation set up.
    await (await startRelayer(dataDir)).stop();
    const other = { SVC_STORE: "postgres", SVC_MASTER_KEY: "cd".repeat(32) };
    await svcCli(dataDir, ["migrate"], { ...env, ...other });
    await assert.rejects(copy(dataDir), /exited 1: .*set up under another master key/s);
    // Nothing of the copy was recorded: the database still serves its own installation.
    const probe = await Database.open({ url: db.url, pool: 1, migrate: false });
    try {
      const [{ count }] = await probe.sql`select count(*)::int from svc_migrate_store_progress`;
      assert.equal(count, 0);
    } finally {
      await probe.close();
    }
    await svcCli(dataDir, ["account", "create"], { ...env, ...other });
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("svc reindex and migrate-store --to sqlite make no data directory of an empty one", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    for (
      const args of [["reindex", "--embedder", "lexical"], ["migrate-store", "--to", "sqlite"]]
    ) {
      await assert.rejects(
        svcCli(dataDir, args, { SVC_MASTER_KEY: MASTER_KEY }),
        /exited 2: .*holds no relayer's data \(it has no jobs\.kv\)/s,
        args[0],
      );
    }
    assert.deepEqual(await Array.fromAsync(Deno.readDir(dataDir)), [], "nothing written");
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("svc migrate-store beside a relayer holding the directory moves nothing, its master key neither", async () => {
  const dataDir = await Deno.makeTempDir();
  const keysDir = await Deno.makeTempDir();
  try {
    (await Deno.openKv(`${dataDir}/jobs.kv`)).close();
    await Deno.writeTextFile(`${dataDir}/master.key`, "cd".repeat(32) + "\n", { mode: 0o600 });
    // A relayer serving from the directory (here, this process) holds its index lock.
    const serving = await lockIndex(dataDir, "start the relayer");
    try {
      await assert.rejects(
        svcCli(dataDir, ["migrate-store", "--to", "sqlite"], { SVC_KEYS_DIR: keysDir }),
        /exited 1: .*Cannot move the blobs: another process holds the vector index/s,
      );
    } finally {
      serving.release();
    }
    assert.ok((await Deno.stat(`${dataDir}/master.key`)).isFile, "the master key was moved");
    assert.deepEqual(await Array.fromAsync(Deno.readDir(keysDir)), []);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
    await Deno.remove(keysDir, { recursive: true });
  }
});

Deno.test("svc reindex names --embedder, not the variable it sets, for an unknown embedder", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    await assert.rejects(
      svcCli(dataDir, ["reindex", "--embedder", "bogus"]),
      /exited 2.*--embedder must be one of local, lexical, onnx, use, ollama, openai \(got "bogus"\)/s,
    );
    await assert.rejects(
      svcCli(dataDir, ["reindex", "local"]),
      /exited 2.*unexpected argument: local \(reindex takes the embedder as a flag: svc reindex --embedder local\)/s,
    );
    for (const command of ["migrate", "migrate-store"]) {
      await assert.rejects(
        svcCli(dataDir, [command, "postgres"]),
        /exited 2.*svc: unexpected argument: postgres\n/s,
      );
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("the ledger commands read only where the ledger is, not the relayer's other settings", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    // An embedder setting the relayer would refuse does not concern the ledger.
    const { accountId } = await svcCli(dataDir, ["account", "create"], { SVC_EMBEDDER: "openai" });
    assert.match(accountId, /^0x[0-9a-f]{64}$/);
    // A data directory that is a file is named as such (it was taken for one moved to PostgreSQL).
    const file = `${dataDir}/a-file`;
    await Deno.writeTextFile(file, "x");
    await assert.rejects(
      svcCli(file, ["key", "list", "--account", accountId]),
      /exited 1: .*Cannot use the ledger on .*a-file \(SVC_DATA_DIR\): it is a file, not a folder/,
    );
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("svc account and key sign with SVC_OWNER_KEY when given; with SVC_CHAIN=sui they need Sui's settings", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    const run = async (args: string[], env: Record<string, string>) => {
      const { code, stdout } = await new Deno.Command(Deno.execPath(), {
        args: taskCommand("svc", [...args, "--json"]),
        env: { SVC_DATA_DIR: dataDir, SVC_OWNER_KEY: "", ...env },
      }).output();
      return { exit: code, ...JSON.parse(new TextDecoder().decode(stdout)) };
    };
    const sui = await run(["key", "list", "--account", "0x1"], { SVC_CHAIN: "sui" });
    assert.equal(sui.exit, 2);
    // (The registry only for a change: listing reads the account alone.)
    for (const name of ["SVC_SUI_RPC_URL", "SVC_PACKAGE_ID"]) {
      assert.match(sui.error, new RegExp(`${name} is required`));
    }

    // The account of the key given, which is not saved.
    const owner = "33".repeat(32);
    const created = await run(["account", "create"], { SVC_OWNER_KEY: owner });
    assert.equal(created.owner, addressOf((await keyPairFromSeed(owner)).publicKey));
    assert.equal(await Deno.stat(`${dataDir}/owner_keys`).catch(() => null), null);
    const account = ["--account", created.accountId];
    const added = await run(["key", "add", ...account], { SVC_OWNER_KEY: owner });
    assert.equal(added.exit, 0);
    const without = await run(["key", "add", ...account], {});
    assert.match(without.error, /its owner key is not in .*owner_keys/);
    const other = await run(["key", "add", ...account], { SVC_OWNER_KEY: "44".repeat(32) });
    assert.equal(other.code, "forbidden");
    assert.match(other.error, /SVC_OWNER_KEY is the key of 0x[0-9a-f]{64}, not of its owner/);
    const bad = await run(["key", "add", ...account], { SVC_OWNER_KEY: "suiprivkey1nope" });
    assert.equal(bad.code, "usage");
    assert.match(bad.error, /^SVC_OWNER_KEY: Cannot load the Sui key: it must be suiprivkey1…/);
    assert.equal((await run(["key", "list", ...account], {})).keys.length, 1);
    // Another account's SVC_OWNER_KEY (a shell that holds one) leaves the saved key to sign.
    const saved = await run(["account", "create"], {});
    const added2 = await run(["key", "add", "--account", saved.accountId], {
      SVC_OWNER_KEY: owner,
    });
    assert.equal(added2.exit, 0);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("svc account create with the database down saves no owner key", async () => {
  const dataDir = await Deno.makeTempDir();
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const url = `postgres://svc:pw@127.0.0.1:${closed.addr.port}/svc`; // nothing answers there
  closed.close();
  try {
    const env = { SVC_STORE: "postgres", SVC_DATABASE_URL: url, SVC_MASTER_KEY: MASTER_KEY };
    // Refused, or reset by whatever took the port meanwhile: either way no database answers.
    await assert.rejects(
      svcCli(dataDir, ["account", "create"], env),
      /exited 1.*Cannot connect to PostgreSQL at 127\.0\.0\.1:\d+\/svc/s,
    );
    assert.equal(await Deno.stat(`${dataDir}/owner_keys`).catch(() => null), null);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
