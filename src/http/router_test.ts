import assert from "node:assert/strict";
import { jsonResponse } from "./respond.ts";
import { matchRoute, type Route, route } from "./router.ts";

const ok = () => Promise.resolve(jsonResponse(200, {}));

Deno.test("router: a route matches as its URLPattern does, in table order, with 405 and 404", () => {
  const routes = [
    route("GET", "/api/memories/export", ok),
    route("GET", "/api/memories/:id", ok),
    route("DELETE", "/api/memories/:id", ok),
    route("POST", "/api/recall", ok),
    route("GET", "/api/whoami", ok, { signed: true }),
    route("GET", "/api/mcp/sse", ok, { streamBody: true }),
    route("GET", "/files/*", ok),
    route("GET", "/items/:id(\\d+)", ok),
    route("GET", "/items/:id{.json}?", ok),
    route("GET", "/caf%C3%A9", ok),
    route("GET", "/", ok),
  ];
  /** The table read pattern by pattern, as matching is defined. */
  const expected = (method: string, url: string) => {
    const allow = new Set<string>();
    const named = (candidate: Route) => !/[:*(){}\\?+]/.test(candidate.pattern.pathname);
    const exact = routes.some((candidate) => named(candidate) && candidate.pattern.exec(url));
    for (const candidate of routes) {
      const match = candidate.pattern.exec(url);
      if (!match || (exact && !named(candidate))) continue;
      const head = candidate.method === "GET" && !candidate.signed && !candidate.streamBody;
      if (candidate.method === method || (head && method === "HEAD")) {
        const params = Object.fromEntries(
          Object.entries(match.pathname.groups).filter(([, value]) => value !== undefined),
        );
        return { kind: "found", route: candidate, params };
      }
      allow.add(candidate.method);
      if (head) allow.add("HEAD");
    }
    return allow.size ? { kind: "wrong_method", allow: [...allow] } : { kind: "none" };
  };
  const paths = [
    "/api/memories/export",
    "/api/memories/abc",
    "/api/memories/",
    "/api/memories",
    "/api/memories/a/b",
    "/api/recall",
    "/api/recall/",
    "/api/recall?query=x",
    "/api/whoami",
    "/api/mcp/sse",
    "/API/recall",
    "/api/%72ecall",
    "/api/./recall",
    "/api/x/../recall",
    "/files/",
    "/files/a/b.txt",
    "/files",
    "/items/42",
    "/items/42.json",
    "/items/abc.json",
    "/items/",
    "/café",
    "/caf%C3%A9",
    "/",
    "/nothing",
  ];
  for (const path of paths) {
    for (const method of ["GET", "HEAD", "POST", "DELETE", "PUT"]) {
      const url = `http://127.0.0.1:4321${path}`;
      assert.deepEqual(matchRoute(routes, method, url), expected(method, url), `${method} ${path}`);
    }
  }
  const found = matchRoute(routes, "GET", "http://h/api/memories/m1");
  assert.equal(found.kind === "found" && found.params.id, "m1");
  assert.deepEqual(matchRoute(routes, "PUT", "http://h/api/recall"), {
    kind: "wrong_method",
    allow: ["POST"],
  });
  assert.equal(matchRoute(routes, "HEAD", "http://h/").kind, "found");
  // A path a route names is not read as another route's parameter.
  assert.deepEqual(matchRoute(routes, "DELETE", "http://h/api/memories/export"), {
    kind: "wrong_method",
    allow: ["GET", "HEAD"],
  });
  for (const path of ["/api/whoami", "/api/mcp/sse"]) {
    assert.deepEqual(matchRoute(routes, "HEAD", `http://h${path}`), {
      kind: "wrong_method",
      allow: ["GET"],
    });
  }
});
