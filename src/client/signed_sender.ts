/**
 * How the client signs and sends a request: each attempt signed afresh (version 2, the relayer's
 * origin as audience, a new nonce), the path in the form the relayer reads, 429 and 5xx answers
 * (but 501, and a model's failure: see `MODEL_FAILURES`) and network failures retried with backoff
 * (but a call the relayer would not know again once the request was sent: see `doneOnce`),
 * errors raised as `SvcError` with the relayer's code.
 */
import { type KeyPair, keyPairFromSeed } from "@svc/util/keys";
import { sleep } from "@svc/util/sleep";
import { signRequest } from "../auth/signing.ts";
import { isErrorCode, SvcError } from "../errors.ts";
import { LOOPBACK_HOSTS } from "../http/relayer_names.ts";

/** How to reach the relayer and sign for it. */
export interface SvcClientOptions {
  /**
   * The relayer's URL, e.g. `http://127.0.0.1:8000`; a trailing slash is dropped. Its origin is
   * the audience every request is signed for: the relayer must know it as one of its own
   * (its listening address, or `SVC_PUBLIC_URL` behind a proxy).
   */
  baseUrl: string;
  /** The delegate private key (64 hex characters). */
  privateKey: string;
  /**
   * The account to act in, sent as `x-account-id`: the key is resolved within that account
   * only.
   */
  accountId?: string;
  /** The `fetch` to send requests with (default the global one). */
  fetch?: typeof fetch;
  /** Retries after the first attempt (default 3). */
  retries?: number;
  /**
   * How long a request waits for the relayer's answer to begin, in milliseconds (default: no
   * limit). Past it the request fails with `backend_unavailable`, and is not sent again: a
   * relayer that took it may still carry it out.
   */
  answerTimeoutMs?: number;
  /**
   * Sends the private key as `x-delegate-key` on the calls that decrypt or erase (recall, ask,
   * restore, export, remember — a text already held is answered with its memory — and list,
   * get, forget and update): a relayer whose cipher is Seal decrypts and erases with the
   * caller's own key. Off by default.
   */
  sendDelegateKey?: boolean;
}

/** A remember of a text already held answers with that memory, decrypted. */
const DECRYPTING_PATHS = new Set([
  "/api/remember",
  "/api/recall",
  "/api/ask",
  "/api/restore",
  "/api/export",
]);

/**
 * The calls a Seal cipher needs the caller's key for: those that decrypt, and those that may
 * erase (list, get, forget, update).
 */
function usesDelegateKey(path: string): boolean {
  const pathname = path.split("?")[0];
  return DECRYPTING_PATHS.has(pathname) || pathname === "/api/memories" ||
    pathname.startsWith("/api/memories/");
}

/**
 * Whether the relayer would not know the request sent again after it did it: an update's finds
 * its memory replaced (409), a namespace erase's erases nothing and answers no receipt, an
 * import's counts its lines as duplicates with no jobs. Remember (a duplicate answers its
 * memory) and an erase by id (its receipt again) are sent again after a broken connection.
 */
function doneOnce(method: string, path: string): boolean {
  const pathname = path.split("?")[0];
  return (method === "PUT" && pathname.startsWith("/api/memories/")) ||
    (method === "DELETE" && (pathname === "/api/memories" || pathname === "/api/blind")) ||
    (method === "POST" && pathname === "/api/import");
}

/**
 * Whether a failed `fetch` never reached the relayer: the connection was refused or not made
 * (Deno says "(Connect)", Node `ECONNREFUSED`); a browser does not say, so it may have.
 */
function notConnected(error: unknown): boolean {
  const causes = [error, (error as Error)?.cause];
  return causes.some((cause) =>
    /\(Connect\)|ECONNREFUSED|ENOTFOUND|EAI_AGAIN/.test(
      `${(cause as Error)?.message} ${(cause as { code?: string })?.code}`,
    )
  );
}

/**
 * The reasons of a 5xx that say the relayer's models failed it: the relayer tried them, with
 * retries, for as long as it may (`SVC_LLM_TIMEOUT_MS`), or they answered what it cannot use.
 * Such a request is not sent again, which would only repeat the wait and the cost.
 */
const MODEL_FAILURES = new Set(["provider", "invalid_embedding"]);

/** https, or plain http to this machine: where a private key may travel. */
function privateChannel(baseUrl: string): boolean {
  const url = new URL(baseUrl);
  return url.protocol === "https:" || LOOPBACK_HOSTS.includes(url.hostname);
}

/**
 * `path` as the relayer reads it, and so signs it: in a URL parser's form (spaces, `"` and
 * characters outside ASCII percent-encoded, `'` in the query too, dot segments resolved), the
 * empty query's `?` kept. Sent in that form, what is signed is what is sent. A path that form
 * would cut rather than encode (a `#`, a control character, white space at either end) is
 * refused.
 */
function asRelayerReads(path: string): string {
  if (/[#\p{Cc}]|^\s|\s$/u.test(path)) {
    throw new SvcError(
      "bad_request",
      "Cannot send the request: its path holds a #, a control character or white space at " +
        "either end; percent-encode them",
    );
  }
  const url = new URL(path, "http://relayer.invalid");
  const empty = url.search === "" && path.endsWith("?");
  return url.pathname + (empty ? "?" : url.search);
}

/** A time as the API takes it: ISO 8601. */
export function isoTime(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : value;
}

/**
 * `path` with the query string of `params`, in their order (none: `path` alone): a value left
 * out when `undefined`, repeated for each item of an array, a time in ISO 8601.
 */
export function withQuery(
  path: string,
  params: Record<string, string | number | Date | string[] | undefined>,
): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    for (const item of [value ?? []].flat()) {
      query.append(name, typeof item === "number" ? String(item) : isoTime(item));
    }
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

/** Signs and sends requests to one relayer with one delegate key. */
export class SignedSender {
  /** The relayer's URL, without a trailing slash. */
  readonly baseUrl: string;
  /** The public key of the delegate key it signs with (64 hex characters). */
  readonly publicKey: string;
  #key: KeyPair;
  #accountId?: string;
  #fetch: typeof fetch;
  #retries: number;
  #answerTimeoutMs?: number;
  #sendDelegateKey: boolean;

  private constructor(options: SvcClientOptions, key: KeyPair) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.publicKey = key.publicKey;
    this.#key = key;
    this.#accountId = options.accountId;
    this.#fetch = options.fetch ?? fetch;
    this.#retries = options.retries ?? 3;
    this.#answerTimeoutMs = options.answerTimeoutMs;
    this.#sendDelegateKey = options.sendDelegateKey ?? false;
  }

  /**
   * A sender signing with `options.privateKey`; refuses `sendDelegateKey` unless the relayer
   * is reached over https or on loopback.
   */
  static async open(options: SvcClientOptions): Promise<SignedSender> {
    if (options.sendDelegateKey && !privateChannel(options.baseUrl)) {
      throw new SvcError(
        "bad_request",
        "Cannot send the delegate key: the relayer must be reached over https or on loopback",
      );
    }
    return new SignedSender(options, await keyPairFromSeed(options.privateKey));
  }

  /**
   * Sends a signed request with a raw body (`contentType` default JSON), retried as the module
   * documentation says, and returns the relayer's successful response unread, or one `answered`
   * accepts (not retried); any other answer is raised as `SvcError`.
   */
  async send(
    method: "GET" | "POST" | "PUT" | "DELETE",
    path: string,
    content?: { body: string; contentType?: string },
    answered: (response: Response) => boolean | Promise<boolean> = () => false,
  ): Promise<Response> {
    const payload = content?.body ?? "";
    path = asRelayerReads(path);
    for (let attempt = 0;; attempt++) {
      const headers = await signRequest({
        key: this.#key,
        method,
        path,
        body: payload,
        nonce: true,
        audience: this.baseUrl,
        accountId: this.#accountId,
      });
      if (content) headers["content-type"] = content.contentType ?? "application/json";
      if (this.#sendDelegateKey && usesDelegateKey(path)) {
        headers["x-delegate-key"] = this.#key.privateKey;
      }
      let response: Response;
      // Only until the answer begins: a long answer (an export) is read as it comes.
      const waiting = new AbortController();
      const limit = this.#answerTimeoutMs;
      const timer = limit === undefined ? undefined : setTimeout(() => waiting.abort(), limit);
      try {
        response = await this.#fetch(this.baseUrl + path, {
          method,
          headers,
          body: content ? payload : undefined,
          signal: waiting.signal,
        });
      } catch (cause) {
        if (waiting.signal.aborted) {
          throw new SvcError(
            "backend_unavailable",
            `The relayer at ${this.baseUrl} took the request but did not answer within ` +
              `${limit! / 1000} s`,
            { cause, details: { reason: "outcome_unknown" } },
          );
        }
        const unsent = notConnected(cause);
        if (!unsent && doneOnce(method, path)) {
          throw new SvcError(
            "backend_unavailable",
            `The connection to the relayer at ${this.baseUrl} broke after the request was sent, ` +
              "so it was not sent again: the relayer may have done it. Check (get or list) " +
              "before sending it again",
            { cause, details: { reason: "outcome_unknown" } },
          );
        }
        if (attempt < this.#retries) {
          await sleep(200 * 2 ** attempt);
          continue;
        }
        throw new SvcError("backend_unavailable", `Cannot reach the relayer at ${this.baseUrl}`, {
          cause,
        });
      } finally {
        clearTimeout(timer);
      }
      if (response.ok || await answered(response)) return response;
      // 501 and 507 (a namespace full) are answers that stay the same when asked again.
      let retryable = response.status === 429 ||
        (response.status >= 500 && response.status !== 501 && response.status !== 507);
      // Read first: a model's failure is not sent again (see `MODEL_FAILURES`).
      const text = retryable ? await response.text() : undefined;
      if (
        text !== undefined && MODEL_FAILURES.has(String(refusal(response, text).details.reason))
      ) {
        retryable = false;
      }
      if (retryable && attempt < this.#retries) {
        const retryAfter = Number(response.headers.get("retry-after"));
        await sleep(retryAfter > 0 ? Math.min(retryAfter, 30) * 1000 : 200 * 2 ** attempt);
        continue;
      }
      throw refusal(response, text ?? await response.text());
    }
  }
}

/** The relayer's refusal as an `SvcError` (a non-JSON answer is one whatever its status). */
export function refusal(response: Response, text: string): SvcError {
  let json: Record<string, unknown> = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    // not the relayer's JSON: named by its status below
  }
  const { error, code, ...details } = json ?? {};
  return new SvcError(
    isErrorCode(code) ? code : response.status >= 500 ? "backend_unavailable" : "bad_request",
    typeof error === "string" ? error : `The relayer answered ${response.status}`,
    { details: details as Record<string, string | number | boolean> },
  );
}

/**
 * An id as one path segment, percent-encoded. An empty id, `.` or `..` would change the path
 * instead (a URL parser resolves dot segments, escaped too): refused.
 */
export function segment(id: string): string {
  if (id === "" || id === "." || id === "..") {
    throw new SvcError("bad_request", `Cannot send the request: "${id}" is not an id`);
  }
  return encodeURIComponent(id);
}
