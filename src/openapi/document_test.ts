import assert from "node:assert/strict";
import { integer, object, text } from "../http/fields.ts";
import { memoryId, tags } from "../http/memory_fields.ts";
import { jsonResponse } from "../http/respond.ts";
import { route } from "../http/router.ts";
import { openApiDocument } from "./document.ts";

const handle = () => Promise.resolve(jsonResponse(200, {}));

Deno.test("openApiDocument: paths, parameters, bodies, scopes and errors come from the routes", () => {
  const document = openApiDocument([
    route("GET", "/api/things/:id", handle, {
      signed: true,
      operations: ["read"],
      ownerKey: true,
      access: "get",
      input: {
        params: object({ id: memoryId({ required: true }) }),
        query: object({
          limit: integer({ fallback: 5, min: 1, max: 9 }),
          tags: tags({ param: "tag" }),
        }),
      },
      doc: {
        tag: "things",
        summary: "One thing",
        example: { params: { id: "0190f5a2-7c1e-7b3a-9f00-3c2d1e0f4a5b" }, query: { limit: 2 } },
        responses: { 200: { description: "The thing.", example: { id: "x" } } },
      },
    }),
    route("POST", "/things", handle, {
      input: { body: object({ text: text({ max: 10 }) }) },
      doc: {
        tag: "things",
        summary: "Make a thing",
        example: { body: { text: "hi" } },
        responses: { 201: { description: "Made." } },
      },
    }),
    route("GET", "/legacy", handle),
  ], { version: "9.9.9", apiVersion: "3" });

  assert.equal(document.openapi, "3.1.0");
  assert.equal(document.info.version, "9.9.9");
  assert.deepEqual(document.tags, [{ name: "things" }, { name: "undocumented" }]);
  const get = document.paths["/api/things/{id}"].get;
  assert.equal(get.operationId, "getApiThingsById");
  assert.deepEqual(get.security, [{ svcPublicKey: [], svcSignature: ["read"], svcTimestamp: [] }]);
  assert.deepEqual(get["x-svc-scope"], ["read"]);
  assert.equal(get["x-svc-owner-key"], true);
  assert.equal(get["x-svc-access-log"], "get");
  const [id, limit, tag, ...headers] = get.parameters!;
  assert.deepEqual([id.name, id.in, id.required], ["id", "path", true]);
  assert.equal(id.example, "0190f5a2-7c1e-7b3a-9f00-3c2d1e0f4a5b");
  assert.deepEqual([limit.name, limit.in, limit.required, limit.example], [
    "limit",
    "query",
    false,
    2,
  ]);
  assert.deepEqual(limit.schema, { type: "integer", minimum: 1, maximum: 9, default: 5 });
  assert.deepEqual([tag.name, (tag.schema as { type: string }).type], ["tag", "array"]);
  assert.ok(headers.every((header) => typeof header.$ref === "string"));
  assert.deepEqual(
    Object.keys(get.responses),
    ["200", "400", "401", "403", "404", "409", "429", "default"],
  );

  const post = document.paths["/things"].post;
  assert.deepEqual(post.security, []);
  assert.equal(post.parameters, undefined);
  const json = post.requestBody!.content["application/json"];
  assert.deepEqual(json.example, { text: "hi" });
  assert.deepEqual(json.schema!.required, ["text"]);
  assert.deepEqual(Object.keys(post.responses), ["201", "400", "408", "413", "415", "default"]);

  const legacy = document.paths["/legacy"].get;
  assert.equal(legacy["x-svc-undocumented"], true);
  assert.equal(legacy.summary, "GET /legacy");
});
