/**
 * One MCP sign-in: a fresh delegate key, a 32-byte random `state`, and a callback listener on
 * 127.0.0.1 that lives 5 minutes. The person opens the one-time URL on the dashboard, which
 * adds the key to their account and posts `{accountId, walletAddress, packageId, txDigest,
 * label, state}` to `/callback`; the listener checks Host, Origin, content type, size and
 * state, writes the credentials, answers, and shuts down. Before approving, the dashboard asks
 * `/verify` for an HMAC of its nonce keyed by the state: proof that the link was made by an
 * agent waiting on this computer, not sent by someone else. A Deny posts `{state}` to `/deny`,
 * which ends the sign-in with "the request was denied".
 *
 * The URL names the scope the agent asks for (`operations=read,write`, `namespace=…` once per
 * namespace, `expires=30d` or an ISO time; absent: no limit); the dashboard shows it and may
 * narrow it, and the callback carries what was approved (`namespaces`, `operations`,
 * `expires_at`), which the credentials keep for display.
 */
import { timingSafeEqual } from "../../src/auth/compare.ts";
import { confirmationCode } from "../../src/auth/confirmation_code.ts";
import { ACCOUNT_ID, addressOf, generateKeyPair } from "../../src/auth/keys.ts";
import { keyLimitsJson, parseKeyLimits } from "../../src/auth/key_limits.ts";
import type { KeyScope } from "../../src/backends/types.ts";
import { ERROR_STATUS, type ErrorCode, SvcError } from "../../src/errors.ts";
import { readBody } from "../../src/http/body.ts";
import type { Credentials, CredentialsFile } from "./credentials.ts";

const LOGIN_TTL_MS = 5 * 60_000;
export const MAX_CALLBACK_BYTES = 16 * 1024;

/** The person pressed Deny on the dashboard. */
export class LoginDenied extends Error {
  constructor() {
    super("The sign-in request was denied on the dashboard");
  }
}

export interface LoginOptions {
  webUrl: string;
  relayerUrl: string;
  label: string;
  file: CredentialsFile;
  ttlMs?: number;
  /** The scope to ask for; absent or `{}`: full access. */
  scope?: KeyScope;
  /** The expiry to ask for: a duration from the approval (`30d`) or an ISO 8601 time. */
  expires?: string;
  /** The time the dashboard's callback body has to arrive in full (default 10 s), then 408. */
  bodyTimeoutMs?: number;
}

export interface PendingLogin {
  /** The one-time consent URL on the dashboard. */
  url: string;
  /** Shown here and on the dashboard, so the person can match them. */
  code: string;
  expiresAt: Date;
  /**
   * Resolves with the saved credentials once the dashboard has its answer; rejects when the
   * login is denied, expires or is replaced.
   */
  done: Promise<Credentials>;
  /**
   * The outcome as soon as it is decided: `done` settles a moment later, once the answer to
   * the dashboard is sent.
   */
  outcome(): Credentials | Error | undefined;
  /** Stops listening (a newer login replaces this one). */
  close(): Promise<void>;
}

const HTML_DONE = `<!doctype html><meta charset="utf-8"><title>svc: signed in</title>
<p style="font-family:system-ui;margin:3rem">Signed in. You can close this tab and go back to
your agent.</p>`;

/**
 * HMAC-SHA256, keyed by the state, of the dashboard's nonce and the link's parameters but the
 * state (`linkParams`, as `URLSearchParams` writes them): the dashboard learns that the agent
 * waiting made this very link, label, relayer and scope included.
 */
export async function loginProof(
  state: string,
  nonce: string,
  linkParams: string,
): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    Uint8Array.fromHex(state),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const message = new TextEncoder().encode(`svc-login-verify:${nonce}:${linkParams}`);
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, message)).toHex();
}

export async function startLogin(options: LoginOptions): Promise<PendingLogin> {
  const key = await generateKeyPair();
  const state = crypto.getRandomValues(new Uint8Array(32)).toHex();
  const dashboard = new URL(options.webUrl).origin;
  const ttl = options.ttlMs ?? LOGIN_TTL_MS;
  const expiresAt = Date.now() + ttl;
  let used = false;
  /** The link's parameters but the state, which `loginProof` covers. */
  let linkParams = "";
  let settle!: { resolve: (c: Credentials) => void; reject: (e: Error) => void };
  const done = new Promise<Credentials>((resolve, reject) => settle = { resolve, reject });
  done.catch(() => {}); // callers that never await it must not see an unhandled rejection

  const cors = { "access-control-allow-origin": dashboard, vary: "origin" };
  /** A refusal in the relayer's error body. */
  const fail = (code: ErrorCode, error: string) =>
    new Response(JSON.stringify({ error, code, request_id: crypto.randomUUID() }), {
      status: ERROR_STATUS[code],
      headers: { "content-type": "application/json", ...cors },
    });

  async function callback(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    const host = request.headers.get("host");
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
      return fail("forbidden", "Wrong Host for the sign-in callback");
    }
    if (request.headers.get("origin") !== dashboard) {
      return fail("forbidden", `Only the dashboard (${dashboard}) may complete this sign-in`);
    }
    if (!["/callback", "/verify", "/deny"].includes(pathname)) {
      return fail("not_found", "Not found");
    }
    if (request.method === "OPTIONS") {
      return new Response(null, {
        status: 204,
        headers: {
          ...cors,
          "access-control-allow-methods": "POST",
          "access-control-allow-headers": "content-type",
          "access-control-allow-private-network": "true",
          "access-control-max-age": "300",
        },
      });
    }
    if (request.method !== "POST") return fail("method_not_allowed", "Use POST");
    if (used || Date.now() > expiresAt) {
      return fail(
        "conflict",
        "This sign-in link has expired or was already used; call svc_login again",
      );
    }
    if (!/^application\/json\s*(;|$)/i.test(request.headers.get("content-type") ?? "")) {
      return fail("unsupported_media_type", "Send the callback as application/json");
    }
    let body: Uint8Array;
    try {
      body = await readBody(request, MAX_CALLBACK_BYTES, {
        timeoutMs: options.bodyTimeoutMs ?? 10_000,
      });
    } catch (error) {
      if (!(error instanceof SvcError)) throw error;
      return fail(error.code, error.message);
    }
    if (used) return fail("conflict", "This sign-in link was already used; call svc_login again");
    let fields: Record<string, unknown>;
    try {
      fields = JSON.parse(new TextDecoder().decode(body));
    } catch {
      return fail("bad_request", "The callback body is not JSON");
    }
    const text = (name: string) => typeof fields?.[name] === "string" ? fields[name] as string : "";
    if (pathname === "/verify") {
      // Proves, before the dashboard changes the account, that this link comes from an agent
      // waiting on this computer, without revealing the state.
      if (!/^[0-9a-f]{32,128}$/.test(text("nonce"))) return fail("bad_request", "Send a hex nonce");
      return new Response(
        JSON.stringify({ proof: await loginProof(state, text("nonce"), linkParams) }),
        {
          headers: { "content-type": "application/json", ...cors },
        },
      );
    }
    if (!timingSafeEqual(text("state"), state)) {
      return fail("forbidden", "Wrong state for this sign-in");
    }
    if (pathname === "/deny") {
      used = true;
      end(new LoginDenied());
      return new Response(JSON.stringify({ denied: true }), {
        headers: { "content-type": "application/json", ...cors },
      });
    }
    if (!ACCOUNT_ID.test(text("accountId")) || !text("walletAddress")) {
      return fail("bad_request", "accountId and walletAddress are required");
    }
    let approved;
    try {
      approved = parseKeyLimits(fields);
    } catch (error) {
      return fail("bad_request", `The approved scope is malformed: ${(error as Error).message}`);
    }
    const credentials: Credentials = {
      version: 1,
      delegatePrivateKey: key.privateKey,
      delegatePublicKey: key.publicKey,
      delegateAddress: addressOf(key.publicKey),
      walletAddress: text("walletAddress"),
      accountId: text("accountId").toLowerCase(),
      packageId: text("packageId"),
      relayerUrl: options.relayerUrl,
      label: options.label,
      createdAt: new Date().toISOString(),
      scope: keyLimitsJson(approved.scope, approved.expiresAt),
    };
    used = true;
    try {
      await options.file.save(credentials);
    } catch (error) {
      used = false;
      return fail("internal", `Could not save the credentials: ${(error as Error).message}`);
    }
    end(credentials);
    return new Response(HTML_DONE, {
      headers: { "content-type": "text/html; charset=utf-8", ...cors },
    });
  }

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, callback);
  const port = server.addr.port;
  const expiry = setTimeout(
    () => end(new Error("The sign-in link expired")),
    ttl,
  );
  let closing: Promise<void> | undefined;
  let decided: Credentials | Error | undefined;
  /**
   * Stops listening, then settles `done` with the first outcome: the server finishes sending
   * the answer in flight first, so a caller that exits on `done` never cuts the dashboard off.
   */
  function end(outcome: Credentials | Error): Promise<void> {
    clearTimeout(expiry);
    decided ??= outcome;
    return closing ??= new Promise<void>((resolve) => setTimeout(resolve, 0))
      .then(() => server.shutdown())
      .then(() => outcome instanceof Error ? settle.reject(outcome) : settle.resolve(outcome));
  }
  const close = () => end(new Error("This sign-in was replaced by a newer one"));

  const params = new URLSearchParams({
    port: String(port),
    publicKey: key.publicKey,
    delegateAddress: addressOf(key.publicKey),
    label: options.label,
    relayer: options.relayerUrl,
    state,
  });
  if (options.scope?.operations) params.set("operations", options.scope.operations.join(","));
  for (const namespace of options.scope?.namespaces ?? []) params.append("namespace", namespace);
  if (options.expires) params.set("expires", options.expires);
  const proven = new URLSearchParams(params);
  proven.delete("state");
  linkParams = proven.toString();
  return {
    url: `${options.webUrl}/connect/mcp?${params}`,
    code: await confirmationCode(key.publicKey),
    expiresAt: new Date(expiresAt),
    done,
    outcome: () => decided,
    close,
  };
}
