/**
 * `GET /openapi.json` against the relayer's own route table: every route is in it and
 * documented, and every route's example request passes the route's validators, the JSON
 * Schemas of the document, and the relayer's handler itself. Where the document says a request
 * is invalid, the validators say so too.
 */
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { SvcError } from "../src/errors.ts";
import type { Route } from "../src/http/router.ts";
import type { HandlerContext } from "../src/routes/context.ts";
import type { OpenApiDocument, OpenApiOperation } from "../src/openapi/document.ts";
import { jsonOf, startTestRelayer, type TestRelayer } from "./fixtures.ts";

const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });

/** A route's place in the document: `/api/memories/{id}` and `get`. */
function placeOf(route: Route<HandlerContext>): [string, string] {
  return [route.pattern.pathname.replace(/:(\w+)/g, "{$1}"), route.method.toLowerCase()];
}

async function documentOf(t: TestRelayer): Promise<OpenApiDocument> {
  const res = await t.send("GET", "/openapi.json");
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  return await jsonOf(res);
}

function operationOf(document: OpenApiDocument, route: Route<HandlerContext>): OpenApiOperation {
  const [path, method] = placeOf(route);
  return document.paths[path]?.[method];
}

/** The example's query as a URL query string (lists as repeated parameters). */
function queryString(query: Record<string, unknown> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const one of Array.isArray(value) ? value : [value]) params.append(name, String(one));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** The example's path, its parameters filled in. */
function pathOf(route: Route<HandlerContext>): string {
  const params = route.doc?.example?.params ?? {};
  return route.pattern.pathname.replace(/:(\w+)/g, (_, name) => encodeURIComponent(params[name]));
}

/** Throws unless `parse` refuses with a 400 (`bad_request`). */
function refuses(parse: () => unknown, what: string): void {
  assert.throws(parse, (error) => error instanceof SvcError && error.code === "bad_request", what);
}

Deno.test("every route of the relayer's table is in the document, described", async () => {
  await using t = await startTestRelayer();
  const document = await documentOf(t);
  assert.equal(document.openapi, "3.1.0");
  const routes = t.relayer.routes;
  assert.ok(routes.length >= 20);
  const missing = routes.filter((route) => !operationOf(document, route)).map(placeOf);
  assert.deepEqual(missing, [], "routes missing from the document");
  const operations = Object.values(document.paths).flatMap((path) => Object.keys(path));
  assert.equal(operations.length, routes.length, "the document has routes the table has not");

  // Until a route is converted (input declared, doc written), it is listed here.
  const undocumented = routes.filter((route) =>
    !route.doc ||
    // A JSON body the kernel does not parse for the handler is not described.
    (["POST", "PUT"].includes(route.method) && !route.streamBody && !route.input?.body &&
      !route.doc.body?.contentType) ||
    // A signed route's example is the request the tests below send.
    (route.input && !route.doc.example)
  ).map(placeOf);
  assert.deepEqual(undocumented, [], "routes without a declared input, doc or example");

  for (const route of routes) {
    const operation = operationOf(document, route);
    if (route.signed) {
      assert.deepEqual(operation.security, [{
        svcPublicKey: [],
        svcSignature: route.operations,
        svcTimestamp: [],
      }]);
      assert.deepEqual(
        operation["x-svc-scope"],
        route.operations.length > 0 ? route.operations : undefined,
      );
      assert.ok(operation.responses["401"] && operation.responses["403"], placeOf(route).join(" "));
    } else {
      assert.equal(operation["x-svc-scope"], undefined);
    }
  }
  // A correction erases the version it replaces: a generated client learns it needs both.
  assert.deepEqual(document.paths["/api/memories/{id}"].put["x-svc-scope"], ["write", "erase"]);
  const recall = document.paths["/api/recall"].post;
  assert.deepEqual(recall.security, [{
    svcPublicKey: [],
    svcSignature: ["read"],
    svcTimestamp: [],
  }]);
  assert.equal(recall["x-svc-access-log"], "recall");
  assert.deepEqual(document.paths["/api/mcp"].post.security, [{ mcpBearer: [], mcpAccount: [] }]);
  // MCP clients read JSON-RPC errors: the document says so, with the statuses they get.
  // deno-lint-ignore no-explicit-any
  const plain: any = document;
  const jsonRpc = { $ref: "#/components/schemas/JsonRpcError" };
  const mcpPost = plain.paths["/api/mcp"].post.responses;
  for (const status of ["400", "401", "404", "413", "415", "429", "503"]) {
    assert.deepEqual(mcpPost[status].content["application/json"].schema, jsonRpc, status);
  }
  assert.equal(mcpPost["413"].content["application/json"].example.error.data.limit_bytes, 4 << 20);
  assert.deepEqual(Object.keys(plain.paths["/api/mcp"].delete.responses).sort(), [
    "200",
    "400",
    "401",
    "403",
    "404",
    "409",
    "429",
    "503",
    "default",
  ]);
  // A transaction the sponsor does not pay for is a 403 (`not_sponsored`).
  assert.match(plain.paths["/sponsor"].post.responses["403"].description, /not_sponsored/);
  // A signed GET reads no body, but may still be refused a malformed header.
  assert.ok(plain.paths["/api/whoami"].get.responses["400"]);
  // An optional field given as null takes its default: the schema lets it be null.
  const recallBody = plain.paths["/api/recall"].post.requestBody.content["application/json"].schema;
  assert.deepEqual(recallBody.properties.limit.type, ["integer", "null"]);
  assert.equal(recallBody.properties.query.type, "string");
  assert.deepEqual(document.paths["/health"].get.security, []);
  for (const name of ["svcPublicKey", "svcSignature", "svcTimestamp", "mcpBearer"]) {
    assert.ok(document.components.securitySchemes[name], name);
  }
});

Deno.test("the document holds together: every $ref resolves, responses and parameters are whole", async () => {
  await using t = await startTestRelayer();
  const document = await documentOf(t);
  const refs: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (typeof value !== "object" || value === null) return;
    for (const [key, inner] of Object.entries(value)) {
      if (key === "$ref") refs.push(inner as string);
      else walk(inner);
    }
  };
  walk(document);
  assert.ok(refs.length > 50);
  for (const ref of new Set(refs)) {
    const [, section, name] = ref.match(/^#\/components\/(\w+)\/(\w+)$/) ?? [];
    assert.ok(section && document.components[section]?.[name], `${ref} does not resolve`);
  }
  const ids = new Set<string>();
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const where = `${method} ${path}`;
      assert.ok(!ids.has(operation.operationId), `${where}: operationId used twice`);
      ids.add(operation.operationId);
      assert.equal(typeof operation.summary, "string", where);
      for (const response of Object.values(operation.responses) as Record<string, unknown>[]) {
        assert.ok(typeof response.description === "string" || response.$ref, where);
      }
      for (const parameter of operation.parameters ?? []) {
        if (parameter.$ref) continue;
        assert.ok(parameter.name && parameter.in && parameter.schema, where);
        if (parameter.in === "path") {
          assert.ok(path.includes(`{${parameter.name}}`), `${where}: ${parameter.name}`);
        }
      }
      // A schema the document gives compiles as JSON Schema 2020-12.
      const body = operation.requestBody?.content["application/json"]?.schema;
      if (body) ajv.compile(body);
    }
  }
});

Deno.test("each example request passes its route's validators and the document's schemas", async () => {
  await using t = await startTestRelayer();
  const document = await documentOf(t);
  let checked = 0;
  for (const route of t.relayer.routes.filter((route) => route.input)) {
    const where = placeOf(route).join(" ");
    const { input, doc } = route;
    const example = doc!.example!;
    const operation = operationOf(document, route);
    if (input!.params) input!.params.parseObject(example.params ?? {});
    if (input!.query) {
      input!.query.parseQuery(new URLSearchParams(queryString(example.query).slice(1)));
    }
    if (input!.body) {
      input!.body.parseObject(example.body as Record<string, unknown>);
      const schema = operation.requestBody!.content["application/json"].schema!;
      assert.ok(ajv.validate(schema, example.body), `${where}: ${ajv.errorsText()}`);
      assert.deepEqual(operation.requestBody!.content["application/json"].example, example.body);
    }
    for (const parameter of operation.parameters ?? []) {
      if (!("in" in parameter) || parameter.in === "header") continue;
      const source = parameter.in === "path" ? example.params : example.query;
      const value = source?.[parameter.name as string];
      if (value === undefined) {
        assert.equal(parameter.required, false, `${where}: ${parameter.name} has no example`);
        continue;
      }
      // Path parameters and query values arrive as text; integers are read as numbers.
      assert.ok(ajv.validate(parameter.schema as object, value), `${where}: ${ajv.errorsText()}`);
    }
    checked++;
  }
  assert.ok(checked >= 14, `only ${checked} routes declare their input`);
});

Deno.test("what the document refuses, the validators refuse", async () => {
  await using t = await startTestRelayer();
  const document = await documentOf(t);
  let refused = 0;
  for (const route of t.relayer.routes.filter((route) => route.input?.body)) {
    const where = placeOf(route).join(" ");
    const shape = route.input!.body!;
    const example = route.doc!.example!.body as Record<string, unknown>;
    const schema = operationOf(document, route).requestBody!.content["application/json"].schema!;
    const properties = schema.properties as Record<string, Record<string, unknown>>;
    const cases: [string, Record<string, unknown>][] = [];
    for (const name of (schema.required as string[] | undefined) ?? []) {
      const { [name]: _, ...without } = example;
      cases.push([`${name} left out`, without]);
    }
    for (const [name, property] of Object.entries(properties)) {
      if (typeof property.maximum === "number") {
        cases.push([`${name} over its maximum`, { ...example, [name]: property.maximum + 1 }]);
      }
      if (typeof property.maxItems === "number" && Array.isArray(example[name])) {
        const long = Array.from({ length: property.maxItems + 1 }, (_, i) => `item-${i}`);
        cases.push([`${name} too long`, { ...example, [name]: long }]);
      }
      if (property.type === "string" && property.minLength === 1) {
        cases.push([`${name} empty`, { ...example, [name]: "" }]);
      }
    }
    for (const [what, body] of cases) {
      assert.equal(ajv.validate(schema, body), false, `${where}: the schema takes ${what}`);
      refuses(() => shape.parseObject(body), `${where}: the validators take ${what}`);
      refused++;
    }
  }
  assert.ok(refused >= 20, `only ${refused} cases`);
});

Deno.test("the relayer answers every example request with a documented status, never a 400", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const document = await documentOf(t);
  for (const route of t.relayer.routes) {
    const where = placeOf(route).join(" ");
    const example = route.doc?.example ?? {};
    const body = example.body ?? route.doc?.body?.example;
    const path = pathOf(route) + queryString(example.query);
    const contentType = route.doc?.body?.contentType;
    const res = route.signed
      ? await t.signed(
        caller,
        route.method,
        path,
        body,
        contentType ? { "content-type": contentType } : undefined,
      )
      : await t.send(route.method, path, {
        headers: { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const answer = await res.text();
    assert.ok(![400, 415].includes(res.status), `${where}: ${res.status} ${answer}`);
    const documented = Object.keys(operationOf(document, route).responses);
    assert.ok(
      documented.includes(String(res.status)) || res.status >= 500,
      `${where}: ${res.status} is not documented (${documented}): ${answer}`,
    );
  }
});

Deno.test("the document tells what erasing and correcting need: confirm, the erase scope, a 404", async () => {
  await using t = await startTestRelayer();
  const { paths } = await documentOf(t);
  const eraseNamespace = paths["/api/memories"].delete;
  const confirm = eraseNamespace.parameters?.find((p) => p.name === "confirm");
  assert.equal(confirm?.required, true);
  for (const correcting of [paths["/api/memories/{id}"].put, paths["/api/remember"].post]) {
    assert.match(String(correcting.description), /needs `erase` as well as `write`/);
  }
  assert.ok(paths["/api/remember"].post.responses["404"]);
});
