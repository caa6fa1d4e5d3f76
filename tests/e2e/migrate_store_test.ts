/**
 * `svc migrate-store --to postgres` as an operator runs it: a data directory written by a real
 * relayer (embedded), the relayer stopped, the copy interrupted by SIGKILL and run again, then a
 * relayer on PostgreSQL that serves the same memories, ranked the same, with the erased one
 * still erased, the access log and the operator-blind namespace there.
 */
import assert from "node:assert/strict";
import { SvcClient } from "../../src/client/mod.ts";
import { BlindMemory } from "../../src/client/blind.ts";
import { LexicalEmbedder } from "../../plugins/lexical_embedder/mod.ts";
import { testDatabase } from "../../plugins/postgres/testing/test_server.ts";
import { Database } from "../../plugins/postgres/database.ts";
import { LEDGER_PREFIX } from "../../plugins/postgres/ledger.ts";
import { copySource } from "../../plugins/postgres/store_import.ts";
import { stateKeys } from "../../src/kit.ts";
import { taskCommand } from "../task_flags.ts";
import {
  jobIdOf,
  newAccountClient,
  ROOT,
  startRelayer,
  svcCli,
  TEST_KEYS_DIR,
} from "../relayer_process.ts";

const EMBEDDER = { SVC_EMBEDDER: "lexical" };
const MOVED = "moved-to-postgres.json";
const QUERIES = ["blue car", "locker code", "coffee order", "note number 7"];

/** Every memory id of the default namespace, newest first. */
async function allIds(client: SvcClient): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.list({ limit: 100, ...cursor ? { cursor } : {} });
    ids.push(...page.memories.map((m) => m.id));
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return ids;
}

/** A device of the operator-blind namespace "private", with no cache: it reads the whole log. */
function blindDevice(baseUrl: string, privateKey: string): Promise<BlindMemory> {
  return BlindMemory.open({
    baseUrl,
    privateKey,
    embedder: new LexicalEmbedder(),
    namespace: "private",
  });
}

async function rankings(client: SvcClient): Promise<string[][]> {
  const out: string[][] = [];
  for (const query of QUERIES) {
    out.push((await client.recall(query, { limit: 5 })).results.map((r) => r.id));
  }
  return out;
}

/** Starts `svc migrate-store` and SIGKILLs it once it reports the keys copied. */
async function interruptedCopy(dataDir: string, env: Record<string, string>): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: taskCommand("svc", ["migrate-store", "--to", "postgres"]),
    env: { SVC_DATA_DIR: dataDir, SVC_KEYS_DIR: TEST_KEYS_DIR, ...env },
    cwd: ROOT,
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes("keys:")) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += value;
  }
  try {
    child.kill("SIGKILL");
  } catch { /* it finished already */ }
  await child.status;
  while (!(await reader.read()).done) { /* drain */ }
  return seen;
}

Deno.test("migrate-store copies a data directory into PostgreSQL, resumably", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-migrate-src-" });
  const pgDir = await Deno.makeTempDir({ prefix: "svc-migrate-pg-" });
  await using db = await testDatabase();
  let relayer = await startRelayer(dataDir, EMBEDDER);
  try {
    // --- An installation: an account, memories with tags, a thread and an expiry, an erase,
    // an update, and many more memories so that copying the blobs takes a while.
    const { client, privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
    const car = jobIdOf(await client.remember("My car is a blue Volvo", { tags: ["car"] }));
    const locker = jobIdOf(await client.remember("My locker code is 4711", { tags: ["work"] }));
    const coffee = jobIdOf(
      await client.remember("My coffee order is a flat white", {
        thread: "cafe",
        ttlSeconds: 86400,
      }),
    );
    const old = jobIdOf(await client.remember("My desk is on floor 3"));
    const bulk: string[] = [];
    for (let at = 0; at < 300; at += 20) {
      const items = Array.from({ length: 20 }, (_, i) => ({
        text: `Note number ${at + i}: item ${(at + i) * 7}`,
        tags: ["bulk"],
      }));
      bulk.push(...(await client.rememberBulk(items)).job_ids);
    }
    for (const id of [car, locker, coffee, old, ...bulk]) await client.waitForJob(id);
    const update = await client.update(old, { text: "My desk is on floor 5" });
    await client.waitForJob(update.job_id);
    await client.forget(locker);
    const ids = await allIds(client);
    assert.ok(!ids.includes(locker) && ids.includes(car) && ids.length >= 303);
    const ranked = await rankings(client);
    const log = await client.accessLog({ limit: 100 });
    assert.ok(log.entries.length > 0);
    // An operator-blind namespace, one of its memories forgotten.
    const device = await blindDevice(relayer.url, privateKey);
    await device.enable();
    const [kept, forgotten] = await device.remember([{ text: "My PIN is 2468" }, {
      text: "My old PIN was 1357",
    }]);
    await device.forget(forgotten);
    await relayer.stop();

    // --- The copy, cut short, then run again to the end.
    const env = { SVC_DATABASE_URL: db.url, ...EMBEDDER };
    // Not without the memories' keys.
    await Deno.rename(`${dataDir}/keys.sqlite`, `${dataDir}/keys.sqlite.aside`);
    await assert.rejects(
      svcCli(dataDir, ["migrate-store", "--to", "postgres"], env),
      /exited 1: .*its keys\.sqlite, which holds the key of every memory, is missing/,
    );
    await Deno.rename(`${dataDir}/keys.sqlite.aside`, `${dataDir}/keys.sqlite`);
    await assert.rejects(
      svcCli(dataDir, ["migrate-store", "--to", "postgres"], {
        ...env,
        SVC_MASTER_KEY: "cd".repeat(32),
      }),
      /exited 1: .*is not the master key of/,
    );
    const seen = await interruptedCopy(dataDir, env);
    assert.match(seen, /migrate-store: ledger: 1 accounts copied/);
    // Not served while the copy is unfinished: a resumed copy would miss what changed.
    await assert.rejects(
      startRelayer(dataDir, EMBEDDER),
      /Cannot start the relayer on .*: svc migrate-store began copying it into PostgreSQL on \d{4}-\d\d-\d\d and has not finished; run it again/,
    );
    const probe = await Database.open({ url: db.url, pool: 1, migrate: false });
    try {
      const phases = (await probe.sql`select phase from svc_migrate_store_progress`)
        .map((row) => row.phase);
      assert.ok(phases.includes("keys"), "the keys were copied before the kill");
      assert.ok(!phases.includes("replay"), "the copy was cut short");
    } finally {
      await probe.close();
    }
    // Not resumed from another data directory (a copy of this one: the same master key).
    const otherDir = `${pgDir}/other`;
    await new Deno.Command("cp", { args: ["-a", dataDir, otherDir] }).output();
    await assert.rejects(
      svcCli(otherDir, ["migrate-store", "--to", "postgres"], env),
      /exited 1: .*the copy this database holds was not begun from this data directory as it is/,
    );
    await Deno.remove(otherDir, { recursive: true });
    // Nor once its mark was deleted to serve it again: it may differ from what was copied.
    const mark = `${dataDir}/moving-to-postgres.json`;
    await Deno.rename(mark, `${mark}.aside`);
    await assert.rejects(
      svcCli(dataDir, ["migrate-store", "--to", "postgres"], env),
      /exited 1: .*the copy this database holds was not begun from this data directory as it is/,
    );
    await Deno.rename(`${mark}.aside`, mark);
    // Nothing serves, or writes into, a database whose copy has not finished.
    const id = (await Deno.readTextFile(`${dataDir}/svc.id`)).trim();
    const masterKey = (await Deno.readTextFile(`${TEST_KEYS_DIR}/${id}.key`)).trim();
    const onPostgres = { ...env, SVC_STORE: "postgres", SVC_MASTER_KEY: masterKey };
    for (const command of [["account", "create"], ["migrate"]]) {
      await assert.rejects(
        svcCli(pgDir, command, onPostgres),
        /exited 1: .*`svc migrate-store` began copying a data directory into it and has not finished/,
      );
    }
    const summary = await svcCli(dataDir, ["migrate-store", "--to", "postgres"], env);
    assert.equal(summary.status, "copied");
    assert.equal(summary.resumed, true);
    assert.equal(summary.index, "index");
    assert.equal(summary.copied.ledger, 1);
    assert.ok(summary.copied.blobs >= ids.length);
    assert.ok(summary.copied.access_log >= log.entries.length);
    // Run once more: every phase is done; nothing is copied twice, and it says so.
    const again = await svcCli(dataDir, ["migrate-store", "--to", "postgres"], env);
    assert.deepEqual(again.copied, summary.copied);
    assert.equal(again.status, "already copied");
    // A copy an earlier version finished (no blind phase, no copy id) still serves, and is done.
    const earlier = await Database.open({ url: db.url, pool: 1, migrate: false });
    try {
      const secret = Uint8Array.fromHex(masterKey);
      const source = await copySource(secret, await Deno.realPath(dataDir));
      await earlier.sql`delete from svc_migrate_store_progress where phase = 'blind'`;
      await earlier.sql`update svc_migrate_store_progress set source = ${source}
        where phase = 'started'`;
    } finally {
      await earlier.close();
    }
    const { copy: _, ...idless } = JSON.parse(await Deno.readTextFile(`${dataDir}/${MOVED}`));
    await Deno.writeTextFile(`${dataDir}/${MOVED}`, JSON.stringify(idless));
    assert.equal(
      (await svcCli(dataDir, ["migrate-store", "--to", "postgres"], env)).status,
      "already copied",
    );
    await svcCli(pgDir, ["migrate"], onPostgres); // refused were the copy taken as unfinished
    // Into another database, it is refused: erases made in the first since would come back.
    await using other = await testDatabase();
    await assert.rejects(
      svcCli(dataDir, ["migrate-store", "--to", "postgres"], {
        ...env,
        SVC_DATABASE_URL: other.url,
      }),
      /exited 1: .*it was copied into PostgreSQL already on \d{4}-\d\d-\d\d, into another database; serve that one/,
    );
    // The copied directory is not served or written any more: it would part from the database.
    await assert.rejects(
      startRelayer(dataDir, EMBEDDER),
      /Cannot start the relayer on .*: svc migrate-store copied it into PostgreSQL on \d{4}-/,
    );
    await assert.rejects(
      svcCli(dataDir, ["key", "list", "--account", accountId]),
      /exited 1: .*Cannot use the ledger on .*copied it into PostgreSQL/,
    );
    const check = await Database.open({ url: db.url, pool: 1, migrate: false });
    try {
      // The ledger's accounts: the entries under ["ledger", "account"] of svc_state.
      const accounts = stateKeys.encodeKey([...LEDGER_PREFIX, "account"]);
      const [counts] = await check.sql`select
        (select count(*)::int from svc_blobs_objects) as blobs,
        (select count(*)::int from svc_state
          where substring(key from 1 for ${accounts.length}) = ${accounts}) as accounts,
        (select count(distinct memory_id)::int from svc_index_ids) as located,
        (select count(*)::int from svc_index_ids) as ids,
        (select source from svc_migrate_store_progress where phase = 'started') as source`;
      assert.match(counts.source, /^[0-9a-f]{32}$/, "the copy names its source, hashed");
      assert.equal(counts.accounts, 1);
      assert.equal(counts.blobs, summary.copied.blobs);
      assert.equal(counts.ids, counts.located);
      assert.equal(counts.ids, ids.length);
    } finally {
      await check.close();
    }

    // --- A relayer on PostgreSQL serves the same state.
    relayer = await startRelayer(pgDir, {
      ...EMBEDDER,
      SVC_STORE: "postgres",
      SVC_DATABASE_URL: db.url,
      SVC_DATABASE_POOL: "4",
      SVC_MASTER_KEY: masterKey,
    });
    const moved = await SvcClient.create({ baseUrl: relayer.url, privateKey, accountId });
    assert.deepEqual(await allIds(moved), ids);
    assert.deepEqual(await rankings(moved), ranked);
    assert.equal((await moved.get(car)).text, "My car is a blue Volvo");
    await assert.rejects(moved.get(locker), /No such memory/, "the erased memory stays erased");
    assert.equal((await moved.restore("default")).restored, 0, "nothing erased comes back");
    const movedLog = await moved.accessLog({ limit: 200 });
    const movedIds = new Set(movedLog.entries.map((e) => JSON.stringify(e)));
    for (const entry of log.entries) assert.ok(movedIds.has(JSON.stringify(entry)));
    // The operator-blind namespace came along, its forgotten memory still forgotten.
    const movedDevice = await blindDevice(relayer.url, privateKey);
    assert.deepEqual((await movedDevice.memories()).map((m) => m.id), [kept]);
    await assert.rejects(moved.remember("in clear", { namespace: "private" }), /operator-blind/);
    // The keys work: a new memory is stored and found.
    const fresh = jobIdOf(await moved.remember("My bike is a green Brompton"));
    await moved.waitForJob(fresh);
    assert.equal((await moved.recall("green bike", { limit: 1 })).results[0].id, fresh);
  } finally {
    await relayer.stop();
    await Deno.remove(dataDir, { recursive: true });
    await Deno.remove(pgDir, { recursive: true });
  }
});
