import assert from "node:assert/strict";
import { SvcClient } from "./mod.ts";

const KEY = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";

async function sentHeaders(sendDelegateKey: boolean) {
  const seen = new Map<string, Headers>();
  const client = await SvcClient.create({
    baseUrl: "https://relayer.test",
    privateKey: KEY,
    sendDelegateKey,
    fetch: (input, init) => {
      seen.set(new URL(String(input)).pathname, new Headers(init?.headers));
      return Promise.resolve(Response.json({ results: [], total: 0 }));
    },
  });
  for (const path of ["/api/recall", "/api/ask", "/api/restore", "/api/remember"]) {
    await client.request("POST", path, {});
  }
  await client.request("GET", "/api/whoami");
  return seen;
}

Deno.test("the delegate key is sent only on decrypting calls, and only when asked", async () => {
  const on = await sentHeaders(true);
  for (const path of ["/api/recall", "/api/ask", "/api/restore"]) {
    assert.equal(on.get(path)!.get("x-delegate-key"), KEY, path);
  }
  for (const path of ["/api/remember", "/api/whoami"]) {
    assert.equal(on.get(path)!.get("x-delegate-key"), null, path);
  }
  for (const headers of (await sentHeaders(false)).values()) {
    assert.equal(headers.get("x-delegate-key"), null);
  }
});

Deno.test("the delegate key travels only over https or to this machine", async () => {
  for (const baseUrl of ["http://127.0.0.1:8000", "http://localhost:8000", "http://[::1]:8000"]) {
    await SvcClient.create({ baseUrl, privateKey: KEY, sendDelegateKey: true });
  }
  await assert.rejects(
    SvcClient.create({ baseUrl: "http://relayer.example", privateKey: KEY, sendDelegateKey: true }),
    /over https or on loopback/,
  );
  await SvcClient.create({ baseUrl: "http://relayer.example", privateKey: KEY });
});
