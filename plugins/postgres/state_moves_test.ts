import assert from "node:assert/strict";
import { stateTags } from "@svc/relayer/kit";
import { MemoryStateStore, StateAccessLogStore, StateLifecycleRecords } from "@svc/relayer/testing";
import { Database } from "./database.ts";
import { moveIntoState } from "./state_moves.ts";
import { PgStateStore } from "./state_store.ts";
import { testDatabase } from "./testing/test_server.ts";

const SECRET = new Uint8Array(32).fill(5);
const OWNER = "0x" + "d4".repeat(32);

Deno.test("moveIntoState: what the tables of an earlier version held is read from svc_state", async () => {
  await using db = await testDatabase();
  const database = await Database.open({ url: db.url, pool: 2 });
  try {
    const state = new PgStateStore(database);
    const records = new StateLifecycleRecords(state, SECRET);
    // Written as the earlier stores wrote them.
    const plan = { from: "index", to: "index-2", model: "m", dimensions: 4, startedAt: 5 };
    const sql = database.sql;
    await sql`insert into svc_index_reindex (key, value) values ('plan', ${sql.json(plan)})`;
    const tag = Uint8Array.fromHex(
      await stateTags.tagOf(await stateTags.tagKey(SECRET, "erased owners"), OWNER),
    );
    await sql`insert into svc_lifecycle_erased values (${tag}, 'm1', 7)`;
    const expiry = { memoryId: "m2", owner: OWNER, namespace: "notes", expiresAt: 9 };
    const scratch = new MemoryStateStore();
    await new StateLifecycleRecords(scratch, SECRET).schedule([expiry]);
    const [{ value: { sealed } }] = await Array.fromAsync(
      scratch.list<{ sealed: Uint8Array }>({ prefix: ["expiry"] }),
    );
    await sql`insert into svc_lifecycle_expiry (expires_at, memory_id, sealed)
      values (9, 'm2', ${sealed})`;
    const logs = Array.from({ length: 700 }, (_, i) => `id-${String(i).padStart(4, "0")}`);
    await sql`insert into svc_access_log_records (log, id, sealed)
      select 'tag', id, '\\x01' from unnest(${logs}::text[]) as id`;

    // A cursor written since, in svc_state, is newer than the table's.
    await sql`insert into svc_index_reindex (key, value)
      values ('cursor:ns', ${sql.json({ after: "old" })})`;
    await state.set(["reindex", "cursor", "ns"], { after: "new" });
    assert.equal(await moveIntoState(database), 704);
    assert.deepEqual((await state.get(["reindex", "cursor", "ns"]))?.value, { after: "new" });
    assert.equal(await moveIntoState(database), 0, "moved once");
    assert.deepEqual((await state.get(["reindex", "plan"]))?.value, plan);
    assert.deepEqual(await records.erased(OWNER, ["m1", "m9"]), new Set(["m1"]));
    assert.deepEqual(await records.due(10, 10), [expiry]);
    const scanned = await new StateAccessLogStore(state).scan("tag", {}, 1_000);
    assert.equal(scanned.length, 700);
    const [{ count }] = await sql`select (
      (select count(*) from svc_index_reindex) + (select count(*) from svc_lifecycle_erased) +
      (select count(*) from svc_lifecycle_expiry) + (select count(*) from svc_access_log_records)
    )::int as count`;
    assert.equal(count, 0, "the old tables are empty");
  } finally {
    await database.close();
  }
});
