import assert from "node:assert/strict";
import { AuthFailureLimiter } from "./failure_limiter.ts";

const KEY = "ab".repeat(32);
const ACCOUNT = "0x" + "01".repeat(32);

Deno.test("AuthFailureLimiter: refuses an address past its failures until they leave the minute", () => {
  const clock = { now: 1_000_000 };
  const limiter = new AuthFailureLimiter({ limit: 3, now: () => clock.now });
  for (let i = 0; i < 3; i++) {
    assert.equal(limiter.refusal("a", null), undefined, `failure ${i}`);
    limiter.failed("a");
    clock.now += 1000;
  }
  assert.equal(limiter.refusal("a", KEY), 57, "the first failure leaves the window in 57 s");
  assert.equal(limiter.refusal("b", KEY), undefined, "other addresses are not affected");
  limiter.failed("a"); // refused requests are not counted again
  clock.now += 57_000;
  assert.equal(limiter.refusal("a", KEY), undefined);
});

Deno.test("AuthFailureLimiter: successes never count, and a key that succeeded lately passes from any address", () => {
  const clock = { now: 0 };
  const limiter = new AuthFailureLimiter({ limit: 2, now: () => clock.now });
  for (let i = 0; i < 100; i++) limiter.succeeded(KEY, ACCOUNT);
  assert.equal(limiter.refusal("a", KEY), undefined);
  limiter.failed("a");
  limiter.failed("a");
  assert.equal(limiter.refusal("a", KEY.toUpperCase()), undefined, "the known key, any case");
  assert.ok(limiter.refusal("a", "cd".repeat(32)), "another key is refused");
  assert.ok(limiter.refusal("a", null), "so is a request without a key");
  assert.ok(limiter.refusal("b", null) === undefined);
  // Remembered for ten minutes after its last success.
  clock.now += 10 * 60_000;
  limiter.failed("a");
  limiter.failed("a");
  assert.ok(limiter.refusal("a", KEY));
});

Deno.test("AuthFailureLimiter: failures never refuse a key that succeeded lately, however many", () => {
  const clock = { now: 0 };
  const limiter = new AuthFailureLimiter({ limit: 2, now: () => clock.now });
  limiter.succeeded(KEY, ACCOUNT);
  for (let i = 0; i < 1000; i++) {
    limiter.failed("a");
    assert.equal(limiter.refusal("a", KEY), undefined, `after failure ${i}`);
  }
});

Deno.test("AuthFailureLimiter: a key let through names its own account or none; another hint waits", () => {
  const limiter = new AuthFailureLimiter({ limit: 1 });
  limiter.succeeded(KEY, ACCOUNT);
  limiter.failed("a");
  assert.equal(limiter.refusal("a", KEY, null), undefined);
  assert.equal(limiter.refusal("a", KEY, ACCOUNT.toUpperCase().replace("0X", "0x")), undefined);
  assert.ok(limiter.refusal("a", KEY, "0x" + "02".repeat(32)), "each new hint is a new look-up");
});
