/**
 * What the relayer said when it last refused the stdio bridge (401, 429, 503), noted as its
 * answers pass, and worded for the agent with the remedy.
 */

/** The sentence of an error answer's body (JSON-RPC, or the relayer's own), if any. */
async function errorSentence(response: Response): Promise<string | undefined> {
  const body = await response.clone().json().catch(() => null);
  const message = body?.error?.message ?? body?.error;
  return typeof message === "string" ? message.slice(0, 300) : undefined;
}

/** The relayer's last refusals, as `fetch` sees them, and what to tell the agent of each. */
export class RelayerRefusals {
  // The relayer's last 429 (its Retry-After, and its reason when its body said one), and the
  // reason of its last 503.
  #rateLimit: { retryAfterSeconds: number; reason?: string } = { retryAfterSeconds: 30 };
  #unavailable: string | undefined;
  // The reason of the relayer's last 401 (`expired_key`, …).
  #unauthorized: string | undefined;

  /** `fetch`, noting the relayer's refusals. */
  readonly fetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (response.status === 401) {
      const reason = (await response.clone().json().catch(() => null))?.error?.data?.reason;
      this.#unauthorized = typeof reason === "string" ? reason : undefined;
    }
    if (response.status === 429) {
      const reason = await errorSentence(response);
      this.#rateLimit = {
        retryAfterSeconds: Number(response.headers.get("retry-after")) || 30,
        reason: reason?.replace(/^Too many MCP sessions: /, "").slice(0, 200),
      };
    }
    if (response.status === 503) this.#unavailable = await errorSentence(response);
    return response;
  };

  /** The relayer at `relayerUrl` refused the credentials (401): why, and the remedy. */
  unauthorizedText(relayerUrl: string): string {
    if (this.#unauthorized === "expired_key") {
      return `The relayer at ${relayerUrl} refused this computer's svc credentials: the key has ` +
        "expired (its sign-in gave it an expiry). Remedy: call svc_login (or run `svc-mcp login " +
        "--login`) to sign in again with a new key. The credentials file was kept.";
    }
    return `The relayer at ${relayerUrl} refused this computer's svc credentials (401). Likely ` +
      "causes: the delegate key was revoked on the dashboard, the credentials belong to another " +
      "environment (for example --prod versus --local), or a proxy dropped the Authorization " +
      "header. Remedy: run svc-mcp with --logout, then `svc-mcp login` with the right preset " +
      "(or call svc_logout, then svc_login). The credentials file was kept.";
  }

  /** The relayer at `relayerUrl` refused a new session (429): why, and when to retry. */
  rateLimitedText(relayerUrl: string): string {
    const reason = this.#rateLimit.reason ??
      "too many sessions are open for this key, or this computer opened too many in the last minute";
    return `The relayer at ${relayerUrl} refused a new MCP session: ${reason} (rate limited, ` +
      `429). Retry in ${this.#rateLimit.retryAfterSeconds} s.`;
  }

  /** A relayer that answered 503 (its MCP sidecar down or restarting, say) is up all the same. */
  unavailableText(relayerUrl: string): string {
    return `The relayer at ${relayerUrl} is running but cannot serve this now (503: ` +
      `${this.#unavailable ?? "it did not say why"}). Try again shortly; if it lasts, see the ` +
      "relayer's log.";
  }
}
