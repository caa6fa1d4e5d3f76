import assert from "node:assert/strict";
import { reachedOrigin } from "./service.ts";

Deno.test("reachedOrigin: behind a TLS proxy, the public origin with the request's host", () => {
  const origins = new Set(["http://127.0.0.1:8000", "https://svc.example"]);
  const at = (url: string) => reachedOrigin(new Request(url), origins);
  assert.equal(at("http://svc.example/config"), "https://svc.example");
  assert.equal(at("http://127.0.0.1:8000/config"), "http://127.0.0.1:8000");
  // A name the relayer does not know is answered as the request came.
  assert.equal(at("http://localhost:8000/config"), "http://localhost:8000");
  assert.equal(reachedOrigin(new Request("http://[::1]:9/config")), "http://[::1]:9");
});
