/**
 * An erase cut short by SIGKILL is finished, never left half done. The relayer (started as
 * `deno task start` starts it) erases a namespace of 400 memories and is killed part of the way
 * through; restarted, within two minutes every memory is either whole (listed, readable) or gone
 * (not listed, 404, no key): none stays listed without a key to read it.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { SvcClient } from "../../src/client/mod.ts";
import { SvcError } from "../../src/errors.ts";
import { newAccountClient, startRelayer } from "../relayer_process.ts";

const COUNT = 400;
const NAMESPACE = "doomed";

/** The memory ids `keys.sqlite` holds a key of, read as another process reads the file. */
function keyed(dataDir: string): Set<string> {
  const db = new DatabaseSync(`${dataDir}/keys.sqlite`, { readOnly: true });
  try {
    const rows = db.prepare("SELECT DISTINCT memory_id FROM keys").all() as { memory_id: string }[];
    return new Set(rows.map((row) => row.memory_id));
  } finally {
    db.close();
  }
}

/** Every memory of the namespace as the list shows it: id → whether its text reads. */
async function listed(client: SvcClient): Promise<Map<string, boolean>> {
  const seen = new Map<string, boolean>();
  let cursor: string | undefined;
  do {
    const page = await client.list({ namespace: NAMESPACE, limit: 100, cursor });
    for (const memory of page.memories) seen.set(memory.id, memory.text !== null);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return seen;
}

Deno.test("erase cut short by SIGKILL: after a restart every memory is whole or gone", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-erase-kill-" });
  try {
    // In a process group: the kill takes its sidecar too.
    let relayer = await startRelayer(dataDir, {}, { processGroup: true });
    const { client, privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
    const ids: string[] = [];
    for (let at = 0; at < COUNT; at += 20) {
      const items = Array.from({ length: 20 }, (_, i) => ({
        text: `Doomed fact number ${at + i}: the locker code is ${at + i}42`,
        namespace: NAMESPACE,
      }));
      ids.push(...(await client.rememberBulk(items)).job_ids);
    }
    for (const id of ids) assert.equal((await client.waitForJob(id)).status, "done");

    const erasing = client.forgetNamespace(NAMESPACE).catch(() => null);
    // Killed some way into the erase: after its first keys went, before its end.
    const before = new Set(ids);
    for (let tries = 0; tries < 2000; tries++) {
      const keys = keyed(dataDir);
      if (ids.some((id) => !keys.has(id))) break;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await relayer.kill();
    assert.equal(await erasing, null, "the erase was cut short");
    const keysLeft = keyed(dataDir);
    assert.ok(ids.some((id) => !keysLeft.has(id)), "some keys went before the kill");

    relayer = await startRelayer(dataDir, {}, { processGroup: true });
    await using _ = relayer;
    const again = await SvcClient.create({ baseUrl: relayer.url, privateKey, accountId });
    let seen = await listed(again);
    for (let waited = 0; [...seen.values()].some((reads) => !reads) && waited < 150; waited += 5) {
      await new Promise((resolve) => setTimeout(resolve, 5000));
      seen = await listed(again);
    }
    const keys = keyed(dataDir);
    for (const id of before) {
      if (seen.has(id)) {
        assert.equal(seen.get(id), true, `listed ${id} reads`);
        assert.ok(keys.has(id), `listed ${id} has its key`);
      } else {
        assert.equal(keys.has(id), false, `gone ${id} has no key left`);
        await assert.rejects(
          again.get(id),
          (error) => error instanceof SvcError && error.code === "not_found",
        );
      }
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
