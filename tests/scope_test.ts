/**
 * Scoped delegate keys through the relayer's handler: operations and namespaces are enforced
 * on every memory route before any work, refusals name the missing scope, and keys without a
 * scope keep full access.
 */
import assert from "node:assert/strict";
import { jsonOf as json, rememberAll as remember, startTestRelayer } from "./fixtures.ts";

async function refusal(res: Response) {
  const body = await json(res, 403);
  assert.equal(body.code, "forbidden");
  assert.equal(body.reason, "missing_scope");
  return { reason: body.reason, scope: body.scope };
}

Deno.test("a read-only key recalls, lists and gets, but cannot remember, update or erase", async () => {
  await using t = await startTestRelayer();
  const writer = await t.newCaller();
  const [id] = await remember(t, writer, [{ text: "I am vegetarian" }]);
  const reader = await t.addKey(writer, { label: "reader", scope: { operations: ["read"] } });

  const recalled = await json(
    await t.signed(reader, "POST", "/api/recall", { query: "vegetarian" }),
  );
  assert.deepEqual(recalled.results.map((r: { id: string }) => r.id), [id]);
  await json(await t.signed(reader, "GET", "/api/memories"));
  await json(await t.signed(reader, "GET", `/api/memories/${id}`));

  const writes: [string, string, unknown?][] = [
    ["POST", "/api/remember", { text: "I keep bees" }],
    ["POST", "/api/remember/bulk", { items: [{ text: "I keep bees" }] }],
    ["PUT", `/api/memories/${id}`, { text: "I am vegan" }],
    ["POST", "/api/restore", { namespace: "default" }],
  ];
  for (const [method, path, body] of writes) {
    assert.deepEqual(await refusal(await t.signed(reader, method, path, body)), {
      reason: "missing_scope",
      scope: "write",
    });
  }
  const erases: [string, string][] = [
    ["DELETE", `/api/memories/${id}`],
    ["DELETE", "/api/memories?namespace=default&confirm=default"],
  ];
  for (const [method, path] of erases) {
    assert.equal((await refusal(await t.signed(reader, method, path))).scope, "erase");
  }
  // A correction erases the version it replaces: read and write are not enough.
  const writer2 = await t.addKey(writer, { scope: { operations: ["read", "write"] } });
  for (
    const [method, path, body] of [
      ["PUT", `/api/memories/${id}`, { text: "I am vegan" }],
      ["POST", "/api/remember", { text: "I am vegan", replaces: id }],
    ] as const
  ) {
    assert.equal((await refusal(await t.signed(writer2, method, path, body))).scope, "erase");
  }
  // Nothing was changed by the refused requests.
  const listed = await json(await t.signed(writer, "GET", "/api/memories"));
  assert.deepEqual(listed.memories.map((m: { text: string }) => m.text), ["I am vegetarian"]);
});

Deno.test("a write-only key remembers but cannot recall or read", async () => {
  await using t = await startTestRelayer();
  const owner = await t.newCaller();
  const writer = await t.addKey(owner, { scope: { operations: ["write"] } });
  const [id] = await remember(t, writer, [{ text: "I commute by bicycle" }]);
  assert.equal(
    (await refusal(await t.signed(writer, "POST", "/api/recall", { query: "bicycle" }))).scope,
    "read",
  );
  assert.equal((await refusal(await t.signed(writer, "GET", `/api/memories/${id}`))).scope, "read");
  // A duplicate is named, but its text is not shown to a key that may not read it.
  const again = await json(
    await t.signed(writer, "POST", "/api/remember", { text: "I commute by bicycle" }),
  );
  assert.deepEqual(again, { status: "duplicate", duplicate_of: id, job_id: id });
  const recalled = await json(await t.signed(owner, "POST", "/api/recall", { query: "bicycle" }));
  assert.deepEqual(recalled.results.map((r: { id: string }) => r.id), [id]);
});

Deno.test("a key scoped to namespace a is refused on b by name, and knows no id of b", async () => {
  await using t = await startTestRelayer();
  const owner = await t.newCaller();
  const [inB] = await remember(t, owner, [{ text: "My sister lives in Lisbon", namespace: "b" }]);
  const scoped = await t.addKey(owner, { scope: { namespaces: ["a"] } });
  const [inA] = await remember(t, scoped, [{ text: "I keep bees", namespace: "a" }]);

  const onB: [string, string, unknown?][] = [
    ["POST", "/api/remember", { text: "I keep goats", namespace: "b" }],
    ["POST", "/api/remember/bulk", {
      items: [{ text: "x", namespace: "a" }, { text: "y", namespace: "b" }],
    }],
    ["POST", "/api/recall", { query: "sister", namespace: "b" }],
    ["GET", "/api/memories?namespace=b"],
    ["DELETE", "/api/memories?namespace=b&confirm=b"],
    ["POST", "/api/remember", { text: "I keep goats" }], // the default namespace is not "a"
  ];
  for (const [method, path, body] of onB) {
    const res = await t.signed(scoped, method, path, body);
    const { error } = await res.clone().json();
    const details = await refusal(res);
    assert.equal(details.scope, "namespace", `${method} ${path}`);
    const inDefault = path === "/api/remember" && !(body as { namespace?: string }).namespace;
    const named = inDefault ? "default" : "b";
    assert.equal(error, `This delegate key may not use namespace "${named}": it may use only "a"`);
  }
  // An id of b is answered exactly as an unknown id: its namespace is not told.
  const unknownId = crypto.randomUUID();
  const byId: [string, string, unknown?][] = [
    ["GET", "/api/memories/ID"],
    ["PUT", "/api/memories/ID", { text: "My sister lives in Porto" }],
    ["DELETE", "/api/memories/ID"],
    ["POST", "/api/remember", { text: "My sister lives in Porto", namespace: "a", replaces: "ID" }],
  ];
  for (const [method, path, body] of byId) {
    const answer = async (id: string) => {
      const res = await t.signed(
        scoped,
        method,
        path.replace("ID", id),
        body && JSON.parse(
          JSON.stringify(body).replace("ID", id),
        ),
      );
      const { error, code } = await res.json();
      return { status: res.status, error, code };
    };
    assert.deepEqual(await answer(inB), await answer(unknownId), `${method} ${path}`);
    assert.equal((await answer(inB)).status, 404);
  }
  const listedB = await json(await t.signed(owner, "GET", "/api/memories?namespace=b"));
  assert.deepEqual(listedB.memories.map((m: { text: string }) => m.text), [
    "My sister lives in Lisbon",
  ]);
  const listedA = await json(await t.signed(scoped, "GET", "/api/memories?namespace=a"));
  assert.deepEqual(listedA.memories.map((m: { id: string }) => m.id), [inA]);
  await json(await t.signed(scoped, "DELETE", `/api/memories/${inA}`));
});

Deno.test("the owner key and keys without a scope keep full access", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const [id] = await remember(t, caller, [{ text: "I am vegetarian", namespace: "work" }]);
  const asOwner = { ...caller, key: caller.ownerKey };
  await json(await t.signed(asOwner, "GET", `/api/memories/${id}`));
  await json(await t.signed(caller, "DELETE", `/api/memories/${id}`));
});

Deno.test("an expired key is refused at once", async () => {
  await using t = await startTestRelayer();
  const owner = await t.newCaller();
  const expired = await t.addKey(owner, { expiresAt: Date.now() - 1 });
  const res = await t.signed(expired, "POST", "/api/recall", { query: "anything" });
  const body = await json(res, 401);
  assert.equal(body.reason, "expired_key");
});

Deno.test("a key scoped to namespace a cannot follow the remember jobs of b: they are unknown to it", async () => {
  await using t = await startTestRelayer();
  const owner = await t.newCaller();
  const [inB] = await remember(t, owner, [{ text: "My sister lives in Lisbon", namespace: "b" }]);
  const scoped = await t.addKey(owner, { scope: { namespaces: ["a"] } });
  const [inA] = await remember(t, scoped, [{ text: "I keep bees", namespace: "a" }]);
  const job = await json(await t.signed(scoped, "GET", `/api/remember/${inB}`), 404);
  const unknown = await json(
    await t.signed(scoped, "GET", `/api/remember/${crypto.randomUUID()}`),
    404,
  );
  assert.deepEqual([job.code, job.error], [unknown.code, unknown.error]);
  const status = await json(
    await t.signed(scoped, "POST", "/api/remember/bulk/status", { job_ids: [inB, inA] }),
  );
  assert.deepEqual(status.results[0], { job_id: inB, status: "not_found" });
  assert.equal(status.results[1].status, "done");
});

Deno.test("a correction by replaces is checked against the namespace of the memory it replaces", async () => {
  await using t = await startTestRelayer();
  const owner = await t.newCaller();
  const [inWork] = await remember(t, owner, [{ text: "I keep bees", namespace: "work" }]);
  const scoped = await t.addKey(owner, { scope: { namespaces: ["work"] } });
  const res = await t.signed(scoped, "POST", "/api/remember", {
    text: "I keep goats",
    replaces: inWork,
  });
  assert.equal((await json(res, 202)).supersedes, inWork);
});
