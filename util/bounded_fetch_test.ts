import assert from "node:assert/strict";
import { boundedFetch } from "./bounded_fetch.ts";
import { serveLocal } from "../tests/fixtures/local_server.ts";

/** An endless body, and whether its reader cancelled it. */
function endless() {
  const state = { cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull: (controller) => controller.enqueue(new Uint8Array(64 * 1024).fill(120)),
    cancel: () => {
      state.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { body, state };
}

Deno.test("boundedFetch: an answer within the limit comes as it was sent", async () => {
  await using server = serveLocal(() =>
    Response.json({ ok: true }, { status: 201, headers: { "x-version": "0.5.3" } })
  );
  const answer = await boundedFetch(fetch, 1024)(server.url, { method: "POST", body: "{}" });
  assert.equal(answer.status, 201);
  assert.equal(answer.headers.get("x-version"), "0.5.3");
  assert.deepEqual(await answer.json(), { ok: true });
  await using empty = serveLocal(() => new Response(null, { status: 204 }));
  assert.equal((await boundedFetch(fetch, 1024)(empty.url)).status, 204);
});

Deno.test("boundedFetch: an endless answer is cut off at the limit and is a 502", async () => {
  const { body, state } = endless();
  await using server = serveLocal(() => new Response(body));
  const answer = await boundedFetch(fetch, 2 ** 20)(server.url);
  assert.equal(answer.status, 502);
  assert.equal(answer.statusText, "the body is larger than the limit of 1048576 bytes");
  // The server sees the cancel once the connection closes.
  while (!state.cancelled) await new Promise((r) => setTimeout(r, 10));
});

Deno.test("boundedFetch: an answer declared larger than the limit is a 502, unread", async () => {
  const declared: typeof fetch = () =>
    Promise.resolve(new Response(endless().body, { headers: { "content-length": "2048" } }));
  const answer = await boundedFetch(declared, 1024)("http://127.0.0.1:9/");
  assert.equal(answer.status, 502);
});

Deno.test("boundedFetch: a redirect is not followed and is a 502", async () => {
  await using elsewhere = serveLocal(() => new Response("elsewhere"));
  await using redirecting = serveLocal(() =>
    new Response(null, { status: 307, headers: { location: `${elsewhere.url}/keys` } })
  );
  const answer = await boundedFetch(fetch, 1024)(redirecting.url, { method: "POST", body: "x" });
  assert.equal(answer.status, 502);
  assert.equal(answer.statusText, "a redirect (HTTP 307), not followed");
  assert.deepEqual(redirecting.asked, ["/"]);
  assert.deepEqual(elsewhere.asked, [], "the request went nowhere else");
});

Deno.test("boundedFetch: the request's abort ends the read", async () => {
  const { body } = endless();
  const controller = new AbortController();
  const slow: typeof fetch = () => Promise.resolve(new Response(body));
  const reading = boundedFetch(slow, 2 ** 40)("http://127.0.0.1:9/", {
    signal: controller.signal,
  });
  controller.abort(new Error("deadline"));
  await assert.rejects(reading, /deadline/);
});
