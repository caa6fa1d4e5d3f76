/**
 * The stdio bridge's connection to the relayer's legacy SSE endpoint (`/api/mcp/sse`), as the
 * signed-in client: opened on first use, shared by concurrent calls, opened afresh and the
 * call sent again when it is lost, and never holding more calls at once than a session takes.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { utf8HeaderValue } from "@svc/relayer/rules";
import { MAX_BATCH, VERSION } from "@svc/relayer/mcp";
import { sleep } from "@svc/util/sleep";
import { RelayerRefusals } from "./bridge_refusals.ts";

/** What the bridge needs to reach the relayer as the signed-in client. */
export interface BridgeIdentity {
  relayerUrl: string;
  delegatePrivateKey: string;
  accountId: string;
}

/** How the bridge talks to the relayer: its connection and its tool calls. */
export interface BridgeSettings {
  /** Sent as `x-svc-namespace`: the default namespace for memory tools called without one. */
  namespace?: string;
  /** For the relayer to answer a new connection (default 10 s); not tried again past it. */
  connectTimeoutMs?: number;
  /** Per tool call on the relayer (default 90 s). */
  callTimeoutMs?: number;
  debug(message: string, fields?: Record<string, unknown>): void;
}

/**
 * Times a call is sent again after a lost or refused connection, 250 ms apart doubling: 7.75 s in
 * all, more than a sidecar's restart (its supervisor's pause, the process's start).
 */
const RETRIES = 5;

/** A relayer that took the connection but did not answer: not tried again, it would wait again. */
class ConnectTimeout extends Error {
  constructor() {
    super("timed out");
  }
}

/** The relayer answered `status` (to the SSE stream, or to a POST as "(HTTP status)"). */
export function isStatus(error: unknown, status: number): boolean {
  const e = error as { code?: number; message?: string };
  return e?.code === status || e?.message?.includes(`(HTTP ${status})`) === true;
}

/**
 * The request reached the server (it answered, or may still be working on it), so sending it
 * again could do it twice; only a closed connection is safe to re-send on.
 */
export function isAnswer(error: unknown): boolean {
  return error instanceof McpError &&
    (error as { code?: number }).code !== ErrorCode.ConnectionClosed;
}

const keyOf = (identity: BridgeIdentity) =>
  `${identity.relayerUrl}|${identity.accountId}|${identity.delegatePrivateKey}`;

/** The connection to the relayer, for the identity of the last call. */
export class Upstream {
  /** What the relayer said when it last refused the connection. */
  readonly refusals = new RelayerRefusals();
  readonly #options: BridgeSettings;
  // The connection, shared by concurrent calls while it is being opened.
  #current: { key: string; client: Promise<Client> } | null = null;
  // Calls sent upstream and not yet answered: the sidecar answers at most `MAX_BATCH` at once
  // in a session, and the host, which knows nothing of the session, has its calls wait here.
  #sending = 0;
  readonly #queued: (() => void)[] = [];

  constructor(options: BridgeSettings) {
    this.#options = options;
  }

  /** Whether the connection (open or opening) is that of `identity`. */
  isFor(identity: BridgeIdentity): boolean {
    return this.#current?.key === keyOf(identity);
  }

  async disconnect(): Promise<void> {
    const current = this.#current;
    this.#current = null;
    const client = await current?.client.catch(() => null);
    await client?.close().catch(() => {});
  }

  /** Calls `run` on a connected client; a lost connection is re-established and re-sent. */
  async call<T>(identity: BridgeIdentity, run: (client: Client) => Promise<T>): Promise<T> {
    for (let attempt = 0;; attempt++) {
      try {
        return await run(await this.#connect(identity));
      } catch (error) {
        if (isStatus(error, 401) || isStatus(error, 429) || isAnswer(error)) throw error;
        if (error instanceof ConnectTimeout) throw error;
        if (attempt >= RETRIES) throw error;
        this.#options.debug("bridge retrying", {
          attempt: attempt + 1,
          error: (error as Error).message,
        });
        await this.disconnect();
        await sleep(250 * 2 ** attempt);
      }
    }
  }

  /** Runs `send` once fewer than `MAX_BATCH` calls are waiting for their answers. */
  async inTurn<T>(send: () => Promise<T>): Promise<T> {
    while (this.#sending >= MAX_BATCH) {
      await new Promise<void>((resolve) => this.#queued.push(resolve));
    }
    this.#sending++;
    try {
      return await send();
    } finally {
      this.#sending--;
      this.#queued.shift()?.();
    }
  }

  #connect(identity: BridgeIdentity): Promise<Client> {
    const key = keyOf(identity);
    if (this.#current?.key === key) return this.#current.client;
    this.disconnect();
    const entry: { key: string; client: Promise<Client> } = {
      key,
      client: this.#open(identity, () => this.#current === entry),
    };
    this.#current = entry;
    entry.client.catch(() => {
      if (this.#current === entry) this.#current = null;
    });
    return entry.client;
  }

  async #open(identity: BridgeIdentity, current: () => boolean): Promise<Client> {
    const { debug } = this.#options;
    const url = new URL("/api/mcp/sse", identity.relayerUrl);
    debug("bridge connecting", { url: url.href });
    const client = new Client({ name: "svc-mcp", version: VERSION });
    const headers: Record<string, string> = {
      authorization: `Bearer ${identity.delegatePrivateKey}`,
      "x-svc-account-id": identity.accountId,
    };
    if (this.#options.namespace) {
      headers["x-svc-namespace"] = utf8HeaderValue(this.#options.namespace);
    }
    const transport = new SSEClientTransport(url, {
      requestInit: { headers },
      fetch: this.refusals.fetch,
    });
    // A dropped stream would reconnect to a new server session behind the client's back;
    // drop the client instead, and the next call connects and initializes afresh.
    client.onerror = (error: Error) => {
      debug("bridge connection error", { error: error.message });
      if (current()) this.disconnect();
    };
    client.onclose = () => {
      if (current()) this.#current = null;
    };
    await this.#connectInTime(client, transport);
    debug("bridge connected", { url: url.href });
    return client;
  }

  /** Connects `client`, or closes it again when it cannot within the time allowed. */
  async #connectInTime(client: Client, transport: SSEClientTransport): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        client.connect(transport),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new ConnectTimeout()),
            this.#options.connectTimeoutMs ?? 10_000,
          );
        }),
      ]);
    } catch (error) {
      await client.close().catch(() => {});
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
}
