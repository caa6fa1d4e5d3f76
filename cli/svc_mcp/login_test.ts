import assert from "node:assert/strict";
import { confirmationCode } from "./confirmation_code.ts";
import { CredentialsFile } from "./credentials.ts";
import { type LoginOptions, type PendingLogin, startLogin } from "./login.ts";
import { LoginDenied, loginProof, MAX_CALLBACK_BYTES } from "./login_callback.ts";

import { ERROR_STATUS, type ErrorCode } from "@svc/relayer/kit";

const DASHBOARD = "http://localhost:5173";

async function withLogin(
  use: (login: PendingLogin, file: CredentialsFile, params: URLSearchParams) => Promise<void>,
  ttlMs?: number,
  asked: Pick<LoginOptions, "scope" | "expires" | "bodyTimeoutMs"> = {},
) {
  const home = await Deno.makeTempDir();
  const file = CredentialsFile.inHome(home);
  const login = await startLogin({
    webUrl: DASHBOARD,
    relayerUrl: "http://127.0.0.1:8000",
    label: "test host",
    file,
    ttlMs,
    ...asked,
  });
  try {
    await use(login, file, new URL(login.url).searchParams);
  } finally {
    await login.close();
    await Deno.remove(home, { recursive: true });
  }
}

/** Sends one raw HTTP/1.1 request (so Host can be anything) and returns the status. */
async function rawStatus(port: number, head: string, body = ""): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const bytes = new TextEncoder().encode(body);
    await conn.write(
      new TextEncoder().encode(`${head}\r\ncontent-length: ${bytes.length}\r\n\r\n${body}`),
    );
    const reply = new Uint8Array(4096);
    const n = await conn.read(reply);
    return Number(new TextDecoder().decode(reply.subarray(0, n ?? 0)).split(" ")[1]);
  } finally {
    conn.close();
  }
}

function callback(params: URLSearchParams, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`http://127.0.0.1:${params.get("port")}/callback`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: DASHBOARD, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

const approval = (state: string) => ({
  accountId: "0x" + "ab".repeat(32),
  walletAddress: "0x" + "cd".repeat(32),
  packageId: "0x" + "ef".repeat(32),
  txDigest: "digest",
  label: "test host",
  state,
});

Deno.test("login: the URL carries the key, state and a matching confirmation code", async () => {
  await withLogin(async (login, _file, params) => {
    assert.ok(login.url.startsWith(`${DASHBOARD}/connect/mcp?`));
    const publicKey = params.get("publicKey")!;
    assert.match(publicKey, /^[0-9a-f]{64}$/);
    assert.match(params.get("state")!, /^[0-9a-f]{64}$/);
    assert.match(params.get("delegateAddress")!, /^0x[0-9a-f]{64}$/);
    assert.equal(params.get("relayer"), "http://127.0.0.1:8000");
    assert.equal(params.get("label"), "test host");
    assert.equal(login.code, await confirmationCode(publicKey));
    assert.match(login.code, /^[0-9A-F]{4}-[0-9A-F]{4}$/);
    assert.ok(login.expiresAt.getTime() > Date.now() + 4 * 60_000);
  });
});

Deno.test("login: the callback refuses wrong Host, Origin, path, type, size and state", async () => {
  await withLogin(async (_login, file, params) => {
    const port = Number(params.get("port"));
    const state = params.get("state")!;
    const json = JSON.stringify(approval(state));
    const post =
      `POST /callback HTTP/1.1\r\norigin: ${DASHBOARD}\r\ncontent-type: application/json`;
    assert.equal(await rawStatus(port, `${post}\r\nhost: evil.example:${port}`, json), 403);
    assert.equal(await rawStatus(port, `${post}\r\nhost: 127.0.0.1:${port + 1}`, json), 403);
    // The right Host passes that check and reaches the next one (a wrong state here).
    const wrongState = JSON.stringify(approval("0".repeat(64)));
    assert.equal(await rawStatus(port, `${post}\r\nhost: localhost:${port}`, wrongState), 403);
    assert.equal(await rawStatus(port, `${post}\r\nhost: localhost:${port}`, "{}"), 403);

    const cases: [Response, number][] = [
      [await callback(params, approval(state), { origin: "http://evil.example" }), 403],
      [
        await fetch(`http://127.0.0.1:${port}/callback`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: json,
        }),
        403,
      ],
      [
        await fetch(`http://127.0.0.1:${port}/other`, {
          method: "POST",
          headers: { origin: DASHBOARD },
          body: json,
        }),
        404,
      ],
      [await fetch(`http://127.0.0.1:${port}/callback`, { headers: { origin: DASHBOARD } }), 405],
      [await callback(params, json, { "content-type": "text/plain" }), 415],
      [await callback(params, "x".repeat(MAX_CALLBACK_BYTES + 1)), 413],
      [await callback(params, "{nope"), 400],
      [await callback(params, approval("0".repeat(64))), 403],
      [await callback(params, approval(state.slice(0, 63))), 403],
      [await callback(params, { ...approval(state), accountId: "me" }), 400],
    ];
    for (const [response, status] of cases) {
      // The relayer's error body: a sentence, a stable code, a request id.
      const body = await response.json();
      assert.equal(response.status, status, body.error);
      assert.equal(typeof body.error, "string");
      assert.equal(ERROR_STATUS[body.code as ErrorCode], status, body.code);
      assert.match(body.request_id, /^[0-9a-f-]{36}$/);
    }
    assert.deepEqual(await file.load(), { kind: "missing" });
  });
});

Deno.test("login: a callback body that stops arriving is answered 408, and the link still works", async () => {
  await withLogin(
    async (login, _file, params) => {
      const port = Number(params.get("port"));
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      try {
        await conn.write(new TextEncoder().encode(
          `POST /callback HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\norigin: ${DASHBOARD}\r\n` +
            `content-type: application/json\r\ncontent-length: 500\r\n\r\n{"accountId"`,
        ));
        const reply = new Uint8Array(4096);
        const n = await conn.read(reply);
        assert.match(new TextDecoder().decode(reply.subarray(0, n ?? 0)), /^HTTP\/1\.1 408 /);
      } finally {
        conn.close();
      }
      const approved = await callback(params, approval(params.get("state")!));
      assert.equal(approved.status, 200, await approved.text());
      await login.done;
    },
    undefined,
    { bodyTimeoutMs: 100 },
  );
});

Deno.test("login: the dashboard's callback saves credentials once, then the link is spent", async () => {
  await withLogin(async (login, file, params) => {
    const preflight = await fetch(`http://127.0.0.1:${params.get("port")}/callback`, {
      method: "OPTIONS",
      headers: { origin: DASHBOARD, "access-control-request-method": "POST" },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), DASHBOARD);
    await preflight.body?.cancel();

    // Before approving, the dashboard checks that this agent made the link.
    const nonce = "ab".repeat(16);
    const verified = await fetch(`http://127.0.0.1:${params.get("port")}/verify`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: DASHBOARD },
      body: JSON.stringify({ nonce }),
    });
    const linkParams = new URLSearchParams(params);
    linkParams.delete("state");
    const { proof } = await verified.json();
    assert.equal(proof, await loginProof(params.get("state")!, nonce, linkParams.toString()));
    assert.notEqual(proof, await loginProof("0".repeat(64), nonce, linkParams.toString()));
    // A link whose label (or relayer, or scope) was altered does not prove.
    linkParams.set("label", "evil");
    assert.notEqual(proof, await loginProof(params.get("state")!, nonce, linkParams.toString()));

    const ok = await callback(params, approval(params.get("state")!));
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get("access-control-allow-origin"), DASHBOARD);
    assert.match(await ok.text(), /Signed in/);
    const saved = await login.done;
    const loaded = await file.load();
    assert.deepEqual(loaded, { kind: "ok", credentials: saved });
    assert.equal(saved.delegatePublicKey, params.get("publicKey"));
    assert.equal(saved.accountId, "0x" + "ab".repeat(32));
    assert.equal(saved.relayerUrl, "http://127.0.0.1:8000");

    const again = await callback(params, approval(params.get("state")!)).then(
      (response) => response.status,
      () => "closed",
    );
    assert.ok(again === 409 || again === "closed", String(again));
  });
});

Deno.test("login: an expired or replaced link fails", async () => {
  await withLogin(async (login, file, params) => {
    await assert.rejects(login.done, /^Error: The sign-in link expired$/);
    const late = await callback(params, approval(params.get("state")!)).then(
      (response) => response.status,
      () => "closed",
    );
    assert.ok(late === 409 || late === "closed", String(late));
    assert.deepEqual(await file.load(), { kind: "missing" });
  }, 50);
  await withLogin(async (login) => {
    await login.close();
    await assert.rejects(login.done, /replaced/);
  });
});

Deno.test("login: a Deny on the dashboard ends the sign-in at once, saving nothing", async () => {
  await withLogin(async (login, file, params) => {
    const deny = (state: string) =>
      fetch(`http://127.0.0.1:${params.get("port")}/deny`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: DASHBOARD },
        body: JSON.stringify({ state }),
      });
    const forged = await deny("0".repeat(64));
    assert.equal(forged.status, 403, "only the link's state may deny it");
    await forged.body?.cancel();
    assert.equal(login.outcome(), undefined);

    const denied = await deny(params.get("state")!);
    assert.equal(denied.status, 200);
    // Decided by the time the dashboard hears the answer, before `done` settles.
    assert.match(String(login.outcome()), /denied on the dashboard/);
    assert.deepEqual(await denied.json(), { denied: true });
    await assert.rejects(login.done, LoginDenied);
    assert.deepEqual(await file.load(), { kind: "missing" });
    const late = await callback(params, approval(params.get("state")!)).then(
      (response) => response.status,
      () => "closed",
    );
    assert.ok(late === 409 || late === "closed", String(late));
  });
});

Deno.test("login: the URL asks for the scope; the credentials keep what the dashboard approved", async () => {
  const asked = {
    scope: { namespaces: ["notes", "work"], operations: ["read", "write"] as const },
    expires: "30d",
  };
  await withLogin(
    async (login, _file, params) => {
      assert.equal(params.get("operations"), "read,write");
      assert.deepEqual(params.getAll("namespace"), ["notes", "work"]);
      assert.equal(params.get("expires"), "30d");
      const approved = {
        ...approval(params.get("state")!),
        namespaces: ["work"],
        operations: ["read"],
        expires_at: "2030-01-01T00:00:00.000Z",
      };
      const refused = await callback(params, { ...approved, operations: ["fly"] });
      assert.equal(refused.status, 400);
      assert.match((await refused.json()).error, /approved scope is malformed/);
      const ok = await callback(params, approved);
      assert.equal(ok.status, 200);
      await ok.body?.cancel();
      assert.deepEqual((await login.done).scope, {
        namespaces: ["work"],
        operations: ["read"],
        expires_at: "2030-01-01T00:00:00.000Z",
      });
    },
    undefined,
    { ...asked, scope: { ...asked.scope, operations: [...asked.scope.operations] } },
  );
  // Without a scope the URL asks for nothing, and full access is what is kept.
  await withLogin(async (login, _file, params) => {
    for (const name of ["operations", "namespace", "expires"]) {
      assert.equal(params.has(name), false);
    }
    const ok = await callback(params, approval(params.get("state")!));
    await ok.body?.cancel();
    assert.deepEqual((await login.done).scope, {
      namespaces: null,
      operations: null,
      expires_at: null,
    });
  });
});
