import assert from "node:assert/strict";
import { SvcError } from "../errors.ts";
import { readBody, UNDECLARED_FLOOR_BYTES } from "./body.ts";
import { BodyBudget } from "./body_budget.ts";

const MiB = 1024 * 1024;
const MAX = 2 * MiB;

/** A body stream that counts its pulls and runs `step` on each. */
function stream(
  step: (controller: ReadableStreamDefaultController<Uint8Array>, n: number) => void,
) {
  const state = { pulls: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      step(controller, state.pulls++);
    },
    cancel() {
      state.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { body, state };
}

function post(body: ReadableStream<Uint8Array>, headers: HeadersInit = {}): Request {
  return new Request("http://relayer.test/api/remember", { method: "POST", body, headers });
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof SvcError, String(error));
    return error.code;
  }
  return "read";
}

Deno.test("readBody: a body whose connection ends early is a 400, not an unknown error", async () => {
  const broken = stream((c, n) =>
    n === 0 ? c.enqueue(new Uint8Array(10)) : c.error(new Error("reset"))
  );
  assert.equal(await codeOf(readBody(post(broken.body))), "bad_request");
  // Shorter than its declared length, even when the stream itself ends cleanly.
  const short = stream((c, n) => n === 0 ? c.enqueue(new Uint8Array(10)) : c.close());
  assert.equal(
    await codeOf(readBody(post(short.body, { "content-length": "100" }))),
    "bad_request",
  );
});

Deno.test("readBody: a body that does not arrive in time is a 408, and its stream is cancelled", async () => {
  const stalled = stream((c, n) => {
    if (n === 0) c.enqueue(new Uint8Array(1000));
    // Then nothing more: the client stopped sending.
  });
  assert.equal(
    await codeOf(
      readBody(post(stalled.body, { "content-length": "5000" }), MAX, { timeoutMs: 50 }),
    ),
    "request_timeout",
  );
  assert.ok(stalled.state.cancelled);
});
Deno.test("readBody: a declared body the budget has no room for is refused unread", async () => {
  const budget = new BodyBudget({ totalBytes: 64 * MiB, perAddressBytes: 3 * MiB });
  const holder = budget.open("a");
  assert.equal(holder.grow(MiB), undefined);
  const refused = stream((c) => c.enqueue(new Uint8Array(1024)));
  const request = post(refused.body, { "content-length": String(2 * MiB) });
  assert.equal(
    await codeOf(readBody(request, MAX, { reservation: budget.open("a") })),
    "rate_limited",
  );
  assert.equal(refused.state.pulls, 0, "nothing was read");
  assert.equal(budget.held("a"), MiB);
  // The shared budget answers 503 server_busy.
  const small = new BodyBudget({ totalBytes: 3 * MiB, perAddressBytes: 3 * MiB });
  assert.equal(small.open("b").grow(MiB), undefined);
  const busy = stream((c) => c.enqueue(new Uint8Array(1024)));
  assert.equal(
    await codeOf(
      readBody(post(busy.body, { "content-length": String(2 * MiB) }), MAX, {
        reservation: small.open("c"),
      }),
    ),
    "server_busy",
  );
});

Deno.test("readBody: a declared body fills one buffer of its size; an undeclared one grows under the budget", async () => {
  const budget = new BodyBudget();
  const chunks = stream((c, n) => n < 10 ? c.enqueue(new Uint8Array(1000).fill(n)) : c.close());
  const declared = budget.open("a");
  const body = await readBody(post(chunks.body, { "content-length": "10000" }), MAX, {
    reservation: declared,
  });
  assert.equal(body.byteLength, 10_000);
  assert.equal(body.buffer.byteLength, 10_000, "no second copy");
  assert.equal(body[9999], 9);
  assert.equal(declared.bytes, 10_000);

  const growing = budget.open("a");
  const undeclared = stream((c, n) => n < 40 ? c.enqueue(new Uint8Array(1000).fill(n)) : c.close());
  const grown = await readBody(post(undeclared.body), MAX, { reservation: growing });
  assert.equal(grown.byteLength, 40_000);
  assert.equal(grown[39_999], 39);
  assert.equal(growing.bytes, UNDECLARED_FLOOR_BYTES, "no less than its connection costs");
  // Over the limit: 413 as soon as it passes, whatever the budget.
  const endless = stream((c) => c.enqueue(new Uint8Array(64 * 1024)));
  assert.equal(
    await codeOf(readBody(post(endless.body), MAX, { reservation: budget.open("a") })),
    "payload_too_large",
  );
  assert.ok(endless.state.cancelled);
});

Deno.test("readBody: a declared body of a byte stream (as Deno.serve's are) is read into one buffer", async () => {
  let pulls = 0;
  const bytes = new ReadableStream({
    type: "bytes",
    pull(controller) {
      if (pulls++ < 10) controller.enqueue(new Uint8Array(1000).fill(pulls));
      else controller.close();
    },
  });
  const reservation = new BodyBudget().open("a");
  const body = await readBody(post(bytes, { "content-length": "10000" }), MAX, { reservation });
  assert.equal(body.byteLength, 10_000);
  assert.equal(body.buffer.byteLength, 10_000, "no second copy");
  assert.deepEqual([body[0], body[9999]], [1, 10]);
  assert.equal(reservation.bytes, 10_000);

  const stalled = new ReadableStream({
    type: "bytes",
    pull(controller) {
      if (pulls++ < 12) controller.enqueue(new Uint8Array(10));
    },
  });
  assert.equal(
    await codeOf(readBody(post(stalled, { "content-length": "100" }), MAX, { timeoutMs: 50 })),
    "request_timeout",
  );
  const broken = new ReadableStream({
    type: "bytes",
    pull(controller) {
      controller.error(new Error("connection reset"));
    },
  });
  assert.equal(
    await codeOf(readBody(post(broken, { "content-length": "100" }))),
    "bad_request",
  );
});

Deno.test("readBody: slow bodies that declare no length are bounded as large ones; small declared ones still fit", async () => {
  const budget = new BodyBudget();
  const held: ReadableStreamDefaultController<Uint8Array>[] = [];
  const silent = () => stream((c) => void held.push(c)); // sends nothing yet
  const slow = () => readBody(post(silent().body), MAX, { reservation: budget.open("a") });
  // Seven eighths of the address's 8 MiB, 128 KiB each.
  const reads = Array.from({ length: 56 }, slow);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(budget.held("a"), 56 * UNDECLARED_FLOOR_BYTES);
  assert.equal(await codeOf(slow()), "rate_limited");
  // A recall of the same address, which declares its few hundred bytes, is read.
  const recall = stream((c, n) => n === 0 ? c.enqueue(new Uint8Array(300)) : c.close());
  const body = await readBody(post(recall.body, { "content-length": "300" }), MAX, {
    reservation: budget.open("a"),
  });
  assert.equal(body.byteLength, 300);
  for (const controller of held) controller.close();
  await Promise.allSettled(reads);
});
