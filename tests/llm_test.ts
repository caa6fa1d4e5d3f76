/** Analyze and ask through the relayer, on the offline extractive LLM. */
import assert from "node:assert/strict";
import { NO_MEMORIES_ANSWER } from "../src/services/llm.ts";
import { startTestRelayer } from "./fixtures.ts";
import { GloveEmbedder } from "../plugins/glove_embedder/mod.ts";
import { MemoryVectorStore } from "../src/backends/memory.ts";
import { TEST_MODELS_DIR } from "./relayer_process.ts";

const PARAGRAPH = "Hi! Thanks for the help yesterday. I'm vegetarian and I never eat fish. " +
  "What should we cook tonight? My daughter is called Ana. lol, the weather is awful. " +
  "I work night shifts at the hospital. He said the bus was late.";

Deno.test("analyze: facts become memories; asking twice stores nothing twice", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const res = await t.signed(alice, "POST", "/api/analyze", {
    text: PARAGRAPH,
    namespace: "life",
  });
  assert.equal(res.status, 202);
  const analysis = await res.json();
  assert.deepEqual(analysis.facts.map((f: { text: string }) => f.text), [
    "Vegetarian and never eats fish",
    "Daughter is called Ana",
    "Works night shifts at the hospital",
  ]);
  assert.equal(analysis.fact_count, 3);
  assert.equal(analysis.status, "pending");
  assert.equal(analysis.owner, alice.owner);
  assert.deepEqual(analysis.facts.map((f: { job_id: string }) => f.job_id), analysis.job_ids);
  await t.settle(alice, analysis.job_ids);

  for (const [query, expected] of [["fish", "never eats fish"], ["daughter", "Ana"]]) {
    const found = await t.signed(alice, "POST", "/api/recall", { query, namespace: "life" });
    const { results } = await found.json();
    assert.match(results[0].text, new RegExp(expected));
  }

  const again = await (await t.signed(alice, "POST", "/api/analyze", {
    text: PARAGRAPH,
    namespace: "life",
  })).json();
  assert.deepEqual(again.job_ids, []);
  assert.equal(again.fact_count, 3);
  for (const fact of again.facts) {
    assert.equal(fact.status, "duplicate");
    assert.equal(fact.job_id, null);
    assert.ok(analysis.job_ids.includes(fact.duplicate_of), "names the memory it repeats");
  }
  // Another namespace does not count as a duplicate.
  const elsewhere = await (await t.signed(alice, "POST", "/api/analyze", {
    text: "I'm vegetarian and I never eat fish.",
    namespace: "other",
  })).json();
  assert.equal(elsewhere.facts[0].status, "pending");
  await t.settle(alice, elsewhere.job_ids);

  const repeated = await (await t.signed(alice, "POST", "/api/analyze", {
    text: "I love tea. Honestly, I love tea!",
  })).json();
  assert.deepEqual(repeated.facts.map((f: { status: string }) => f.status), ["pending"]);
  await t.settle(alice, repeated.job_ids);

  const nothing = await (await t.signed(alice, "POST", "/api/analyze", {
    text: "Hello! How are you today?",
  })).json();
  assert.deepEqual(
    { ...nothing, owner: undefined },
    { job_ids: [], facts: [], fact_count: 0, status: "pending", owner: undefined },
  );
});

Deno.test("analyze: a fact in other words is a duplicate; one that says the opposite, or swaps its places, is not", async () => {
  // The default embedder, whose vectors of such facts are nearly the same.
  const glove = await GloveEmbedder.open({ cacheDir: TEST_MODELS_DIR });
  await using t = await startTestRelayer({
    embedder: glove,
    vectors: new MemoryVectorStore(glove.dimensions),
  });
  const alice = await t.newCaller();
  const analyze = async (text: string) => {
    const analysis = await (await t.signed(alice, "POST", "/api/analyze", { text })).json();
    if (analysis.job_ids.length) await t.settle(alice, analysis.job_ids);
    return analysis.facts.map((f: { text: string; status: string }) => [f.text, f.status]);
  };
  const stored = await (await t.signed(alice, "POST", "/api/remember", {
    text: "I work night shifts at the hospital",
  })).json();
  await t.settle(alice, [stored.job_id]);
  assert.deepEqual(await analyze("I work night shifts at the hospital."), [
    ["Works night shifts at the hospital", "duplicate"],
  ]);
  await analyze("I like spicy food. I moved from Berlin to Lisbon.");
  assert.deepEqual(await analyze("I do not like spicy food. I moved from Lisbon to Berlin."), [
    ["Does not like spicy food", "pending"],
    ["Moved from Lisbon to Berlin", "pending"],
  ]);
  // "My sister" and "Sister", "have" and "has", "do" and "does", "go" and "goes" name the same.
  const first = await (await t.signed(alice, "POST", "/api/remember/bulk", {
    items: ["My sister lives in Berlin", "I have two cats", "I go swimming on Sundays"]
      .map((text) => ({ text })),
  })).json();
  await t.settle(alice, first.job_ids);
  assert.deepEqual(
    await analyze("My sister lives in Berlin. I have two cats. I go swimming on Sundays."),
    [
      ["Sister lives in Berlin", "duplicate"],
      ["Has two cats", "duplicate"],
      ["Goes swimming on Sundays", "duplicate"],
    ],
  );
  // Two facts of one analysis in other words: the second is a duplicate of the first.
  assert.deepEqual(await analyze("I like cake. I like cakes."), [
    ["Likes cake", "pending"],
    ["Likes cakes", "duplicate"],
  ]);
});

Deno.test("ask: answers from recalled memories, and says so when there are none", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const accepted = await (await t.signed(alice, "POST", "/api/remember/bulk", {
    items: [{ text: "My sister lives in Berlin" }, { text: "I have two cats" }],
  })).json();
  await t.settle(alice, accepted.job_ids);

  const res = await t.signed(alice, "POST", "/api/ask", { question: "Where does my sister live?" });
  assert.equal(res.status, 200);
  const answer = await res.json();
  assert.match(answer.answer, /"My sister lives in Berlin"/);
  assert.equal(answer.memories_used, answer.memories.length);
  assert.ok(answer.memories_used >= 1 && answer.memories_used <= 5);
  assert.deepEqual(
    Object.keys(answer.memories[0]).sort(),
    [
      "blob_id",
      "created_at",
      "distance",
      "expires_at",
      "id",
      "remembered_by",
      "score",
      "tags",
      "text",
    ],
  );

  const limited = await (await t.signed(alice, "POST", "/api/ask", {
    question: "cats or sister?",
    limit: 1,
  })).json();
  assert.equal(limited.memories_used, 1);

  const empty = await (await t.signed(alice, "POST", "/api/ask", {
    question: "Where does my sister live?",
    namespace: "work",
  })).json();
  assert.deepEqual(empty, { answer: NO_MEMORIES_ANSWER, memories_used: 0, memories: [] });
});

Deno.test("analyze and ask: bad input gets the JSON error body", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const cases: [string, unknown, number, RegExp][] = [
    ["/api/analyze", {}, 400, /text/],
    ["/api/analyze", { text: "   " }, 400, /text/],
    ["/api/analyze", { text: 42 }, 400, /text/],
    ["/api/analyze", { text: "x".repeat(64 * 1024 + 1) }, 400, /text/],
    ["/api/analyze", { text: "I like tea", namespace: "" }, 400, /namespace/],
    ["/api/ask", {}, 400, /question/],
    ["/api/ask", { question: ["a"] }, 400, /question/],
    ["/api/ask", { question: "x", limit: 0 }, 400, /limit/],
    ["/api/ask", { question: "x", limit: 101 }, 400, /limit/],
    ["/api/ask", { question: "x", limit: "5" }, 400, /limit/],
  ];
  for (const [path, body, status, field] of cases) {
    const res = await t.signed(alice, "POST", path, body);
    assert.equal(res.status, status, `${path} ${JSON.stringify(body).slice(0, 60)}`);
    const error = await res.json();
    assert.equal(error.code, "bad_request");
    assert.match(error.error, field);
  }
  const unsigned = await t.send("POST", "/api/ask", {
    body: JSON.stringify({ question: "x" }),
    headers: { "content-type": "application/json" },
  });
  assert.equal(unsigned.status, 401);
  await unsigned.body?.cancel();
});

Deno.test("analyze keeps the first 20 facts a model finds", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const text = Array.from({ length: 30 }, (_, i) => `I have ${i + 2} plants.`).join(" ");
  const analysis = await (await t.signed(alice, "POST", "/api/analyze", { text })).json();
  assert.equal(analysis.fact_count, 20);
  assert.equal(analysis.facts[19].text, "Has 21 plants");
  await t.settle(alice, analysis.job_ids);
});
