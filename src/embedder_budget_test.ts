import assert from "node:assert/strict";
import { SvcError } from "./errors.ts";
import {
  EMBED_TEXT_BASE_BYTES,
  EMBEDDER_COSTS,
  EmbedderBudget,
  embedderCost,
} from "./embedder_budget.ts";
import { utf8Length } from "./text_limits.ts";

const alice = { publicKey: "a1", accountId: "0xa" };
const bob = { publicKey: "b1", accountId: "0xb" };

/** The seconds `charge` asks to wait, or 0 when it admits. */
function refusal(budget: EmbedderBudget, caller: typeof alice, cost: number): number {
  try {
    budget.charge(caller, cost);
    return 0;
  } catch (error) {
    assert(error instanceof SvcError && error.code === "rate_limited", String(error));
    return error.details.retry_after_seconds as number;
  }
}

Deno.test("embedderCost: UTF-8 bytes plus a fixed cost per text", () => {
  assert.equal(embedderCost(["abc"]), 3 + EMBED_TEXT_BASE_BYTES);
  assert.equal(embedderCost(["é", "😀"]), 2 + 4 + 2 * EMBED_TEXT_BASE_BYTES);
  for (const text of ["a", "é€😀", "\ud800x", "x\udc00", "日本語のテキスト"]) {
    assert.equal(utf8Length(text), new TextEncoder().encode(text).length, text);
  }
  assert.equal(EMBEDDER_COSTS["POST /api/recall"]({ query: "abc" }), embedderCost(["abc"]));
});

Deno.test("EmbedderBudget: past the burst a key waits, uncharged, for its bucket to refill", () => {
  let now = 0;
  const budget = new EmbedderBudget({
    keyBytesPerSecond: 1000,
    accountBytesPerSecond: 10_000,
    burstSeconds: 2,
    now: () => now,
  });
  assert.equal(refusal(budget, alice, 1500), 0);
  assert.equal(refusal(budget, alice, 1000), 1, "500 left: 500 more take half a second → 1 s");
  assert.equal(refusal(budget, alice, 400), 0, "what is left still serves a smaller request");
  assert.equal(refusal(budget, bob, 2000), 0, "another account has its own");
  now += 600;
  assert.equal(refusal(budget, alice, 1000), 1);
  now += 400;
  assert.equal(refusal(budget, alice, 1000), 0, "refilled: 100 + 1000 bytes");
});

Deno.test("EmbedderBudget: a cost larger than a bucket is admitted once it is full", () => {
  let now = 0;
  const budget = new EmbedderBudget({
    keyBytesPerSecond: 1000,
    accountBytesPerSecond: 1000,
    burstSeconds: 1,
    now: () => now,
  });
  assert.equal(refusal(budget, alice, 5000), 0, "a full bucket admits it, going into debt");
  assert.equal(refusal(budget, alice, 10), 5, "the debt is paid back first");
  now += 5010;
  assert.equal(refusal(budget, alice, 10), 0);
});

Deno.test("EmbedderBudget: the keys of an account share its bucket", () => {
  const now = 0;
  const budget = new EmbedderBudget({
    keyBytesPerSecond: 1000,
    accountBytesPerSecond: 1500,
    burstSeconds: 1,
    now: () => now,
  });
  assert.equal(refusal(budget, alice, 1000), 0);
  const second = { ...alice, publicKey: "a2" };
  assert.equal(refusal(budget, second, 1000), 1, "its own key's bucket is full, not the account's");
  assert.equal(refusal(budget, second, 500), 0);
});

Deno.test("EmbedderBudget: the defaults admit one key recalling 2,500 times a second, sustained", () => {
  let now = 0;
  const budget = new EmbedderBudget({ now: () => now });
  // bench:load's questions are 28 bytes on average; its best cell is 1,803 recalls/s of one key.
  const cost = embedderCost(["x".repeat(28)]);
  for (let i = 0; i < 2500 * 600; i++) {
    budget.charge(alice, cost);
    now += 1000 / 2500;
  }
});
