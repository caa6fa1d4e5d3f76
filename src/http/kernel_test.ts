import { UNDECLARED_FLOOR_BYTES } from "./body.ts";
import assert from "node:assert/strict";
import { SvcError } from "../errors.ts";
import { createLogger, type LogFields } from "../log.ts";
import { BodyBudget } from "./body_budget.ts";
import { createHttpHandler, type HttpHandlerOptions } from "./kernel.ts";
import { FailureLog, jsonResponse } from "./respond.ts";
import { route, type RouteContext } from "./router.ts";

const BASE = "http://kernel.test";

/** A handler over a small route table, and the log lines it wrote. */
function kernel(overrides: Partial<HttpHandlerOptions<RouteContext>> = {}) {
  const lines: { level: string; msg: string; fields: LogFields }[] = [];
  const logger = createLogger("debug", (line) => {
    const { level, msg, time: _time, ...fields } = JSON.parse(line);
    lines.push({ level, msg, fields });
  });
  const routes = [
    route(
      "GET",
      "/items/:id",
      ({ params, clientAddress }) =>
        Promise.resolve(jsonResponse(200, { id: params.id, from: clientAddress })),
    ),
    route("DELETE", "/items/:id", () => Promise.resolve(new Response(null, { status: 204 }))),
    route("POST", "/echo", ({ json }) => Promise.resolve(jsonResponse(200, json()))),
    route(
      "POST",
      "/small",
      ({ body }) => Promise.resolve(jsonResponse(200, { bytes: body.length })),
      {
        maxBodyBytes: 8,
      },
    ),
    route(
      "POST",
      "/stream",
      async ({ request, body }) =>
        jsonResponse(200, {
          kernel_read: body.length,
          handler_read: (await request.bytes()).length,
        }),
      { streamBody: true },
    ),
    route("GET", "/refuse", () => {
      throw new SvcError("rate_limited", "Cannot sponsor: too many transactions", {
        details: { retry_after_seconds: 7 },
      });
    }),
    route("GET", "/down", () => {
      throw new SvcError("backend_unavailable", "Cannot read: postgres is unavailable", {
        cause: new Error("connect ECONNREFUSED"),
      });
    }),
    route("GET", "/crash", () => {
      throw new Error("database password is hunter2");
    }),
    route("GET", "/fetched", async () => {
      // A response straight from `fetch` has immutable headers.
      const upstream = await fetch("data:application/json,{}");
      return upstream;
    }),
  ];
  const handler = createHttpHandler({ routes, logger, ...overrides });
  return { handler, lines };
}

async function errorBody(response: Response, status: number, code: string) {
  assert.equal(response.status, status);
  assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
  const body = await response.json();
  assert.equal(body.code, code);
  assert.equal(typeof body.error, "string");
  assert.equal(body.request_id, response.headers.get("x-request-id"));
  return body;
}

Deno.test("kernel: routes by path and method, with params and the client address", async () => {
  const { handler } = kernel();
  const info = { remoteAddr: { transport: "tcp" as const, hostname: "192.0.2.7", port: 5000 } };
  const response = await handler(new Request(`${BASE}/items/42`), info);
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { id: "42", from: "192.0.2.7" });
  const anonymous = await handler(new Request(`${BASE}/items/42`));
  assert.equal((await anonymous.json()).from, "unknown");
});

Deno.test("kernel: an unknown path is 404 not_found, a wrong method 405 with Allow", async () => {
  const { handler } = kernel();
  const missing = await errorBody(await handler(new Request(`${BASE}/nope`)), 404, "not_found");
  assert.equal(missing.error, "No route for /nope");
  const wrong = await handler(new Request(`${BASE}/items/1`, { method: "POST", body: "{}" }));
  assert.equal(wrong.headers.get("allow"), "GET, HEAD, DELETE");
  const body = await errorBody(wrong, 405, "method_not_allowed");
  assert.equal(body.allow, "GET, HEAD, DELETE");
  const custom = kernel({ notFound: (pathname) => `No page at ${pathname}` });
  const page = await custom.handler(new Request(`${BASE}/nope`));
  assert.equal((await errorBody(page, 404, "not_found")).error, "No page at /nope");
});

Deno.test("kernel: bodies past the limit are 413, declared or streamed", async () => {
  const { handler } = kernel();
  const fits = await handler(new Request(`${BASE}/small`, { method: "POST", body: "12345678" }));
  assert.deepEqual(await fits.json(), { bytes: 8 });
  const declared = await handler(
    new Request(`${BASE}/small`, { method: "POST", body: "123456789" }),
  );
  const body = await errorBody(declared, 413, "payload_too_large");
  assert.equal(body.limit_bytes, 8);
  // No content-length: the stream is cut off once past the limit, never buffered whole.
  let pulled = 0;
  const endless = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled++;
      controller.enqueue(new Uint8Array(4));
    },
  });
  const streamed = await handler(new Request(`${BASE}/small`, { method: "POST", body: endless }));
  await errorBody(streamed, 413, "payload_too_large");
  assert.ok(pulled < 10, `read ${pulled} chunks`);
  // The server-wide default applies to routes without their own limit.
  const tight = kernel({ maxBodyBytes: 4 });
  const echo = await tight.handler(
    new Request(`${BASE}/echo`, { method: "POST", body: '{"a":1}' }),
  );
  await errorBody(echo, 413, "payload_too_large");
});

Deno.test("kernel: a streamed route reads its body itself", async () => {
  const { handler } = kernel({ maxBodyBytes: 4 });
  const response = await handler(
    new Request(`${BASE}/stream`, { method: "POST", body: "more than four bytes" }),
  );
  assert.deepEqual(await response.json(), { kernel_read: 0, handler_read: 20 });
});

Deno.test("kernel: malformed JSON is 400, a wrong content type 415", async () => {
  const { handler } = kernel();
  const post = (body: string, type = "application/json") =>
    handler(
      new Request(`${BASE}/echo`, { method: "POST", body, headers: { "content-type": type } }),
    );
  assert.deepEqual(await (await post('{"a":1}')).json(), { a: 1 });
  await errorBody(await post("{not json"), 400, "bad_request");
  await errorBody(await post("[1,2]"), 400, "bad_request");
  await errorBody(await post('{"a":1}', "text/plain"), 415, "unsupported_media_type");
  // A body said to be in another charset would be misread as UTF-8.
  for (const type of ["application/json; charset=latin1", 'application/json;charset="utf-16"']) {
    await errorBody(await post('{"a":1}', type), 415, "unsupported_media_type");
  }
  for (const type of ["application/json; charset=UTF-8", "application/json;charset=utf8"]) {
    assert.deepEqual(await (await post('{"a":1}', type)).json(), { a: 1 }, type);
  }
});

Deno.test("kernel: an SvcError keeps its status, details and headers", async () => {
  const { handler } = kernel();
  const response = await handler(new Request(`${BASE}/refuse`));
  assert.equal(response.headers.get("retry-after"), "7");
  const body = await errorBody(response, 429, "rate_limited");
  assert.equal(body.error, "Cannot sponsor: too many transactions");
  assert.equal(body.retry_after_seconds, 7);
});

Deno.test("kernel: an unknown error is a generic 500, its message only in the logs", async () => {
  const { handler, lines } = kernel();
  const response = await handler(new Request(`${BASE}/crash`));
  const body = await errorBody(response, 500, "internal");
  assert.doesNotMatch(JSON.stringify(body), /hunter2|password|Error:/);
  assert.equal(
    body.error,
    `Internal error; see the relayer's logs for request id ${body.request_id}`,
  );
  const [logged, ...more] = lines.filter((line) => line.level !== "debug");
  assert.equal(logged.level, "error");
  assert.equal(logged.fields.request_id, body.request_id);
  assert.match(JSON.stringify(logged.fields), /hunter2/);
  assert.deepEqual(more, [], "logged once");
});

Deno.test("kernel: an outage's failures are logged once, each unknown error every time", async () => {
  const { handler, lines } = kernel();
  for (let i = 0; i < 5; i++) {
    await errorBody(await handler(new Request(`${BASE}/down`)), 503, "backend_unavailable");
  }
  for (let i = 0; i < 3; i++) {
    await errorBody(await handler(new Request(`${BASE}/crash`)), 500, "internal");
  }
  const failed = lines.filter((line) => line.msg === "request failed");
  assert.equal(failed.length, 1);
  assert.match(JSON.stringify(failed[0].fields), /ECONNREFUSED/);
  assert.equal(lines.filter((line) => line.level === "error").length, 3);
});

Deno.test("FailureLog: one entry an outage every 10 s, saying how many were not logged", () => {
  const entries: LogFields[] = [];
  const logger = createLogger("info", (line) => entries.push(JSON.parse(line)));
  let now = 0;
  const log = new FailureLog(logger, () => now);
  const down = (what: string) =>
    new SvcError("backend_unavailable", `Cannot ${what}: postgres is unavailable`);
  for (let i = 0; i < 4; i++) log.failed(`a${i}`, down("read"));
  log.failed("b0", down("write"));
  log.failed("c0", new SvcError("internal", "Internal error"));
  log.failed("c1", new SvcError("internal", "Internal error"));
  now = 9_999;
  log.failed("a4", down("read"));
  now = 10_000;
  log.failed("a5", down("read"));
  now = 30_000;
  log.failed("a6", down("read"));
  const logged = entries.map(({ request_id, unlogged_like_it }) =>
    unlogged_like_it === undefined ? request_id : `${request_id} (${unlogged_like_it} more)`
  );
  assert.deepEqual(logged, ["a0", "b0", "c0", "c1", "a5 (4 more)", "a6"]);
});

Deno.test("kernel: no cache keeps an answer, and none is sniffed, unless its route says so", async () => {
  const { handler } = kernel({
    routes: [
      route("GET", "/items/:id", () => Promise.resolve(jsonResponse(200, { text: "private" }))),
      route("GET", "/public", () =>
        Promise.resolve(
          new Response("hi", { headers: { "cache-control": "max-age=60" } }),
        )),
      route("GET", "/fetched", () => fetch("data:text/plain,hi")),
    ],
  });
  for (const path of ["/items/1", "/nope", "/fetched"]) {
    const response = await handler(new Request(`${BASE}${path}`));
    await response.body?.cancel();
    assert.equal(response.headers.get("cache-control"), "no-store", path);
    assert.equal(response.headers.get("x-content-type-options"), "nosniff", path);
  }
  const kept = await handler(new Request(`${BASE}/public`));
  await kept.body?.cancel();
  assert.equal(kept.headers.get("cache-control"), "max-age=60");
});

Deno.test("kernel: a valid x-request-id is kept, anything else replaced", async () => {
  const { handler, lines } = kernel();
  const traced = await handler(
    new Request(`${BASE}/nope`, { headers: { "x-request-id": "trace-1.2:3_x" } }),
  );
  assert.equal(traced.headers.get("x-request-id"), "trace-1.2:3_x");
  assert.equal((await traced.json()).request_id, "trace-1.2:3_x");
  for (const bad of ["bad id with spaces", "x".repeat(129), "semi;colon"]) {
    const response = await handler(
      new Request(`${BASE}/items/1`, { headers: { "x-request-id": bad } }),
    );
    await response.body?.cancel();
    const id = response.headers.get("x-request-id") ?? "";
    assert.notEqual(id, bad);
    assert.match(id, /^[0-9a-f-]{36}$/);
  }
  const fresh = await handler(new Request(`${BASE}/items/1`));
  await fresh.body?.cancel();
  assert.match(fresh.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
  // One debug line per request, without the query string.
  const last = lines.filter((line) => line.msg === "request").at(-1);
  assert.deepEqual(
    { ...last?.fields, ms: 0 },
    {
      request_id: fresh.headers.get("x-request-id"),
      method: "GET",
      path: "/items/1",
      status: 200,
      ms: 0,
    },
  );
  // A key sent in the path by mistake is not logged.
  const key = "ff28f578".repeat(8);
  await (await handler(new Request(`${BASE}/items/${key}`))).body?.cancel();
  const keyed = lines.filter((line) => line.msg === "request").at(-1);
  assert.equal(keyed?.fields.path, "/items/…");
});

Deno.test("kernel: responses with immutable headers still get the request id", async () => {
  const { handler } = kernel();
  const response = await handler(
    new Request(`${BASE}/fetched`, { headers: { "x-request-id": "from-fetch" } }),
  );
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("x-request-id"), "from-fetch");
  assert.deepEqual(await response.json(), {});
});

Deno.test("kernel: `before` can answer, refuse, or let the request through", async () => {
  const { handler } = kernel({
    before(request) {
      if (request.headers.get("x-token") !== "ok") {
        throw new SvcError("forbidden", "Cannot serve: the token is wrong");
      }
      if (new URL(request.url).pathname === "/old") {
        return new Response(null, { status: 308, headers: { location: "/items/1" } });
      }
      return undefined;
    },
  });
  // The refusal comes before routing: an unknown path is refused too.
  await errorBody(await handler(new Request(`${BASE}/nope`)), 403, "forbidden");
  const moved = await handler(new Request(`${BASE}/old`, { headers: { "x-token": "ok" } }));
  assert.equal(moved.status, 308);
  assert.ok(moved.headers.get("x-request-id"));
  const passed = await handler(new Request(`${BASE}/items/9`, { headers: { "x-token": "ok" } }));
  assert.equal((await passed.json()).id, "9");
});

Deno.test("kernel: `extend` adds to the context, and its errors are mapped", async () => {
  interface Signed extends RouteContext {
    caller: string;
  }
  const logger = createLogger("error", () => {});
  const handler = createHttpHandler<Signed>({
    logger,
    clientAddress: (request) => request.headers.get("x-forwarded-for") ?? "unknown",
    extend(context, matched) {
      if (matched.signed && context.request.headers.get("x-caller") === null) {
        throw new SvcError("unauthorized", "Cannot verify: no caller", {
          details: { reason: "missing_headers" },
        });
      }
      return Promise.resolve({ ...context, caller: context.request.headers.get("x-caller") ?? "" });
    },
    routes: [
      route<Signed>(
        "POST",
        "/me",
        ({ caller, body, clientAddress }) =>
          Promise.resolve(jsonResponse(200, { caller, bytes: body.length, clientAddress })),
        {
          signed: true,
        },
      ),
    ],
  });
  const refused = await handler(new Request(`${BASE}/me`, { method: "POST", body: "abc" }));
  assert.equal((await errorBody(refused, 401, "unauthorized")).reason, "missing_headers");
  const accepted = await handler(
    new Request(`${BASE}/me`, {
      method: "POST",
      body: "abc",
      headers: { "x-caller": "ada", "x-forwarded-for": "198.51.100.1" },
    }),
  );
  assert.deepEqual(await accepted.json(), {
    caller: "ada",
    bytes: 3,
    clientAddress: "198.51.100.1",
  });
});

Deno.test("kernel: `admit` refuses before the body is read; bodies are held against the budget until `extend` is done", async () => {
  const budget = new BodyBudget({ totalBytes: 3 * 1024 * 1024, perAddressBytes: 3 * 1024 * 1024 });
  const seen: { admitted: string; heldDuringExtend: number; heldInHandler: number }[] = [];
  const handler = createHttpHandler<RouteContext, string>({
    logger: createLogger("error", () => {}),
    clientAddress: () => "198.51.100.7",
    bodyBudget: budget,
    bodyTimeoutMs: 5000,
    admit(request, matched, address) {
      if (request.headers.get("x-key") !== "known") {
        return Promise.reject(new SvcError("unauthorized", "Cannot verify: unknown key"));
      }
      return Promise.resolve(`${matched.method} from ${address}`);
    },
    extend(context, _route, admitted) {
      seen.push({ admitted, heldDuringExtend: budget.held(), heldInHandler: -1 });
      return Promise.resolve(context);
    },
    routes: [
      route("POST", "/in", ({ body }) => {
        seen.at(-1)!.heldInHandler = budget.held();
        return Promise.resolve(jsonResponse(200, { bytes: body.length }));
      }),
      route("POST", "/later", async ({ readBody }) => {
        const bytes = (await readBody(16)).length;
        return jsonResponse(200, { bytes, held: budget.held("198.51.100.7") });
      }, { streamBody: true }),
    ],
  });
  let pulled = false;
  const unread = new ReadableStream({
    pull() {
      pulled = true;
    },
  }, { highWaterMark: 0 });
  await errorBody(
    await handler(new Request(`${BASE}/in`, { method: "POST", body: unread })),
    401,
    "unauthorized",
  );
  assert.equal(pulled, false, "the refused request's body was not read");

  const ok = await handler(
    new Request(`${BASE}/in`, { method: "POST", body: "abcd", headers: { "x-key": "known" } }),
  );
  assert.deepEqual(await ok.json(), { bytes: 4 });
  assert.equal(seen[0].admitted, "POST from 198.51.100.7");
  assert.ok(seen[0].heldDuringExtend >= 4, "held while the body is unauthenticated");
  assert.equal(seen[0].heldInHandler, 0, "given back once authenticated");

  // A streamed route reads under the same limits; its bytes are given back when it ends.
  const later = await handler(
    new Request(`${BASE}/later`, { method: "POST", body: "abc", headers: { "x-key": "known" } }),
  );
  assert.deepEqual(
    await later.json(),
    { bytes: 3, held: UNDECLARED_FLOOR_BYTES },
    "a body of no declared length holds what its connection costs",
  );
  const tooBig = await handler(
    new Request(`${BASE}/later`, {
      method: "POST",
      body: "x".repeat(17),
      headers: { "x-key": "known" },
    }),
  );
  await errorBody(tooBig, 413, "payload_too_large");
  assert.equal(budget.held(), 0);

  // No room: refused at once, unread.
  const holder = budget.open("198.51.100.7");
  assert.equal(holder.grow(2 * 1024 * 1024), undefined);
  const full = await handler(
    new Request(`${BASE}/in`, {
      method: "POST",
      body: "x".repeat(1024 * 1024),
      headers: { "x-key": "known" },
    }),
  );
  const refused = await errorBody(full, 429, "rate_limited");
  assert.equal(full.headers.get("retry-after"), String(refused.retry_after_seconds));
  holder.release();
  assert.equal(budget.held(), 0);
});
