/**
 * The reference Python SDK's `list_namespaces()` calls (`src/routes/reference_namespaces.ts`):
 * `POST /api/stats` for the owner, then `GET /v1/owners/{owner}/namespaces`, a page at a time,
 * with the signed auth and the error rules of the other routes.
 */
import assert from "node:assert/strict";
import { jsonOf, startTestRelayer, testClock } from "./fixtures.ts";
import type { Caller, TestRelayer } from "./fixtures.ts";
import type { NamespacePage } from "../src/routes/reference_namespaces.ts";
import { EncryptedVectorStore } from "../plugins/encrypted_index/mod.ts";
import { LexicalEmbedder } from "../plugins/lexical_embedder/mod.ts";
import { silentLogger } from "../src/log.ts";

/** A page's names and counts. */
const counts = (page: NamespacePage) => page.namespaces.map((ns) => [ns.name, ns.memory_count]);

/** Remembers `text` in `namespace` for `caller` and waits for its job. */
async function remember(t: TestRelayer, caller: Caller, namespace: string, text: string) {
  const { job_id } = await jsonOf(
    await t.signed(caller, "POST", "/api/remember", { text, namespace }),
    202,
  );
  await t.settle(caller, [job_id]);
}

Deno.test("reference namespaces: /api/stats names the owner; the owner's namespaces come a page at a time", async () => {
  const clock = testClock();
  await using t = await startTestRelayer({ now: clock.now });
  const alice = await t.newCaller();
  await remember(t, alice, "work", "The report is due on Friday");
  clock.advance(1000);
  await remember(t, alice, "home", "The boiler was serviced in May");
  await remember(t, alice, "home", "The cat eats at six");

  const stats = await jsonOf(await t.signed(alice, "POST", "/api/stats", { namespace: "home" }));
  assert.deepEqual(stats, {
    owner: alice.owner,
    account_id: alice.accountId,
    namespace: "home",
    memory_count: 2,
  });

  const path = `/v1/owners/${stats.owner}/namespaces`;
  const first = await jsonOf(await t.signed(alice, "GET", `${path}?limit=1`));
  assert.deepEqual(first.namespaces.map((ns: { name: string }) => ns.name), ["work"]);
  assert.equal(first.has_more, true);
  assert.equal(first.snapshot_version, 2);
  const [work] = first.namespaces;
  assert.deepEqual(Object.keys(work).sort(), [
    "id",
    "memory_count",
    "name",
    "storage_used",
    "updated_at",
  ]);
  assert.equal(work.memory_count, 1);
  assert.ok(!Number.isNaN(Date.parse(work.updated_at)));

  const cursor = encodeURIComponent(first.next_cursor);
  const second = await jsonOf(
    await t.signed(alice, "GET", `${path}?limit=1&updated_after=${cursor}`),
  );
  assert.deepEqual(counts(second), [
    ["home", 2],
  ]);
  assert.equal(second.has_more, false);
  // Kept after the last page, the cursor finds the namespaces changed since.
  const after = encodeURIComponent(second.next_cursor);
  const idle = await jsonOf(await t.signed(alice, "GET", `${path}?updated_after=${after}`));
  assert.deepEqual([idle.namespaces, idle.has_more, idle.next_cursor], [
    [],
    false,
    second.next_cursor,
  ]);
  clock.advance(1000);
  await remember(t, alice, "work", "The meeting moved to Monday");
  const changed = await jsonOf(await t.signed(alice, "GET", `${path}?updated_after=${after}`));
  assert.deepEqual(counts(changed), [
    ["work", 2],
  ]);
});

Deno.test("reference namespaces: a listing leaves the index's namespaces in memory as they were", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-ref-namespaces-" });
  const embedder = new LexicalEmbedder();
  const vectors = await EncryptedVectorStore.open({
    path: `${dir}/index.sqlite`,
    secret: crypto.getRandomValues(new Uint8Array(32)),
    model: embedder.model,
    dimensions: embedder.dimensions,
    soleWriter: true,
    memoryMb: 0.000_01, // one namespace held at a time
    logger: silentLogger, // which says so, each time
  });
  try {
    await using t = await startTestRelayer({ vectors });
    const alice = await t.newCaller();
    const names = Array.from({ length: 12 }, (_, i) => `ns${String(i).padStart(2, "0")}`);
    const nextMs = () => new Promise((resolve) => setTimeout(resolve, 2)); // no two at one time
    for (const name of names.toReversed()) {
      await nextMs();
      await remember(t, alice, name, `The spare key for ${name} is under the blue pot`);
    }
    // The namespace in use holds more than the others, so memory shows which one is held.
    await nextMs();
    await remember(t, alice, "ns05", "The bike lock code is on the fridge");
    await remember(t, alice, "ns05", "The shed key hangs by the door");
    await jsonOf(
      await t.signed(alice, "POST", "/api/recall", { query: "spare key", namespace: "ns05" }),
    );
    const held = vectors.memoryStats();
    const path = `/v1/owners/${alice.owner}/namespaces`;
    const page = await jsonOf(await t.signed(alice, "GET", `${path}?limit=100`));
    // Oldest change first: written from the last name to the first, then ns05 again.
    assert.deepEqual(
      page.namespaces.map((ns: { name: string }) => ns.name),
      names.toReversed().filter((name) => name !== "ns05").concat("ns05"),
    );
    assert.deepEqual(vectors.memoryStats(), held);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("reference namespaces: the same auth and error rules as the other signed routes", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const bob = await t.newCaller();
  await remember(t, alice, "work", "The report is due on Friday");
  await remember(t, alice, "private", "My PIN hint is the dog's name");
  const path = `/v1/owners/${alice.owner}/namespaces`;

  const unsigned = await t.send("GET", path);
  assert.equal((await jsonOf(unsigned, 401)).code, "unauthorized");
  const stranger = await jsonOf(await t.signed(bob, "GET", path), 403);
  assert.equal(stranger.code, "forbidden");
  assert.match(stranger.error, new RegExp(`must name its owner ${bob.owner}`));
  assert.equal(
    (await jsonOf(await t.signed(alice, "GET", `${path}?limit=0`), 400)).code,
    "bad_request",
  );
  // Refused too: a cursor of the right shape whose time or name no page could have written.
  const forged = (mark: unknown) =>
    new TextEncoder().encode(JSON.stringify(mark)).toBase64({
      alphabet: "base64url",
      omitPadding: true,
    });
  for (
    const cursor of [
      "nope",
      forged({ updated_at: "bad", namespace: "x" }),
      forged({ updated_at: "2026-02-30T00:00:00Z", namespace: "x" }),
      forged({ updated_at: "2026-01-01T00:00:00.000Z", namespace: "x".repeat(5000) }),
      forged({ updated_at: "2026-01-01T00:00:00.000Z", namespace: "" }),
      forged(null),
    ]
  ) {
    const refused = await jsonOf(
      await t.signed(alice, "GET", `${path}?updated_after=${cursor}`),
      400,
    );
    assert.match(refused.error, /updated_after is not a cursor/, cursor);
  }
  const fine = forged({ updated_at: "2026-01-01T00:00:00.000Z", namespace: "work" });
  await jsonOf(await t.signed(alice, "GET", `${path}?updated_after=${fine}`), 200);
  const wrongMethod = await t.signed(alice, "POST", path, {});
  assert.equal(wrongMethod.status, 405);
  await wrongMethod.body?.cancel();

  // A key limited to a namespace sees only it, and may count only it.
  const reader = await t.addKey(alice, { scope: { operations: ["read"], namespaces: ["work"] } });
  const seen = await jsonOf(await t.signed(reader, "GET", path));
  assert.deepEqual(seen.namespaces.map((ns: { name: string }) => ns.name), ["work"]);
  const counted = await t.signed(reader, "POST", "/api/stats", { namespace: "private" });
  assert.equal((await jsonOf(counted, 403)).code, "forbidden");
  // Without a namespace, /api/stats counts "default" (none here).
  const plain = await jsonOf(await t.signed(alice, "POST", "/api/stats", {}));
  assert.deepEqual([plain.namespace, plain.memory_count], ["default", 0]);
});
