/**
 * The sign-in listener's answers to the dashboard: `/verify` proves the link is this agent's,
 * `/deny` ends the sign-in refused, `/callback` saves the approved key's credentials. Every
 * request is checked first: Host, Origin, path, method, the link still unused and unexpired,
 * content type and size.
 */
import { ACCOUNT_ID, addressOf, type KeyPair, timingSafeEqual } from "@svc/util/keys";
import { keyLimitsJson } from "@svc/relayer/rules";
import { ERROR_STATUS, type ErrorCode, parseKeyLimits, SvcError } from "@svc/relayer/kit";
import { readBody } from "@svc/relayer/http";
import type { Credentials, CredentialsFile } from "./credentials.ts";

export const MAX_CALLBACK_BYTES = 16 * 1024;

/** The person pressed Deny on the dashboard. */
export class LoginDenied extends Error {
  constructor() {
    super("The sign-in request was denied on the dashboard");
  }
}

const HTML_DONE = `<!doctype html><meta charset="utf-8"><title>svc: signed in</title>
<p style="font-family:system-ui;margin:3rem">Signed in. You can close this tab and go back to
your agent.</p>`;

const CALLBACK_PATHS = ["/callback", "/verify", "/deny"];

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

/** A string field of the callback's body, else "". */
function textField(fields: Record<string, unknown>, name: string): string {
  return typeof fields?.[name] === "string" ? fields[name] as string : "";
}

/** What the listener of one sign-in checks requests against, and what an approval saves. */
export interface LoginCallbackOptions {
  /** The dashboard's origin: the only one that may call. */
  dashboard: string;
  /** The listener's port, which the Host must name. */
  port: number;
  state: string;
  /** The link's parameters but the state, which `loginProof` covers. */
  linkParams: string;
  /** When the link expires (ms since the epoch). */
  expiresAt: number;
  /** The delegate key the dashboard adds to the account. */
  delegate: KeyPair;
  relayerUrl: string;
  label: string;
  file: CredentialsFile;
  /** The time a body has to arrive in full, then 408. */
  bodyTimeoutMs: number;
  /** Ends the sign-in with its outcome (the first one counts). */
  end(outcome: Credentials | Error): void;
}

/** The dashboard's calls to one sign-in's listener on 127.0.0.1. */
export class LoginCallback {
  #options: LoginCallbackOptions;
  #cors: Record<string, string>;
  #used = false;

  constructor(options: LoginCallbackOptions) {
    this.#options = options;
    this.#cors = { "access-control-allow-origin": options.dashboard, vary: "origin" };
  }

  /** Answers one request to the listener. */
  async handle(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    const refusal = this.#wrongCaller(request, pathname);
    if (refusal) return refusal;
    if (request.method === "OPTIONS") return this.#preflight();
    if (request.method !== "POST") return this.#fail("method_not_allowed", "Use POST");
    if (this.#used || Date.now() > this.#options.expiresAt) {
      return this.#fail(
        "conflict",
        "This sign-in link has expired or was already used; call svc_login again",
      );
    }
    const fields = await this.#readFields(request);
    if (fields instanceof Response) return fields;
    if (pathname === "/verify") return await this.#verify(textField(fields, "nonce"));
    if (!timingSafeEqual(textField(fields, "state"), this.#options.state)) {
      return this.#fail("forbidden", "Wrong state for this sign-in");
    }
    if (pathname === "/deny") return this.#deny();
    return await this.#approve(fields);
  }

  /** A refusal of a request not from the dashboard to this listener, or `undefined`. */
  #wrongCaller(request: Request, pathname: string): Response | undefined {
    const { dashboard, port } = this.#options;
    const host = request.headers.get("host");
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
      return this.#fail("forbidden", "Wrong Host for the sign-in callback");
    }
    if (request.headers.get("origin") !== dashboard) {
      return this.#fail("forbidden", `Only the dashboard (${dashboard}) may complete this sign-in`);
    }
    if (!CALLBACK_PATHS.includes(pathname)) return this.#fail("not_found", "Not found");
    return undefined;
  }

  #preflight(): Response {
    return new Response(null, {
      status: 204,
      headers: {
        ...this.#cors,
        "access-control-allow-methods": "POST",
        "access-control-allow-headers": "content-type",
        "access-control-allow-private-network": "true",
        "access-control-max-age": "300",
      },
    });
  }

  /** The request's JSON body, or the refusal of one that is not JSON, too large or too slow. */
  async #readFields(request: Request): Promise<Record<string, unknown> | Response> {
    if (!/^application\/json\s*(;|$)/i.test(request.headers.get("content-type") ?? "")) {
      return this.#fail("unsupported_media_type", "Send the callback as application/json");
    }
    let body: Uint8Array;
    try {
      body = await readBody(request, MAX_CALLBACK_BYTES, {
        timeoutMs: this.#options.bodyTimeoutMs,
      });
    } catch (error) {
      if (!(error instanceof SvcError)) throw error;
      return this.#fail(error.code, error.message);
    }
    if (this.#used) {
      return this.#fail("conflict", "This sign-in link was already used; call svc_login again");
    }
    try {
      return JSON.parse(new TextDecoder().decode(body));
    } catch {
      return this.#fail("bad_request", "The callback body is not JSON");
    }
  }

  /**
   * Proves, before the dashboard changes the account, that this link comes from an agent
   * waiting on this computer, without revealing the state.
   */
  async #verify(nonce: string): Promise<Response> {
    if (!/^[0-9a-f]{32,128}$/.test(nonce)) return this.#fail("bad_request", "Send a hex nonce");
    const { state, linkParams } = this.#options;
    return this.#json({ proof: await loginProof(state, nonce, linkParams) });
  }

  #deny(): Response {
    this.#used = true;
    this.#options.end(new LoginDenied());
    return this.#json({ denied: true });
  }

  /** Saves the credentials of the key the dashboard added, then ends the sign-in with them. */
  async #approve(fields: Record<string, unknown>): Promise<Response> {
    const text = (name: string) => textField(fields, name);
    if (!ACCOUNT_ID.test(text("accountId")) || !text("walletAddress")) {
      return this.#fail("bad_request", "accountId and walletAddress are required");
    }
    let approved;
    try {
      approved = parseKeyLimits(fields);
    } catch (error) {
      return this.#fail(
        "bad_request",
        `The approved scope is malformed: ${(error as Error).message}`,
      );
    }
    const { delegate, relayerUrl, label, file } = this.#options;
    const credentials: Credentials = {
      version: 1,
      delegatePrivateKey: delegate.privateKey,
      delegatePublicKey: delegate.publicKey,
      delegateAddress: addressOf(delegate.publicKey),
      walletAddress: text("walletAddress"),
      accountId: text("accountId").toLowerCase(),
      packageId: text("packageId"),
      relayerUrl,
      label,
      createdAt: new Date().toISOString(),
      scope: keyLimitsJson(approved.scope, approved.expiresAt),
    };
    this.#used = true;
    try {
      await file.save(credentials);
    } catch (error) {
      this.#used = false;
      return this.#fail("internal", `Could not save the credentials: ${(error as Error).message}`);
    }
    this.#options.end(credentials);
    return new Response(HTML_DONE, {
      headers: { "content-type": "text/html; charset=utf-8", ...this.#cors },
    });
  }

  #json(body: Record<string, unknown>, status = 200): Response {
    return Response.json(body, { status, headers: this.#cors });
  }

  /** A refusal in the relayer's error body. */
  #fail(code: ErrorCode, error: string): Response {
    return this.#json({ error, code, request_id: crypto.randomUUID() }, ERROR_STATUS[code]);
  }
}
