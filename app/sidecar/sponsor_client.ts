/**
 * The sidecar's sponsor, reached from the relayer's own process. The gas station of network mode
 * runs in the sidecar (behind the public `/sponsor` routes); a second one in the relayer, paying
 * from the same key, would pick the same gas coins. So what the relayer itself has sponsored (a
 * Seal erase, signed by the caller's delegate key) goes to the sidecar's `/sponsor` and
 * `/sponsor/execute` over loopback, with the per-start secret, and its refusals come back as the
 * same `SvcError`s (code, sentence and `reason`).
 *
 * @example
 * ```ts
 * const sponsor = new SidecarSponsor(supervisor); // the relayer's SidecarLink
 * const { bytes, digest } = await sponsor.sponsor(kind, delegateAddress);
 * await sponsor.execute(digest, (await delegate.signTransaction(bytes)).signature);
 * ```
 */
import {
  type CallOptions,
  type ErrorDetails,
  type Sponsor,
  type SponsoredTransaction,
  SvcError,
} from "@svc/relayer/kit";
import { isErrorCode, type SidecarLink } from "@svc/relayer";

/** How long one call to the sidecar may take by default: its sponsor waits on the chain. */
const DEFAULT_TIMEOUT_MS = 60_000;

/** A `Sponsor` that forwards to the sidecar's sponsor. */
export class SidecarSponsor implements Sponsor {
  readonly name = "sidecar";
  #link: SidecarLink;
  #fetch: typeof fetch;
  #timeoutMs: number;

  constructor(link: SidecarLink, options: { fetch?: typeof fetch; timeoutMs?: number } = {}) {
    this.#link = link;
    this.#fetch = options.fetch ?? fetch;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  async sponsor(
    transactionKind: Uint8Array<ArrayBuffer>,
    sender: string,
    options: CallOptions = {},
  ): Promise<SponsoredTransaction> {
    const body = await this.#post("/sponsor", {
      transactionKind: transactionKind.toBase64(),
      sender,
    }, options);
    if (typeof body.bytes !== "string" || typeof body.digest !== "string") {
      throw unavailable("it answered without bytes and digest");
    }
    return { bytes: Uint8Array.fromBase64(body.bytes), digest: body.digest };
  }

  async execute(
    digest: string,
    signature: string,
    options: CallOptions = {},
  ): Promise<{ digest: string; effects?: unknown }> {
    const body = await this.#post("/sponsor/execute", { digest, signature }, options);
    if (typeof body.digest !== "string") throw unavailable("it answered without a digest");
    return { digest: body.digest, effects: body.effects };
  }

  async #post(
    path: string,
    payload: Record<string, string>,
    options: CallOptions,
  ): Promise<Record<string, unknown>> {
    options.signal?.throwIfAborted();
    if (this.#link.status() === "down") throw unavailable("the MCP sidecar is not running");
    const deadline = AbortSignal.timeout(this.#timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    let response: Response;
    let body: unknown;
    try {
      response = await this.#fetch(new URL(path, this.#link.url), {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-sidecar-token": this.#link.token,
          "x-forwarded-for": "relayer",
        },
        body: JSON.stringify(payload),
        signal,
      });
      body = await response.json();
    } catch (cause) {
      if (options.signal?.aborted) throw options.signal.reason;
      throw unavailable("the MCP sidecar cannot be reached", cause);
    }
    const fields = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
    if (response.ok) return fields;
    throw refusal(response.status, fields);
  }
}

function unavailable(state: string, cause?: unknown): SvcError {
  return new SvcError("backend_unavailable", `Cannot sponsor: ${state}`, {
    cause,
    headers: { "retry-after": "2" },
  });
}

/** The sidecar's error body as the error it was there. */
function refusal(status: number, body: Record<string, unknown>): SvcError {
  const { error, code, request_id: _, ...rest } = body;
  if (!isErrorCode(code) || typeof error !== "string") {
    return unavailable(`the MCP sidecar answered ${status}`);
  }
  const details: ErrorDetails = {};
  for (const [name, value] of Object.entries(rest)) {
    if (["string", "number", "boolean"].includes(typeof value)) {
      details[name] = value as string | number | boolean;
    }
  }
  return new SvcError(code, error, { details });
}
