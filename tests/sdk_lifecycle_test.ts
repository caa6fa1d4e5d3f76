/**
 * The client SDK's lifecycle methods against the real relayer (in-process, in-memory
 * backends): list, get, forget, forgetNamespace, update, remember's tags, expiry, replaces and
 * duplicates, recall's filters, and receipts checked with `verifyReceipt`.
 */
import assert from "node:assert/strict";
import { type RememberAnswer, SvcClient, verifyReceipt } from "../src/client/mod.ts";
import { addressOf } from "@svc/util/keys";
import { SvcError } from "../src/errors.ts";
import { BASE, type Caller, startTestRelayer, type TestRelayer } from "./fixtures.ts";

function clientOf(t: TestRelayer, caller: Caller): Promise<SvcClient> {
  return SvcClient.create({
    baseUrl: BASE,
    privateKey: caller.key.privateKey,
    accountId: caller.accountId,
    retries: 0,
    fetch: (input, init) => t.relayer.handler(new Request(input, init)),
  });
}

/** Remembers `text` and waits until it is recallable; its memory id. */
async function stored(client: SvcClient, answer: Promise<RememberAnswer>): Promise<string> {
  const accepted = await answer;
  if (accepted.status === "duplicate") throw new Error("unexpected duplicate");
  assert.equal((await client.waitForJob(accepted.job_id)).status, "done");
  return accepted.job_id;
}

async function refusal(promise: Promise<unknown>): Promise<SvcError> {
  const error = await promise.then(() => null, (e) => e);
  assert.ok(error instanceof SvcError, `expected an SvcError, got ${error}`);
  return error;
}

Deno.test("SDK: remember with tags and expiry; list, filter, page and get", async () => {
  await using t = await startTestRelayer();
  const client = await clientOf(t, await t.newCaller());
  const diet = await stored(
    client,
    client.remember("I am vegetarian", { namespace: "me", tags: ["diet", "health"] }),
  );
  const expiring = await stored(
    client,
    client.remember("I am in Lisbon this week", { namespace: "me", ttlSeconds: 7 * 86400 }),
  );
  const ids = [diet, expiring];
  for (let i = 0; i < 3; i++) {
    ids.push(await stored(client, client.remember(`Note number ${i}`, { namespace: "me" })));
  }

  const all = await client.list({ namespace: "me" });
  assert.deepEqual(all.memories.map((m) => m.id), ids.toReversed(), "newest first");
  assert.equal(all.next_cursor, null);
  const first = all.memories.find((m) => m.id === diet)!;
  assert.deepEqual(
    { ...first, created_at: undefined, updated_at: undefined, remembered_by: undefined },
    {
      id: diet,
      namespace: "me",
      text: "I am vegetarian",
      manual: false,
      tags: ["diet", "health"],
      thread: null,
      created_at: undefined,
      updated_at: undefined,
      expires_at: null,
      supersedes: null,
      remembered_by: undefined,
    },
  );
  assert.equal(first.remembered_by?.address, addressOf(client.publicKey));
  assert.equal(first.remembered_by?.at, first.created_at);
  const week = all.memories.find((m) => m.id === expiring)!;
  const ttl = Date.parse(week.expires_at!) - Date.parse(week.created_at);
  assert.ok(Math.abs(ttl - 7 * 86400_000) < 60_000, `expires a week after: ${ttl} ms`);
  assert.deepEqual(await client.get(diet), first);

  const tagged = await client.list({ namespace: "me", tags: ["diet"] });
  assert.deepEqual(tagged.memories.map((m) => m.id), [diet]);
  assert.deepEqual((await client.list({ namespace: "me", tags: ["diet", "sport"] })).memories, []);
  assert.deepEqual((await client.list()).memories, [], "the default namespace is another");

  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.list({ namespace: "me", limit: 2, cursor });
    assert.ok(page.memories.length <= 2);
    seen.push(...page.memories.map((m) => m.id));
    cursor = page.next_cursor ?? undefined;
    pages++;
  } while (cursor);
  assert.deepEqual(seen, ids.toReversed());
  assert.equal(pages, 3);

  const created = Date.parse(first.created_at);
  assert.deepEqual(
    (await client.list({ namespace: "me", until: new Date(created + 1) })).memories.map((m) =>
      m.id
    ),
    [diet],
  );
  assert.ok(
    !(await client.list({ namespace: "me", since: new Date(created + 1) })).memories.some((m) =>
      m.id === diet
    ),
  );

  const recalled = await client.recall("vegetarian", { namespace: "me", tags: ["diet"] });
  assert.deepEqual(recalled.results.map((r) => [r.id, r.tags]), [[diet, ["diet", "health"]]]);
});

Deno.test("SDK: a text already stored is answered as a duplicate, in remember and bulk", async () => {
  await using t = await startTestRelayer();
  const client = await clientOf(t, await t.newCaller());
  const id = await stored(client, client.remember("My dog is called Rex"));
  const again = await client.remember("  my DOG is   called rex ");
  assert.equal(again.status, "duplicate");
  if (again.status !== "duplicate") return;
  assert.equal(again.duplicate_of, id);
  assert.equal(again.memory?.text, "My dog is called Rex");
  assert.equal((await client.list()).memories.length, 1);
  // Another namespace is not a duplicate.
  assert.notEqual(
    (await client.remember("My dog is called Rex", { namespace: "b" })).status,
    "duplicate",
  );

  const bulk = await client.rememberBulk([{ text: "My cat is called Tom" }, {
    text: "my dog is called Rex",
  }]);
  assert.equal(bulk.total, 2);
  assert.equal(bulk.job_ids[1], id);
  assert.deepEqual(bulk.duplicates, [{ index: 1, duplicate_of: id }]);
});

Deno.test("SDK: forget erases one memory and returns a receipt signed with the relayer's key", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const client = await clientOf(t, caller);
  const kept = await stored(client, client.remember("I live in Porto"));
  const gone = await stored(client, client.remember("My PIN is 4321"));

  const receipt = await client.forget(gone);
  assert.equal(receipt.memory_id, gone);
  assert.equal(receipt.owner, caller.owner);
  assert.match(receipt.signature, /^[0-9a-f]{128}$/);
  assert.ok(Math.abs(Date.parse(receipt.erased_at) - Date.now()) < 60_000);
  const { receiptKey } = await client.health();
  assert.match(receiptKey, /^[0-9a-f]{64}$/);
  assert.equal(await verifyReceipt(receipt, receiptKey), true);
  assert.equal(await verifyReceipt({ ...receipt, memory_id: kept }, receiptKey), false);

  assert.equal((await refusal(client.get(gone))).code, "not_found");
  assert.deepEqual(await client.forget(gone), receipt, "sent again: the same receipt");
  assert.deepEqual((await client.list()).memories.map((m) => m.id), [kept]);
  const recalled = await client.recall("what is my PIN?");
  assert.ok(!recalled.results.some((r) => r.id === gone));

  // Another owner's memory is as unknown as an unknown id; a malformed id is a 400.
  const stranger = await clientOf(t, await t.newCaller());
  assert.equal((await refusal(stranger.get(kept))).code, "not_found");
  assert.equal((await refusal(stranger.forget(kept))).code, "not_found");
  assert.equal((await refusal(client.get("not-an-id"))).code, "bad_request");
  assert.equal((await client.get(kept)).text, "I live in Porto");
});

Deno.test("SDK: forgetNamespace erases a namespace, with one receipt per memory", async () => {
  await using t = await startTestRelayer();
  const client = await clientOf(t, await t.newCaller());
  const ids = [
    await stored(client, client.remember("Work fact one", { namespace: "work" })),
    await stored(client, client.remember("Work fact two", { namespace: "work" })),
  ];
  const home = await stored(client, client.remember("Home fact", { namespace: "home" }));
  const erased = await client.forgetNamespace("work");
  assert.equal(erased.namespace, "work");
  assert.equal(erased.erased, 2);
  assert.deepEqual(erased.receipts.map((r) => r.memory_id).sort(), ids.toSorted());
  const { receiptKey } = await client.health();
  for (const receipt of erased.receipts) {
    assert.equal(await verifyReceipt(receipt, receiptKey), true);
  }
  assert.deepEqual((await client.list({ namespace: "work" })).memories, []);
  assert.deepEqual((await client.list({ namespace: "home" })).memories.map((m) => m.id), [home]);
});

Deno.test("SDK: update keeps the old expiry, or makes the new version never expire (expiresAt null)", async () => {
  await using t = await startTestRelayer();
  const client = await clientOf(t, await t.newCaller());
  const old = await stored(client, client.remember("Parking spot B12", { ttlSeconds: 600 }));
  const kept = await client.update(old, { text: "Parking spot B14" });
  await client.waitForJob(kept.job_id);
  assert.notEqual((await client.get(kept.job_id)).expires_at, null, "kept");
  const never = await client.update(kept.job_id, { text: "Parking spot B16", expiresAt: null });
  await client.waitForJob(never.job_id);
  assert.equal((await client.get(never.job_id)).expires_at, null);
});

Deno.test("SDK: update and remember with replaces store a version that supersedes the old", async () => {
  await using t = await startTestRelayer();
  const client = await clientOf(t, await t.newCaller());
  const old = await stored(client, client.remember("I am vegetarian", { tags: ["diet"] }));
  const created = (await client.get(old)).created_at;

  const accepted = await client.update(old, { text: "I am vegan" });
  assert.equal(accepted.supersedes, old);
  assert.equal((await client.waitForJob(accepted.job_id)).status, "done");
  const fresh = await client.get(accepted.job_id);
  assert.equal(fresh.text, "I am vegan");
  assert.equal(fresh.supersedes, old);
  assert.deepEqual(fresh.tags, ["diet"], "the old tags are kept unless given");
  assert.equal(fresh.created_at, created, "created_at is the first version's");
  assert.equal((await refusal(client.get(old))).code, "not_found");
  const recalled = await client.recall("am I vegan or vegetarian?");
  assert.deepEqual(recalled.results.map((r) => r.text), ["I am vegan"]);

  const replaced = await client.remember("I am vegan, but I eat eggs", {
    replaces: fresh.id,
    tags: ["food"],
  });
  assert.notEqual(replaced.status, "duplicate");
  if (replaced.status === "duplicate") return;
  assert.equal(replaced.supersedes, fresh.id);
  await client.waitForJob(replaced.job_id);
  const list = (await client.list()).memories;
  assert.deepEqual(list.map((m) => [m.text, m.tags, m.supersedes]), [
    ["I am vegan, but I eat eggs", ["food"], fresh.id],
  ]);
  const refused = await refusal(client.update(old, { text: "x" }));
  assert.deepEqual([refused.code, refused.details.current], ["conflict", replaced.job_id]);
});

Deno.test("SDK: a path with characters a URL parser encodes, or dot segments, is signed as the relayer reads it", async () => {
  await using t = await startTestRelayer();
  const client = await clientOf(t, await t.newCaller());
  for (const namespace of ["o'brien", 'say "hi"', "café", "two words"]) {
    const path = `/api/memories?namespace=${namespace}`;
    const page = await client.request<{ memories: unknown[] }>("GET", path);
    assert.deepEqual(page.memories, [], namespace);
  }
  const whoami = await client.request<{ account_id: string }>("GET", "/api/notes/../whoami");
  assert.ok(whoami.account_id);
  // What that form would cut rather than encode is refused before anything is sent.
  for (
    const path of ["/api/memories?namespace=a#b", "/api/memories?namespace=a ", "/api/\twhoami"]
  ) {
    await assert.rejects(client.request("GET", path), /path holds a #/, JSON.stringify(path));
  }
  // An empty query's "?" is part of what is signed, as sent.
  assert.ok((await client.request<{ account_id: string }>("GET", "/api/whoami?")).account_id);
});
