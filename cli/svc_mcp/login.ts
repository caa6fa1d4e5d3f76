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
import { confirmationCode } from "./confirmation_code.ts";
import { addressOf, generateKeyPair } from "@svc/util/keys";
import type { KeyScope } from "@svc/relayer/kit";
import type { Credentials, CredentialsFile } from "./credentials.ts";
import { LoginCallback } from "./login_callback.ts";

const LOGIN_TTL_MS = 5 * 60_000;

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

/**
 * How one sign-in ends: at its first outcome (credentials, a refusal, expiry or replacement)
 * its listener stops, then `done` settles.
 */
class LoginEnding {
  readonly #settle = Promise.withResolvers<Credentials>();
  /** Settles once the listener has stopped; see `PendingLogin.done`. */
  readonly done = this.#settle.promise;
  #server: Deno.HttpServer;
  #expiry: ReturnType<typeof setTimeout>;
  #closing: Promise<void> | undefined;
  #decided: Credentials | Error | undefined;

  constructor(server: Deno.HttpServer, ttl: number) {
    this.done.catch(() => {}); // callers that never await it must not see an unhandled rejection
    this.#server = server;
    this.#expiry = setTimeout(() => this.end(new Error("The sign-in link expired")), ttl);
  }

  /** The first outcome, once there is one. */
  get decided(): Credentials | Error | undefined {
    return this.#decided;
  }

  /**
   * Stops listening, then settles `done` with the first outcome: the server finishes sending
   * the answer in flight first, so a caller that exits on `done` never cuts the dashboard off.
   */
  end(outcome: Credentials | Error): Promise<void> {
    clearTimeout(this.#expiry);
    this.#decided ??= outcome;
    return this.#closing ??= new Promise<void>((resolve) => setTimeout(resolve, 0))
      .then(() => this.#server.shutdown())
      .then(() =>
        outcome instanceof Error ? this.#settle.reject(outcome) : this.#settle.resolve(outcome)
      );
  }
}

/**
 * Starts one sign-in: a new delegate key, and a listener on 127.0.0.1 for the dashboard's answer
 * to the consent link, until the answer, the link's expiry or `close`.
 */
export async function startLogin(options: LoginOptions): Promise<PendingLogin> {
  const key = await generateKeyPair();
  const state = crypto.getRandomValues(new Uint8Array(32)).toHex();
  const ttl = options.ttlMs ?? LOGIN_TTL_MS;
  const expiresAt = Date.now() + ttl;
  // No request is handled before `callback` is made: that takes no await.
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request): Promise<Response> => callback.handle(request),
  );
  const ending = new LoginEnding(server, ttl);
  // The consent link's parameters: the delegate key, the label, the relayer and the scope.
  const params = new URLSearchParams({
    port: String(server.addr.port),
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
  const callback = new LoginCallback({
    dashboard: new URL(options.webUrl).origin,
    port: server.addr.port,
    state,
    linkParams: proven.toString(),
    expiresAt,
    delegate: key,
    relayerUrl: options.relayerUrl,
    label: options.label,
    file: options.file,
    bodyTimeoutMs: options.bodyTimeoutMs ?? 10_000,
    end: (outcome) => ending.end(outcome),
  });
  return {
    url: `${options.webUrl}/connect/mcp?${params}`,
    code: await confirmationCode(key.publicKey),
    expiresAt: new Date(expiresAt),
    done: ending.done,
    outcome: () => ending.decided,
    close: () => ending.end(new Error("This sign-in was replaced by a newer one")),
  };
}
