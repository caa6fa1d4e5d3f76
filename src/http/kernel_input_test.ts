import assert from "node:assert/strict";
import { SvcError } from "../errors.ts";
import { silentLogger } from "../log.ts";
import { integer, object, string, text } from "./fields.ts";
import { memoryId } from "./memory_fields.ts";
import { createHttpHandler } from "./kernel.ts";
import { jsonResponse } from "./respond.ts";
import { type Route, type RouteContext, routesFor } from "./router.ts";

const BASE = "http://kernel.test";

/** A kernel whose one route declares its input, behind an `extend` that wants `x-ok`. */
function kernel() {
  const seen: [string | undefined, number, number][] = [];
  const route = routesFor<RouteContext>();
  const update = route("PUT", "/items/:id", ({ input }) =>
    Promise.resolve(jsonResponse(200, {
      id: input.params.id,
      limit: input.query.limit,
      note: input.query.note,
      text: input.body.text,
    })), {
    input: {
      params: object({ id: memoryId({ required: true }) }),
      query: object({ limit: integer({ fallback: 10, min: 1, max: 20 }), note: string() }),
      body: object({ text: text({ max: 10 }) }),
    },
  });
  const handler = createHttpHandler({
    routes: [update],
    logger: silentLogger,
    extend(context) {
      if (!context.request.headers.has("x-ok")) {
        return Promise.reject(new SvcError("unauthorized", "Who are you?"));
      }
      return Promise.resolve(context);
    },
    observe(_request, matched: Route | undefined, status, seconds) {
      seen.push([matched?.pattern.pathname, status, seconds]);
    },
  });
  const send = (path: string, body: unknown, headers: Record<string, string> = { "x-ok": "1" }) =>
    handler(
      new Request(BASE + path, {
        method: "PUT",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      }),
    );
  return { send, seen, handler };
}

const ID = "0190f5a2-7c1e-7b3a-9f00-3c2d1e0f4a5b";

Deno.test("kernel: declared input reaches the handler parsed: path, query, then body", async () => {
  const { send } = kernel();
  const res = await send(`/items/${ID}?limit=3`, { text: "hi", other: 1 });
  assert.deepEqual(await res.json(), { id: ID, limit: 3, text: "hi" });
  const errors = async (path: string, body: unknown) =>
    (await (await send(path, body)).json()).error;
  assert.equal(
    await errors("/items/42?limit=99", { text: "" }),
    "id must be a memory id (a lowercase UUID)",
  );
  assert.equal(
    await errors(`/items/${ID}?limit=99`, { text: "" }),
    "limit must be between 1 and 20",
  );
  assert.equal(await errors(`/items/${ID}`, { text: "" }), "text must not be empty");
  assert.equal(await errors(`/items/${ID}`, [1]), "Request body must be a JSON object");
});

Deno.test("kernel: a query parameter is read as the UTF-8 its percent-escapes spell, or refused", async () => {
  const { send } = kernel();
  const note = async (query: string) => {
    const response = await send(`/items/${ID}?${query}`, { text: "hi" });
    const body = await response.json();
    return response.ok ? body.note : [response.status, body.error];
  };
  assert.equal(await note("note=caf%C3%A9"), "café");
  assert.equal(await note("note=caf\u00e9"), "café"); // the URL parser escapes it as UTF-8
  assert.equal(await note("note=100%"), "100%"); // a % that escapes nothing stays one
  assert.equal(await note("note=a+b%2Bc"), "a b+c");
  // Bytes that are not UTF-8 would be read as U+FFFD: another value than the one sent.
  for (const query of ["note=%FF", "note=%C3%28", "note=%ED%A0%80", "limit=3&note=ok&x=%FE"]) {
    assert.deepEqual(await note(query), [
      400,
      "The query string is not UTF-8 once its percent-escapes are decoded",
    ], query);
  }
});

Deno.test("kernel: input is read only once the request is admitted and extended", async () => {
  const { send } = kernel();
  const res = await send("/items/42", { text: "" }, {});
  assert.equal(res.status, 401);
  assert.equal((await res.json()).error, "Who are you?");
});

Deno.test("kernel: observe hears every answer with its route pattern, status and time", async () => {
  const { send, seen, handler } = kernel();
  await (await send(`/items/${ID}`, { text: "hi" })).body?.cancel();
  await (await send("/items/42", { text: "hi" })).body?.cancel();
  await (await handler(new Request(`${BASE}/nowhere`))).body?.cancel();
  await (await handler(new Request(`${BASE}/items/${ID}`))).body?.cancel();
  assert.deepEqual(seen.map(([route, status]) => [route, status]), [
    ["/items/:id", 200],
    ["/items/:id", 400],
    [undefined, 404],
    [undefined, 405],
  ]);
  assert.ok(seen.every(([, , seconds]) => seconds >= 0 && seconds < 60));
});
