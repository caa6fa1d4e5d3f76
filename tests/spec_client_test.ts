/**
 * A client written from the specification alone: its own signer (signature version 1, the plain
 * four-part message, no nonce, no audience, no `x-account-id`), every route of the specification,
 * polling four times a second as SDKs poll. It never sees a 409 or a 429; a write sent twice is
 * still refused as a replay.
 */
import assert from "node:assert/strict";
import { initializeRequest, startMcpStack } from "./mcp_fixtures.ts";

/** PKCS #8 framing of a raw Ed25519 seed, which WebCrypto imports. */
const PKCS8_PREFIX = Uint8Array.from([
  0x30,
  0x2e,
  0x02,
  0x01,
  0x00,
  0x30,
  0x05,
  0x06,
  0x03,
  0x2b,
  0x65,
  0x70,
  0x04,
  0x22,
  0x04,
  0x20,
]);

const hex = (bytes: ArrayBuffer | Uint8Array) => new Uint8Array(bytes).toHex();

/** The specification's signer: `{timestamp}.{METHOD}.{path}.{sha256_hex(body)}`, Ed25519. */
async function specSigner(seedHex: string, publicKeyHex: string) {
  const seed = Uint8Array.fromHex(seedHex);
  const key = await crypto.subtle.importKey(
    "pkcs8",
    new Uint8Array([...PKCS8_PREFIX, ...seed]),
    "Ed25519",
    false,
    ["sign"],
  );
  /** `tail` goes after the body's hash (`{nonce}.{account_id}` in the later SDKs' form). */
  return async (method: string, path: string, body: string, timestamp: number, tail?: string) => {
    const digest = hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body)));
    const message = `${timestamp}.${method}.${path}.${digest}${tail ? `.${tail}` : ""}`;
    const signature = await crypto.subtle.sign("Ed25519", key, new TextEncoder().encode(message));
    return {
      "x-public-key": publicKeyHex,
      "x-signature": hex(signature),
      "x-timestamp": String(timestamp),
    };
  };
}

Deno.test("spec client: every route of the specification, polling 4 times a second, never a 409 or 429", async () => {
  await using stack = await startMcpStack();
  const alice = await stack.test.newCaller();
  const sign = await specSigner(alice.key.privateKey, alice.key.publicKey);
  const seen: string[] = [];
  /** Sends a request signed at `timestamp` (this second by default), as the client sends it. */
  const send = async (method: string, path: string, body?: unknown, timestamp?: number) => {
    const text = body === undefined ? "" : JSON.stringify(body);
    const at = timestamp ?? Math.floor(Date.now() / 1000);
    const response = await fetch(`${stack.url}${path}`, {
      method,
      headers: {
        ...(await sign(method, path, text, at)),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : text,
    });
    const json = await response.json();
    seen.push(`${response.status} ${method} ${path}`);
    return { status: response.status, json };
  };
  /** Sends the same signed request `times` times, 250 ms apart (the same second's signature). */
  const poll = async (method: string, path: string, body: unknown, times = 4) => {
    const at = Math.floor(Date.now() / 1000);
    const answers = [];
    for (let i = 0; i < times; i++) {
      answers.push(await send(method, path, body, at));
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return answers;
  };

  const health = await fetch(`${stack.url}/health`);
  assert.equal(health.status, 200);
  await health.body?.cancel();

  const one = await send("POST", "/api/remember", { text: "I am vegetarian" });
  assert.equal(one.status, 202);
  for (const { status, json } of await poll("GET", `/api/remember/${one.json.job_id}`, undefined)) {
    assert.equal(status, 200);
    assert.ok(["pending", "running", "done"].includes(json.status), json.status);
  }
  const bulk = await send("POST", "/api/remember/bulk", {
    items: [{ text: "I live in Bergen" }, { text: "My dentist is Dr Berg", namespace: "health" }],
  });
  assert.equal(bulk.status, 202);
  let done = false;
  for (let round = 0; round < 20 && !done; round++) {
    for (const { status, json } of await poll("POST", "/api/remember/bulk/status", bulk.json)) {
      assert.equal(status, 200);
      done = json.results.every((job: { status: string }) => job.status === "done");
    }
  }
  assert.ok(done, "the bulk was stored");

  for (const { status, json } of await poll("POST", "/api/recall", { query: "vegetarian" })) {
    assert.equal(status, 200);
    assert.equal(json.results[0].text, "I am vegetarian");
  }
  const vector = Array.from({ length: stack.test.vectors.dimensions }, (_, i) => (i % 3) / 3);
  const manual = await send("POST", "/api/remember/manual", {
    encrypted_data: btoa("the client's own ciphertext"),
    vector,
  });
  assert.equal(manual.status, 200);
  for (const { status, json } of await poll("POST", "/api/recall/manual", { vector, limit: 3 })) {
    assert.equal(status, 200);
    assert.ok(json.results.some((r: { id: string }) => r.id === manual.json.id));
  }
  const analyzed = await send("POST", "/api/analyze", { text: "I keep bees. I play chess." });
  assert.equal(analyzed.status, 202);
  // Asked once: a question runs the language model, and is not sent again unsigned anew.
  assert.equal((await send("POST", "/api/ask", { question: "Where do I live?" })).status, 200);
  const restored = await send("POST", "/api/restore", { namespace: "health" });
  assert.equal(restored.status, 200);
  assert.equal(restored.json.namespace, "health");

  // The MCP routes, with the bearer and account headers the specification gives hosts.
  const bearer = {
    authorization: `Bearer ${alice.key.privateKey}`,
    "x-svc-account-id": alice.accountId,
  };
  for (let i = 0; i < 4; i++) {
    const opened = await fetch(`${stack.url}/api/mcp`, initializeRequest(bearer));
    assert.equal(opened.status, 200);
    await opened.body?.cancel();
  }

  const refused = seen.filter((line) => /^(409|429) /.test(line));
  assert.deepEqual(refused, [], "no request of a well-behaved client refused");

  // A write sent again is still refused: it would store the text twice.
  const at = Math.floor(Date.now() / 1000);
  assert.equal((await send("POST", "/api/remember", { text: "I cycle", x: 1 }, at)).status, 202);
  const again = await send("POST", "/api/remember", { text: "I cycle", x: 1 }, at);
  assert.equal(again.status, 409);
  assert.equal(again.json.code, "replayed_request");
});

Deno.test("spec client: the later SDKs' form signs the nonce and the account id after the body's hash", async () => {
  await using stack = await startMcpStack();
  const alice = await stack.test.newCaller();
  const sign = await specSigner(alice.key.privateKey, alice.key.publicKey);
  /** A request as the reference system's Python SDK sends it: JSON without spaces, a UUID nonce. */
  const send = async (path: string, body: unknown, nonce: string, accountId = alice.accountId) => {
    const text = JSON.stringify(body);
    const headers = await sign(
      "POST",
      path,
      text,
      Math.floor(Date.now() / 1000),
      nonce + "." + accountId,
    );
    const response = await fetch(`${stack.url}${path}`, {
      method: "POST",
      headers: {
        ...headers,
        "x-nonce": nonce,
        "x-account-id": alice.accountId,
        "content-type": "application/json",
      },
      body: text,
    });
    return { status: response.status, json: await response.json() };
  };
  const nonce = crypto.randomUUID();
  const saved = await send("/api/remember", { text: "I am vegetarian" }, nonce);
  assert.equal(saved.status, 202, JSON.stringify(saved.json));
  const replayed = await send("/api/remember", { text: "I am vegetarian" }, nonce);
  assert.deepEqual([replayed.status, replayed.json.code], [409, "replayed_request"]);
  const recalled = await send("/api/recall", { query: "vegetarian" }, crypto.randomUUID());
  assert.equal(recalled.status, 200);
  // The account id signed must be the one sent.
  const swapped = await send(
    "/api/recall",
    { query: "x" },
    crypto.randomUUID(),
    "0x" + "ab".repeat(32),
  );
  assert.deepEqual([swapped.status, swapped.json.reason], [401, "bad_signature"]);
});
