import assert from "node:assert/strict";
import type { Reranker } from "../src/backends/types.ts";
import { timeOrderedId } from "../src/ids.ts";
import { createLogger } from "../src/log.ts";
import { type Caller, startTestRelayer } from "./fixtures.ts";

async function expectError(res: Response, status: number, code: string, field?: string) {
  assert.equal(res.status, status, `${res.status} != ${status}`);
  assert.match(res.headers.get("content-type") ?? "", /application\/json/);
  assert.ok(res.headers.get("x-request-id"));
  const body = await res.json();
  assert.equal(body.code, code);
  assert.equal(typeof body.error, "string");
  assert.equal(body.request_id, res.headers.get("x-request-id"));
  if (field) assert.match(body.error, new RegExp(field.replace(/[[\]]/g, "\\$&")));
  return body;
}

Deno.test("remember, poll and recall round trip", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const res = await t.signed(alice, "POST", "/api/remember", { text: "I am vegetarian" });
  assert.equal(res.status, 202);
  const { job_id, status } = await res.json();
  assert.equal(status, "pending");
  await t.settle(alice, [job_id]);
  const job = await (await t.signed(alice, "GET", `/api/remember/${job_id}`)).json();
  assert.equal(job.status, "done");
  assert.equal(job.memory_id, job_id);
  assert.equal(job.namespace, "default");
  assert.equal(job.owner, alice.owner);
  assert.ok(job.blob_id);
  assert.equal(job.lease_until, undefined);

  const recall = await t.signed(alice, "POST", "/api/recall", { query: "vegetarian food" });
  assert.equal(recall.status, 200);
  const { results, total } = await recall.json();
  assert.equal(total, 1);
  assert.equal(results[0].text, "I am vegetarian");
  assert.equal(results[0].id, job_id);
  assert.equal(results[0].blob_id, job.blob_id);
  assert.ok(results[0].score > 0 && results[0].score <= 1);
  assert.ok(results[0].distance >= 0);
});

Deno.test("owners and namespaces never see each other's memories", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const bob = await t.newCaller();
  const bulk = await t.signed(alice, "POST", "/api/remember/bulk", {
    items: [{ text: "alice likes tea" }, { text: "alice work notes on tea", namespace: "work" }],
  });
  assert.equal(bulk.status, 202);
  const { job_ids, total } = await bulk.json();
  assert.equal(total, 2);
  await t.settle(alice, job_ids);
  const jobs = await (await t.signed(alice, "POST", "/api/remember/bulk/status", { job_ids }))
    .json();
  assert.deepEqual(jobs.results.map((j: { namespace: string }) => j.namespace), [
    "default",
    "work",
  ]);

  const bobRecall = await (await t.signed(bob, "POST", "/api/recall", { query: "tea" })).json();
  assert.deepEqual(bobRecall, { results: [], total: 0 });
  const bobJob = await t.signed(bob, "GET", `/api/remember/${job_ids[0]}`);
  await expectError(bobJob, 404, "not_found");
  const bobStatus = await (await t.signed(bob, "POST", "/api/remember/bulk/status", { job_ids }))
    .json();
  assert.deepEqual(
    bobStatus.results,
    job_ids.map((job_id: string) => ({ job_id, status: "not_found" })),
  );
  // An id of no job's shape, however long, is unknown too.
  const odd = ["x".repeat(4000), job_ids[0].toUpperCase()];
  const oddStatus = await (await t.signed(alice, "POST", "/api/remember/bulk/status", {
    job_ids: [...odd, job_ids[0]],
  })).json();
  assert.deepEqual(
    oddStatus.results.map((job: { status: string }) => job.status),
    ["not_found", "not_found", "done"],
  );
  await expectError(await t.signed(alice, "GET", `/api/remember/${odd[0]}`), 404, "not_found");

  const work =
    await (await t.signed(alice, "POST", "/api/recall", { query: "tea", namespace: "work" }))
      .json();
  assert.deepEqual(work.results.map((r: { text: string }) => r.text), ["alice work notes on tea"]);
  const def = await (await t.signed(alice, "POST", "/api/recall", { query: "tea" })).json();
  assert.deepEqual(def.results.map((r: { text: string }) => r.text), ["alice likes tea"]);
});

Deno.test("recall lifts the memories remembered right next to a strong match in their thread", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const question = "What did you name the new puppy?";
  const answer = "Biscuit, after my grandmother's cookies.";
  const filler = [
    "The train to Lyon was late again",
    "I prefer tea over coffee in the morning",
    "Our team ships the release on Friday",
    "The garden needs water twice a week",
  ];
  const orders = { together: [question, answer, ...filler], apart: [question, ...filler, answer] };
  for (const [namespace, texts] of Object.entries(orders)) {
    const res = await t.signed(alice, "POST", "/api/remember/bulk", {
      items: texts.map((text) => ({ text, namespace, thread: "chat-1" })),
    });
    await t.settle(alice, (await res.json()).job_ids);
  }
  const scores = async (namespace: string) => {
    const res = await t.signed(alice, "POST", "/api/recall", {
      query: "the puppy's name",
      namespace,
      min_score: 0,
    });
    const { results } = await res.json();
    return new Map<string, number>(
      results.map((r: { text: string; score: number }) => [r.text, r.score]),
    );
  };
  const together = await scores("together");
  const apart = await scores("apart");
  assert.equal(together.size, 6);
  assert.ok(together.get(answer)! > apart.get(answer)!, "next to its question, it gains");
  for (const text of filler.slice(1)) {
    assert.ok(together.get(answer)! > together.get(text)!, "above memories far from a match");
  }
});

Deno.test("recall re-scores its candidates' plaintext with the re-ranker when one is given", async () => {
  const texts = ["I drink green tea", "Our cat is called Biscuit", "The tea shop opens at nine"];
  const asked: string[][] = [];
  const reranker: Reranker = {
    name: "fake",
    rerank(_query, candidates) {
      asked.push(candidates);
      return Promise.resolve(candidates.map((text) => text.includes("Biscuit") ? 1 : 0));
    },
  };
  const recalled = async (options: { reranker?: Reranker }) => {
    await using t = await startTestRelayer(options);
    const alice = await t.newCaller();
    const res = await t.signed(alice, "POST", "/api/remember/bulk", {
      items: texts.map((text) => ({ text })),
    });
    await t.settle(alice, (await res.json()).job_ids);
    const recall = await t.signed(alice, "POST", "/api/recall", { query: "tea" });
    return (await recall.json()).results.map((r: { text: string }) => r.text);
  };
  assert.equal((await recalled({}))[0], texts[0], "by vector and BM25 alone, a tea memory leads");
  assert.equal(asked.length, 0, "no re-ranker, no call");
  assert.equal((await recalled({ reranker }))[0], texts[1], "the re-ranker's choice leads");
  assert.deepEqual(asked.map((a) => a.toSorted()), [texts.toSorted()], "every candidate, once");
});

Deno.test("the re-ranker keeps what it derives only from texts the relayer keeps, and hears when one goes", async () => {
  const texts = ["I drink green tea", "The tea shop opens at nine"];
  const kept: string[][] = [];
  const forgotten: string[] = [];
  const reranker: Reranker = {
    name: "spy",
    rerank(_query, candidates, options) {
      kept.push(candidates.filter((text) => options?.keep?.(text)).toSorted());
      return Promise.resolve(candidates.map(() => 0.5));
    },
    forget: (text) => void forgotten.push(text),
  };
  // Room for both texts, for none, and for one (each takes 2 bytes a character and 128 more).
  for (const textCacheBytes of [undefined, 0, 400]) {
    kept.length = forgotten.length = 0;
    await using t = await startTestRelayer({ reranker, textCacheBytes });
    const alice = await t.newCaller();
    const res = await t.signed(alice, "POST", "/api/remember/bulk", {
      items: texts.map((text) => ({ text })),
    });
    const { job_ids } = await res.json();
    await t.settle(alice, job_ids);
    await t.signed(alice, "POST", "/api/recall", { query: "tea" });
    await t.signed(alice, "DELETE", `/api/memories/${job_ids[0]}`);
    if (textCacheBytes === 0) {
      assert.deepEqual(kept, [[]], "no text cache: nothing kept");
      assert.deepEqual(forgotten, []);
    } else if (textCacheBytes === 400) {
      assert.equal(kept[0].length, 1, "only the text the cache still holds");
      const pushedOut = texts.find((text) => !kept[0].includes(text));
      const erased = kept[0][0] === texts[0] ? [texts[0]] : [];
      // The second memory stored pushes the first out; the recall's read pushes another out.
      assert.deepEqual(
        forgotten,
        [texts[0], pushedOut, ...erased],
        "pushed out when stored, when read, then erased: forgotten",
      );
    } else {
      assert.deepEqual(kept, [texts.toSorted()], "the local cipher's texts are kept");
      assert.deepEqual(forgotten, [texts[0]], "the erased text is forgotten");
    }
  }
});

Deno.test("the same client ciphertext again, from any account, is a 409 that leaves the first memory's blob", async () => {
  await using t = await startTestRelayer();
  const [alice, bob] = [await t.newCaller(), await t.newCaller()];
  const vector = Array.from({ length: t.vectors.dimensions }, (_, i) => (i === 3 ? 1 : 0));
  const manual = (caller: Caller, namespace: string) =>
    t.signed(caller, "POST", "/api/remember/manual", {
      encrypted_data: btoa("the same ciphertext"),
      vector,
      namespace,
    });
  const first = await (await manual(alice, "one")).json();
  await expectError(await manual(alice, "two"), 409, "conflict");
  await expectError(await manual(bob, "one"), 409, "conflict");
  for (const [caller, namespace] of [[alice, "two"], [bob, "one"]] as const) {
    const found = await t.signed(caller, "POST", "/api/recall/manual", { vector, namespace });
    assert.equal((await found.json()).total, 0, "the refused memory was not indexed");
  }
  assert.equal(
    new TextDecoder().decode((await t.blobs.get(first.blob_id))!),
    "the same ciphertext",
  );
  const listed = await t.blobs.list(alice.owner, "one");
  assert.deepEqual(listed.map((entry) => entry.meta.memoryId), [first.id]);
});

Deno.test("manual remember and recall use the client's vector and ciphertext", async () => {
  const logs: string[] = [];
  await using t = await startTestRelayer({ logger: createLogger("debug", (l) => logs.push(l)) });
  const alice = await t.newCaller();
  const dims = t.vectors.dimensions;
  const vector = Array.from({ length: dims }, (_, i) => (i === 3 ? 1 : 0));
  const stored = await t.signed(alice, "POST", "/api/remember/manual", {
    encrypted_data: btoa("client ciphertext"),
    vector,
    namespace: "manual",
  });
  assert.equal(stored.status, 200);
  const { id, blob_id, owner, namespace } = await stored.json();
  assert.equal(owner, alice.owner);
  assert.equal(namespace, "manual");
  assert.equal(new TextDecoder().decode((await t.blobs.get(blob_id))!), "client ciphertext");
  const found =
    await (await t.signed(alice, "POST", "/api/recall/manual", { vector, namespace: "manual" }))
      .json();
  assert.equal(found.total, 1);
  assert.deepEqual(Object.keys(found.results[0]).sort(), [
    "blob_id",
    "created_at",
    "distance",
    "id",
  ]);
  assert.equal(found.results[0].id, id);
  assert.ok(Math.abs(found.results[0].distance) < 1e-6);

  // Text reads know the relayer cannot read it: text null, nothing tried, nothing logged.
  const recalled = await t.signed(alice, "POST", "/api/recall", {
    query: "client ciphertext",
    namespace: "manual",
    min_score: 0,
  });
  assert.deepEqual((await recalled.json()).results, []);
  const listed = await (await t.signed(alice, "GET", "/api/memories?namespace=manual")).json();
  assert.deepEqual(
    listed.memories.map((
      m: { id: string; text: null; manual: boolean },
    ) => [m.id, m.text, m.manual]),
    [[id, null, true]],
  );
  assert.equal((await (await t.signed(alice, "GET", `/api/memories/${id}`)).json()).text, null);
  assert.deepEqual(logs.filter((line) => /decrypt/.test(line)), []);
});

Deno.test("a client-encrypted memory stored before such memories were marked is shown as one", async () => {
  const lines: string[] = [];
  await using t = await startTestRelayer({
    logger: createLogger("info", (line) => lines.push(line)),
  });
  const alice = await t.newCaller();
  // As an older version indexed it: the client's bytes, and a row without the manual mark.
  const id = timeOrderedId();
  const place = { owner: alice.owner, namespace: "old", memoryId: id, createdAt: Date.now() };
  const blobId = await t.blobs.put(new Uint8Array([0xc1, 0x1e, 0x47]), place);
  await t.vectors.upsert([{
    id,
    owner: alice.owner,
    namespace: "old",
    blobId,
    vector: Array(t.vectors.dimensions).fill(0.25),
    createdAt: place.createdAt,
  }]);
  for (let read = 0; read < 3; read++) {
    const listed = await (await t.signed(alice, "GET", "/api/memories?namespace=old")).json();
    assert.deepEqual(
      listed.memories.map((
        m: { id: string; text: null; manual: boolean },
      ) => [m.id, m.text, m.manual]),
      [[id, null, true]],
    );
  }
  assert.equal(
    lines.filter((line) => /decrypt/.test(line)).length,
    1,
    "one warning, not one a read",
  );
});

Deno.test("restore re-indexes every blob missing from the index and skips the rest", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const texts = ["one fact", "two facts", "three facts"];
  const { job_ids } = await (await t.signed(alice, "POST", "/api/remember/bulk", {
    items: texts.map((text) => ({ text })),
  })).json();
  await t.settle(alice, job_ids);
  await t.vectors.delete(job_ids.slice(0, 2));
  const first =
    await (await t.signed(alice, "POST", "/api/restore", { namespace: "default", limit: 1 }))
      .json();
  assert.deepEqual(first, {
    restored: 1,
    skipped: 1,
    total: 3,
    remaining: 1,
    truncated: true,
    namespace: "default",
    owner: alice.owner,
  });
  const second = await (await t.signed(alice, "POST", "/api/restore", { namespace: "default" }))
    .json();
  assert.deepEqual(second, {
    restored: 1,
    skipped: 2,
    total: 3,
    remaining: 0,
    truncated: false,
    namespace: "default",
    owner: alice.owner,
  });
  assert.equal(await t.vectors.count({ owner: alice.owner }), 3);
  const recalled = await (await t.signed(alice, "POST", "/api/recall", { query: "facts" })).json();
  assert.deepEqual(recalled.results.map((r: { text: string }) => r.text).sort(), texts.toSorted());
});

Deno.test("validation errors name the field and never reach a backend", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const cases: [string, unknown, string][] = [
    ["/api/remember", {}, "text"],
    ["/api/remember", { text: 5 }, "text"],
    ["/api/remember", { text: "   " }, "text"],
    ["/api/remember", { text: "x".repeat(1024 * 1024 + 1) }, "text"],
    ["/api/remember", { text: "ok", namespace: "" }, "namespace"],
    ["/api/remember", { text: "ok", namespace: "a\nb" }, "namespace"],
    ["/api/remember", { text: "ok", namespace: "n".repeat(257) }, "namespace"],
    ["/api/remember", { text: "ok", namespace: 7 }, "namespace"],
    ["/api/remember", { text: "ok", namespace: " " }, "namespace"],
    ["/api/remember", { text: "ok", namespace: "work " }, "namespace"],
    ["/api/remember", { text: "ok", namespace: "\u202eelpmaxe" }, "namespace"],
    ["/api/remember", { text: "ok", tags: ["\u2066diet"] }, "tags[0]"],
    ["/api/remember/bulk", { items: [{ text: "a", namespace: " work" }] }, "namespace"],
    ["/api/remember/bulk", { items: [{ text: "a", tags: ["x", "d\u200biet"] }] }, "tags[1]"],
    ["/api/remember/bulk", {}, "items"],
    ["/api/remember/bulk", { items: [] }, "items"],
    ["/api/remember/bulk", { items: Array(21).fill({ text: "x" }) }, "items"],
    ["/api/remember/bulk", { items: ["x"] }, "items[0]"],
    ["/api/remember/bulk", { items: [{ text: "a" }, { text: "" }] }, "text"],
    ["/api/remember/bulk/status", { job_ids: [] }, "job_ids"],
    ["/api/remember/bulk/status", { job_ids: Array(101).fill("x") }, "job_ids"],
    ["/api/remember/bulk/status", { job_ids: [1] }, "job_ids[0]"],
    ["/api/recall", {}, "query"],
    ["/api/recall", { query: "q", limit: 0 }, "limit"],
    ["/api/recall", { query: "q", limit: 101 }, "limit"],
    ["/api/recall", { query: "q", limit: 2.5 }, "limit"],
    ["/api/recall", { query: "q", limit: "5" }, "limit"],
    ["/api/remember/manual", { vector: [1] }, "encrypted_data"],
    ["/api/remember/manual", { encrypted_data: "***", vector: [1] }, "encrypted_data"],
    ["/api/remember/manual", { encrypted_data: "YQ==", vector: [1, 2] }, "vector"],
    ["/api/recall/manual", { vector: "no" }, "vector"],
    ["/api/recall/manual", { vector: Array(t.vectors.dimensions).fill(null) }, "vector"],
    ["/api/recall/manual", { vector: Array(t.vectors.dimensions).fill(0), limit: 500 }, "limit"],
    ["/api/restore", {}, "namespace"],
    ["/api/restore", { namespace: "default", limit: 501 }, "limit"],
    ["/api/restore", { namespace: "default", limit: 0 }, "limit"],
  ];
  for (const [path, body, field] of cases) {
    await expectError(await t.signed(alice, "POST", path, body), 400, "bad_request", field);
  }
  for (const path of ["/api/remember", "/api/recall", "/api/restore"]) {
    await expectError(await t.signed(alice, "POST", path, "{not json"), 400, "bad_request");
    await expectError(await t.signed(alice, "POST", path, "[1]"), 400, "bad_request");
    await expectError(
      await t.signed(alice, "POST", path, { text: "x" }, { "content-type": "text/plain" }),
      415,
      "unsupported_media_type",
    );
  }
  await expectError(await t.signed(alice, "GET", "/api/remember/not-a-job"), 404, "not_found");
  // A namespace stored before those were refused is still read and erased by its name.
  for (
    const [method, path] of [["GET", "/api/memories?namespace=work%20"], [
      "DELETE",
      "/api/memories?namespace=work%20&confirm=work%20",
    ]]
  ) {
    assert.equal((await t.signed(alice, method, path)).status, 200, `${method} ${path}`);
  }
  // Text that is not valid Unicode (half a surrogate pair) would come back changed: refused.
  for (
    const body of [
      String.raw`{"text":"I like tea \ud800"}`,
      String.raw`{"text":"I like tea","namespace":"n\udfff"}`,
      String.raw`{"items":[{"text":"fine"},{"text":"x","tags":["\udbff"]}]}`,
    ]
  ) {
    const path = body.startsWith(`{"items"`) ? "/api/remember/bulk" : "/api/remember";
    const err = await expectError(await t.signed(alice, "POST", path, body), 400, "bad_request");
    assert.match(
      err.error,
      /^Request body is not valid Unicode: a string holds half of a UTF-16 surrogate/,
    );
  }
  // A whole pair, escaped, is a valid character.
  const pair = await t.signed(alice, "POST", "/api/remember", String.raw`{"text":"\ud83d\ude00"}`);
  assert.equal(pair.status, 202);
  await t.settle(alice, [(await pair.json()).job_id]);
  assert.equal(await t.vectors.count(), 1);
});

Deno.test("oversized bodies are refused with 413 whether declared or streamed", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const big = JSON.stringify({ text: "x".repeat(2 * 1024 * 1024) });
  await expectError(await t.signed(alice, "POST", "/api/remember", big), 413, "payload_too_large");
  const { signRequest } = await import("../src/auth/signing.ts");
  const streamed = async (headers: HeadersInit) => {
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 65536;
        controller.enqueue(new Uint8Array(65536));
        if (sent > 64 * 1024 * 1024) controller.close();
      },
    });
    const res = await t.send("POST", "/api/remember", {
      body: stream,
      headers: { "content-type": "application/json", ...headers },
    });
    return { res, sent: () => sent };
  };
  // Headers that pass the checks made before the body is read (the signature covers no body).
  const signed = await signRequest({ key: alice.key, method: "POST", path: "/api/remember" });
  const endless = await streamed(signed);
  await expectError(endless.res, 413, "payload_too_large");
  assert.ok(endless.sent() < 4 * 1024 * 1024, `read ${endless.sent()} bytes`);
  // Unsigned: refused on its headers, before its body is read (the stream's one pull is its own).
  const unsigned = await streamed({});
  await expectError(unsigned.res, 401, "unauthorized");
  assert.ok(unsigned.sent() <= 65536, `read ${unsigned.sent()} bytes`);
});

Deno.test("every auth failure is a 401 with a reason, inactive accounts 403", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const body = { query: "q" };
  const reasons: [HeadersInit, string][] = [
    [{ "x-signature": "" }, "missing_headers"],
    [{ "x-timestamp": "yesterday" }, "bad_timestamp"],
    [{ "x-timestamp": String(Math.floor(Date.now() / 1000) - 400) }, "stale_timestamp"],
    [{ "x-signature": "ab".repeat(64) }, "bad_signature"],
  ];
  for (const [headers, reason] of reasons) {
    const err = await expectError(
      await t.signed(alice, "POST", "/api/recall", body, headers),
      401,
      "unauthorized",
    );
    assert.equal(err.reason, reason);
    if (reason === "stale_timestamp") assert.equal(typeof err.server_time, "number");
  }
  const stranger = await t.newCaller();
  t.directory.remove(stranger.key.publicKey);
  const unknown = await expectError(
    await t.signed(stranger, "POST", "/api/recall", body, {
      "x-account-id": stranger.accountId.toUpperCase().replace("0X", "0x"),
    }),
    401,
    "unauthorized",
  );
  assert.equal(unknown.reason, "unknown_key");
  assert.equal(
    unknown.error,
    `This public key is not a delegate key of account ${stranger.accountId} (the x-account-id ` +
      "it was sent with)",
  );
  // A key of small order that made it into a directory (Sui has no such check): anyone can
  // sign for it without a private key (R the identity, S zero), so nothing is taken from it.
  const forger = { ...alice, key: { privateKey: "", publicKey: "01" + "00".repeat(31) } };
  const identitySignature = () => Uint8Array.fromHex("01" + "00".repeat(63));
  t.directory.add({ accountId: alice.accountId, owner: alice.owner, active: true }, [
    forger.key.publicKey,
  ]);
  const forged = await expectError(
    await t.signed(
      { ...forger, key: { ...forger.key, sign: identitySignature } },
      "POST",
      "/api/recall",
      body,
    ),
    401,
    "unauthorized",
  );
  assert.equal(forged.reason, "bad_signature");
  const unsigned = await t.send("POST", "/api/recall", {
    body: "{}",
    headers: { "content-type": "application/json" },
  });
  assert.equal((await expectError(unsigned, 401, "unauthorized")).reason, "missing_headers");
  const inactive = await t.newCaller({ active: false });
  await expectError(await t.signed(inactive, "POST", "/api/recall", body), 403, "forbidden");
});

Deno.test("the signed path is the path the router reads, with the query as sent: an empty one's '?' included", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const { signRequest } = await import("../src/auth/signing.ts");
  for (
    const [signed, sent, status] of [
      ["/api/whoami?", "/api/whoami?", 200],
      ["/api/whoami", "/api/whoami", 200],
      ["/api/whoami", "/api/whoami?", 401],
      ["/api/memories?", "/api/memories?", 200],
      // Signed as the router reads it, not as the bytes of a path that is not normal.
      ["/api/whoami", "/api/x/%2e%2e/whoami", 200],
      ["/api/x/%2e%2e/whoami", "/api/x/%2e%2e/whoami", 401],
    ] as const
  ) {
    const headers = await signRequest({ key: alice.key, method: "GET", path: signed });
    const response = await t.send("GET", sent, { headers });
    assert.equal(response.status, status, `signed ${signed}, sent ${sent}`);
    await response.body?.cancel();
  }
});

Deno.test("a signed POST without a nonce cannot be replayed; GET polls may repeat", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const { signRequest } = await import("../src/auth/signing.ts");
  const payload = JSON.stringify({ text: "only once" });
  const headers = {
    ...(await signRequest({
      key: alice.key,
      method: "POST",
      path: "/api/remember",
      body: payload,
    })),
    "content-type": "application/json",
  };
  const send = () => t.send("POST", "/api/remember", { headers, body: payload });
  assert.equal((await send()).status, 202);
  await expectError(await send(), 409, "replayed_request");
  const getHeaders = await signRequest({
    key: alice.key,
    method: "GET",
    path: "/api/remember/00000000-0000-4000-8000-000000000000",
  });
  for (let i = 0; i < 2; i++) {
    await expectError(
      await t.send("GET", "/api/remember/00000000-0000-4000-8000-000000000000", {
        headers: getHeaders,
      }),
      404,
      "not_found",
    );
  }
});

Deno.test("public routes, unknown routes, wrong methods, and routes whose backend is absent", async () => {
  await using t = await startTestRelayer({ packageId: "0xabc" });
  const health = await t.send("GET", "/health");
  assert.equal(health.status, 200);
  const h = await health.json();
  assert.equal(h.status, "ok");
  assert.equal(h.packageId, "0xabc");
  assert.deepEqual(Object.keys(h.backends).sort(), [
    "blobStore",
    "chain",
    "cipher",
    "embedder",
    "llm",
    "vectorStore",
  ]);
  assert.equal(h.backends.llm, "local-extractive");
  const version = await (await t.send("GET", "/version")).json();
  assert.deepEqual(Object.keys(version).sort(), [
    "apiVersion",
    "minClientVersion",
    "minSupportedSdk",
    "relayerVersion",
    "version",
  ]);
  assert.match(
    version.apiVersion,
    /^1\.\d+\.\d+$/,
    "a semantic version, as the reference SDKs read it",
  );
  // What the reference SDKs read before their first signed call: the package, and a node that
  // says it is at version 1 (this relayer's own, in embedded mode).
  const config = await (await t.send("GET", "/config")).json();
  assert.equal(config.network, "local");
  const sui = await t.send("POST", new URL(config.suiRpcUrl).pathname, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method: "sui_getObject",
      params: [config.packageId, {}],
    }),
  });
  assert.deepEqual(await sui.json(), {
    jsonrpc: "2.0",
    id: 7,
    result: { data: { objectId: config.packageId, version: "1" } },
  });
  const other = await t.send("POST", new URL(config.suiRpcUrl).pathname, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 8, method: "sui_getObject", params: ["0x2"] }),
  });
  assert.equal((await other.json()).error.code, -32601);
  await expectError(await t.send("GET", "/nope"), 404, "not_found");
  const wrong = await t.send("DELETE", "/api/recall");
  assert.equal(wrong.headers.get("allow"), "POST");
  await expectError(wrong, 405, "method_not_allowed");
  // A route's own path is not a job id.
  const bulk = await t.send("GET", "/api/remember/bulk");
  assert.equal(bulk.headers.get("allow"), "POST");
  await expectError(bulk, 405, "method_not_allowed");
  await using bare = await startTestRelayer({ llm: undefined });
  for (const path of ["/api/analyze", "/api/ask"]) {
    const caller = await bare.newCaller();
    await expectError(
      await bare.signed(caller, "POST", path, { text: "x", question: "x" }),
      501,
      "not_implemented",
    );
  }
  // Without a sidecar, its routes are unavailable rather than unknown (to MCP clients, in
  // JSON-RPC).
  const json = { headers: { "content-type": "application/json" }, body: "{}" };
  for (const path of ["/sponsor", "/sponsor/execute"]) {
    await expectError(await t.send("POST", path, json), 503, "backend_unavailable");
  }
  for (
    const [method, path] of [
      ["GET", "/api/mcp/sse"],
      ["POST", "/api/mcp/messages"],
      ["GET", "/api/mcp"],
      ["POST", "/api/mcp"],
      ["DELETE", "/api/mcp"],
    ]
  ) {
    const res = await t.send(method, path);
    assert.equal(res.status, 503, `${method} ${path}`);
    assert.match((await res.json()).error.message, /^Cannot reach the MCP sidecar/);
  }
  assert.equal(h.sidecar, "down");
  assert.equal(h.mcpSessions, 0);
  const traced = await t.send("GET", "/health", { headers: { "x-request-id": "trace-123" } });
  await traced.body?.cancel();
  assert.equal(traced.headers.get("x-request-id"), "trace-123");
  const bogus = await t.send("GET", "/health", {
    headers: { "x-request-id": "bad id with spaces" },
  });
  await bogus.body?.cancel();
  assert.notEqual(bogus.headers.get("x-request-id"), "bad id with spaces");
});
