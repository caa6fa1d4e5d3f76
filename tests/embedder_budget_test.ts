/**
 * The embedder's budget through the relayer's routes: `/api/embed`, recall, analyze and ask are
 * admitted by the bytes they ask the embedder to embed, per key and per account; past it, 429
 * `rate_limited` with `Retry-After`. The clock is injected: no test sleeps.
 */
import assert from "node:assert/strict";
import { EMBEDDER_COSTS, embedderCost, routeName } from "../src/embedder_budget.ts";
import { MAX_EMBED_TOTAL_BYTES } from "../src/http/memory_fields.ts";
import { jsonOf as json, startTestRelayer, type TestRelayer } from "./fixtures.ts";

/** A relayer whose keys may embed 4 KiB a second (8 KiB a second per account), 1 s at once. */
async function smallBudget() {
  const clock = { offset: 0 };
  const t = await startTestRelayer({
    now: () => Date.now() + clock.offset,
    embedderBudget: { keyBytesPerSecond: 4096, accountBytesPerSecond: 8192, burstSeconds: 1 },
  });
  return { t, clock };
}

type Caller = Awaited<ReturnType<TestRelayer["newCaller"]>>;

/** A 3 KiB text: one fits a key's 4 KiB bucket, two do not. */
const LONG = "I keep bees on the roof and they make honey. ".repeat(70).slice(0, 3 * 1024);

function embed(t: TestRelayer, caller: Caller, text = LONG) {
  return t.signed(caller, "POST", "/api/embed", { text });
}

Deno.test("embedder budget: a key past it gets 429 with Retry-After; another account is served", async () => {
  const { t } = await smallBudget();
  await using _ = t;
  const alice = await t.newCaller();
  const bob = await t.newCaller();
  await json(await embed(t, alice));
  const refused = await embed(t, alice);
  const body = await json(refused, 429);
  assert.equal(body.code, "rate_limited");
  assert.equal(refused.headers.get("retry-after"), String(body.retry_after_seconds));
  assert.ok(body.retry_after_seconds >= 1);
  assert.match(body.error, /share of the embedder/);
  // Recall, ask and analyze draw on the same budget.
  for (
    const [path, payload] of [
      ["/api/recall", { query: LONG }],
      ["/api/ask", { question: LONG }],
      ["/api/analyze", { text: LONG }],
    ] as const
  ) {
    assert.equal(
      (await json(await t.signed(alice, "POST", path, payload), 429)).code,
      "rate_limited",
    );
  }
  await json(await embed(t, bob));
  await json(await t.signed(bob, "POST", "/api/recall", { query: "bees" }));
});

Deno.test("embedder budget: the keys of one account share the account's budget", async () => {
  const { t } = await smallBudget();
  await using _ = t;
  const alice = await t.newCaller();
  const second = await t.addKey(alice);
  const third = await t.addKey(alice);
  await json(await embed(t, alice));
  await json(await embed(t, second), 200);
  // The account's 8 KiB hold 6 KiB spent: the third key's own bucket is full, the account's not.
  const refused = await json(await embed(t, third), 429);
  assert.equal(refused.code, "rate_limited");
});

Deno.test("embedder budget: it refills at its rate", async () => {
  const { t, clock } = await smallBudget();
  await using _ = t;
  const alice = await t.newCaller();
  await json(await embed(t, alice));
  const { retry_after_seconds } = await json(await embed(t, alice), 429);
  clock.offset += 500;
  await json(await embed(t, alice), 429);
  clock.offset += retry_after_seconds * 1000;
  await json(await embed(t, alice));
});

Deno.test("embedder budget: one /api/embed call holds at most 256 KiB of texts", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  // The finding's call: 30 texts of 64 KB, 1.9 MiB of the embedder's work in one request.
  const texts = Array(30).fill("x".repeat(64_000));
  const refused = await json(await t.signed(alice, "POST", "/api/embed", { texts }), 400);
  assert.match(refused.error, /texts must hold at most 256 KiB/);
  const fits = Array(4).fill("x".repeat(MAX_EMBED_TOTAL_BYTES / 4));
  assert.equal(
    (await json(await t.signed(alice, "POST", "/api/embed", { texts: fits }))).vectors.length,
    4,
  );
});

Deno.test("embedder budget: the defaults admit a heavy user's recalls at 2,000 a second", async () => {
  const clock = { offset: 0 };
  await using t = await startTestRelayer({ now: () => Date.now() + clock.offset });
  const alice = await t.newCaller();
  const questions = [
    "what do I eat?",
    "where do I live these days?",
    "which languages do I speak?",
  ];
  assert.ok(embedderCost(questions) / questions.length < 100);
  // 600 recalls, each half a millisecond after the last on the relayer's clock.
  for (let i = 0; i < 600; i++) {
    const query = `${questions[i % questions.length]} (${i})`;
    await json(await t.signed(alice, "POST", "/api/recall", { query }));
    clock.offset += 0.5;
  }
});

Deno.test("embedder budget: every route its table charges is a route of the relayer", async () => {
  await using t = await startTestRelayer();
  const names = new Set(t.relayer.routes.map(routeName));
  for (const name of Object.keys(EMBEDDER_COSTS)) assert.ok(names.has(name), name);
});
