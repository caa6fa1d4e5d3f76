/**
 * The stdio package's MCP server: it serves `svc_login` and `svc_logout` itself and bridges
 * the memory tools to a relayer's legacy SSE endpoint (`/api/mcp/sse`). Signed out, it
 * still answers `initialize` and `tools/list`, and each memory tool returns an error saying
 * how to sign in; once credentials exist the same process starts bridging.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { utf8HeaderValue } from "../validate.ts";
import { VERSION } from "../version.ts";
import { MAX_BATCH } from "./messages.ts";
import { MEMORY_TOOLS, memoryToolList } from "./tool_definitions.ts";

/** What the bridge needs to reach the relayer as the signed-in client. */
export interface BridgeIdentity {
  relayerUrl: string;
  delegatePrivateKey: string;
  accountId: string;
}

/** Signed out: why, in a sentence for the person (the default says how to sign in). */
export interface SignedOut {
  reason?: string;
}

export interface StdioBridgeOptions {
  /** The identity to use now (read again whenever the bridge is signed out). */
  identity(): Promise<BridgeIdentity | SignedOut>;
  /**
   * Mints a sign-in link for the MCP host that asks (its name, if it gave one); returns the
   * text for the agent.
   */
  login(host: string | undefined): Promise<string>;
  /** Deletes the local credentials; returns the text for the agent, or throws why it cannot. */
  logout(): Promise<string>;
  /** The default namespace for memory tools called without one. */
  namespace?: string;
  debug(message: string, fields?: Record<string, unknown>): void;
  /** Per tool call on the relayer (default 90 s). */
  callTimeoutMs?: number;
  /** For the relayer to answer a new connection (default 10 s); not tried again past it. */
  connectTimeoutMs?: number;
}

const SESSION_TOOLS = [
  {
    name: "svc_login",
    title: "Sign in",
    description: "Sign in (or sign in again) to svc memory with a blockchain wallet in the " +
      "browser. Returns a one-time URL, valid for 5 minutes, for the user to open; calling " +
      "it again makes a new URL.",
    inputSchema: { type: "object" as const, properties: {} },
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
  },
  {
    name: "svc_logout",
    title: "Sign out",
    description: "Delete this computer's svc credentials. The delegate key stays registered " +
      "on the account until it is removed on the dashboard.",
    inputSchema: { type: "object" as const, properties: {} },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  },
];

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
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function text(message: string, isError = false): CallToolResult {
  return isError
    ? { content: [{ type: "text", text: message }], isError: true }
    : { content: [{ type: "text", text: message }] };
}

/** The text of a tool's result. */
const textOf = (result: CallToolResult) =>
  result.content.map((part: { type: string; text?: string }) => part.text ?? "").join(" ");

/** The relayer answered `status` (to the SSE stream, or to a POST as "(HTTP status)"). */
function isStatus(error: unknown, status: number): boolean {
  const e = error as { code?: number; message?: string };
  return e?.code === status || e?.message?.includes(`(HTTP ${status})`) === true;
}

/**
 * The request reached the server (it answered, or may still be working on it), so sending it
 * again could do it twice; only a closed connection is safe to re-send on.
 */
function isAnswer(error: unknown): boolean {
  return error instanceof McpError &&
    (error as { code?: number }).code !== ErrorCode.ConnectionClosed;
}

function unauthorizedText(relayerUrl: string, reason: string | undefined): string {
  if (reason === "expired_key") {
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

/** A relayer's 429: its Retry-After, and its reason when its body said one. */
interface RateLimit {
  retryAfterSeconds: number;
  reason?: string;
}

function rateLimitedText(relayerUrl: string, limit: RateLimit): string {
  const reason = limit.reason ??
    "too many sessions are open for this key, or this computer opened too many in the last minute";
  return `The relayer at ${relayerUrl} refused a new MCP session: ${reason} (rate limited, ` +
    `429). Retry in ${limit.retryAfterSeconds} s.`;
}

/** The sentence of an error answer's body (JSON-RPC, or the relayer's own), if any. */
async function errorSentence(response: Response): Promise<string | undefined> {
  const body = await response.clone().json().catch(() => null);
  const message = body?.error?.message ?? body?.error;
  return typeof message === "string" ? message.slice(0, 300) : undefined;
}

/** A relayer that answered 503 (its MCP sidecar down or restarting, say) is up all the same. */
function unavailableText(relayerUrl: string, reason: string | undefined): string {
  return `The relayer at ${relayerUrl} is running but cannot serve this now (503: ` +
    `${reason ?? "it did not say why"}). Try again shortly; if it lasts, see the relayer's log.`;
}

export function createStdioBridge(options: StdioBridgeOptions) {
  const { debug } = options;
  const server = new Server(
    { name: "svc", version: VERSION },
    { capabilities: { tools: { listChanged: true } } },
  );
  // The connection, shared by concurrent calls while it is being opened.
  let upstream: { key: string; client: Promise<Client> } | null = null;
  // The relayer's last 429, and the reason of its last 503.
  let rateLimit: RateLimit = { retryAfterSeconds: 30 };
  let unavailable: string | undefined;
  // The reason of the relayer's last 401 (`expired_key`, …).
  let unauthorized: string | undefined;
  const fetchNotingRefusals: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (response.status === 401) {
      const reason = (await response.clone().json().catch(() => null))?.error?.data?.reason;
      unauthorized = typeof reason === "string" ? reason : undefined;
    }
    if (response.status === 429) {
      const reason = await errorSentence(response);
      rateLimit = {
        retryAfterSeconds: Number(response.headers.get("retry-after")) || 30,
        reason: reason?.replace(/^Too many MCP sessions: /, "").slice(0, 200),
      };
    }
    if (response.status === 503) unavailable = await errorSentence(response);
    return response;
  };

  async function disconnect(): Promise<void> {
    const current = upstream;
    upstream = null;
    const client = await current?.client.catch(() => null);
    await client?.close().catch(() => {});
  }

  const keyOf = (identity: BridgeIdentity) =>
    `${identity.relayerUrl}|${identity.accountId}|${identity.delegatePrivateKey}`;

  function connect(identity: BridgeIdentity): Promise<Client> {
    const key = keyOf(identity);
    if (upstream?.key === key) return upstream.client;
    disconnect();
    const entry: { key: string; client: Promise<Client> } = {
      key,
      client: open(identity, () => upstream === entry),
    };
    upstream = entry;
    entry.client.catch(() => {
      if (upstream === entry) upstream = null;
    });
    return entry.client;
  }

  async function open(identity: BridgeIdentity, current: () => boolean): Promise<Client> {
    const url = new URL("/api/mcp/sse", identity.relayerUrl);
    debug("bridge connecting", { url: url.href });
    const client = new Client({ name: "svc-mcp", version: VERSION });
    const headers: Record<string, string> = {
      authorization: `Bearer ${identity.delegatePrivateKey}`,
      "x-svc-account-id": identity.accountId,
    };
    if (options.namespace) headers["x-svc-namespace"] = utf8HeaderValue(options.namespace);
    const transport = new SSEClientTransport(url, {
      requestInit: { headers },
      fetch: fetchNotingRefusals,
    });
    // A dropped stream would reconnect to a new server session behind the client's back;
    // drop the client instead, and the next call connects and initializes afresh.
    client.onerror = (error: Error) => {
      debug("bridge connection error", { error: error.message });
      if (current()) disconnect();
    };
    client.onclose = () => {
      if (current()) upstream = null;
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        client.connect(transport),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new ConnectTimeout()),
            options.connectTimeoutMs ?? 10_000,
          );
        }),
      ]);
    } catch (error) {
      await client.close().catch(() => {});
      throw error;
    } finally {
      clearTimeout(timer);
    }
    debug("bridge connected", { url: url.href });
    return client;
  }

  // Whether the last identity read was signed in (undefined: none read yet).
  let signedIn: boolean | undefined;
  /**
   * The identity of the moment. A sign-in or sign-out the host was not told of (credentials
   * another process wrote or deleted: `svc-mcp login` in a terminal) tells it the tools changed.
   */
  async function currentIdentity(): Promise<BridgeIdentity | SignedOut> {
    const identity = await options.identity();
    const now = "relayerUrl" in identity;
    if (signedIn !== undefined && signedIn !== now) server.sendToolListChanged().catch(() => {});
    signedIn = now;
    return identity;
  }

  // Calls sent upstream and not yet answered: the sidecar answers at most `MAX_BATCH` at once
  // in a session, and the host, which knows nothing of the session, has its calls wait here.
  let sending = 0;
  const queued: (() => void)[] = [];
  async function inTurn<T>(send: () => Promise<T>): Promise<T> {
    while (sending >= MAX_BATCH) await new Promise<void>((resolve) => queued.push(resolve));
    sending++;
    try {
      return await send();
    } finally {
      sending--;
      queued.shift()?.();
    }
  }

  /** Calls `run` on a connected client; a lost connection is re-established and re-sent. */
  async function withUpstream<T>(
    identity: BridgeIdentity,
    run: (client: Client) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0;; attempt++) {
      try {
        return await run(await connect(identity));
      } catch (error) {
        if (isStatus(error, 401) || isStatus(error, 429) || isAnswer(error)) throw error;
        if (error instanceof ConnectTimeout) throw error;
        if (attempt >= RETRIES) throw error;
        debug("bridge retrying", { attempt: attempt + 1, error: (error as Error).message });
        await disconnect();
        await sleep(250 * 2 ** attempt);
      }
    }
  }

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const identity = await currentIdentity();
    if (!("relayerUrl" in identity)) return { tools: [...memoryToolList(), SESSION_TOOLS[0]] };
    try {
      const { tools } = await withUpstream(identity, (client) => client.listTools()) as {
        tools: object[];
      };
      return { tools: [...tools, ...SESSION_TOOLS] };
    } catch (error) {
      debug("tools/list from the relayer failed; serving the local list", {
        error: (error as Error).message,
      });
      return { tools: [...memoryToolList(), ...SESSION_TOOLS] };
    }
  });

  type CallRequest = { params: { name: string; arguments?: Record<string, unknown> } };
  server.setRequestHandler(CallToolRequestSchema, async (request: CallRequest) => {
    const { name } = request.params;
    const args = { ...request.params.arguments };
    debug("tool call", { tool: name, arguments: Object.keys(args) });
    if (name === "svc_login") {
      const host = server.getClientVersion();
      return text(await options.login(host?.title || host?.name));
    }

    if (name === "svc_logout") {
      let message: string;
      try {
        message = await options.logout();
      } catch (error) {
        return text((error as Error).message, true); // still signed in
      }
      await disconnect();
      signedIn = false;
      server.sendToolListChanged().catch(() => {});
      return text(message);
    }
    const tool = Object.hasOwn(MEMORY_TOOLS, name)
      ? MEMORY_TOOLS[name as keyof typeof MEMORY_TOOLS]
      : undefined;
    if (!tool) {
      // As the MCP specification answers an unknown tool (an McpError would read "MCP error
      // -32602: Tool x not found": the SDK answers a thrown error's code and message).
      throw Object.assign(new Error(`Unknown tool: ${name}`), { code: ErrorCode.InvalidParams });
    }
    const identity = await currentIdentity();
    if (!("relayerUrl" in identity)) {
      return text(
        (identity.reason ? `${identity.reason} ` : "Not signed in to svc memory. ") +
          "Call the svc_login tool and open the link it returns, or run `svc-mcp login` " +
          "with the preset of your relayer (for example `svc-mcp login --local`) in a terminal.",
        true,
      );
    }
    // Only the tools that take a namespace get the default one (svc_get and the others that
    // name a memory by id take none); an empty one is none.
    if (
      "namespace" in tool.inputSchema &&
      !(typeof args.namespace === "string" && args.namespace !== "")
    ) {
      if (options.namespace) args.namespace = options.namespace;
      else if (args.namespace === "") delete args.namespace;
    }
    let sent = 0;
    try {
      const result = await inTurn(() =>
        withUpstream(identity, (client) => {
          sent++;
          return client.callTool({ name, arguments: args }, undefined, {
            timeout: options.callTimeoutMs ?? 90_000,
          });
        })
      ) as CallToolResult;
      // Sent again after a lost connection, an erase or correction may find its own work done.
      if (sent > 1 && result.isError && (name === "svc_forget" || name === "svc_update")) {
        return text(
          `The connection to the relayer was lost while ${name} was sent, so it was sent again, ` +
            `and that answered: ${textOf(result)} The first attempt may have been done: check ` +
            "with svc_get or svc_recall.",
          true,
        );
      }
      return result;
    } catch (error) {
      if (isStatus(error, 401)) {
        return text(unauthorizedText(identity.relayerUrl, unauthorized), true);
      }
      if (isStatus(error, 429)) {
        return text(rateLimitedText(identity.relayerUrl, rateLimit), true);
      }
      if ((error as { code?: number }).code === ErrorCode.RequestTimeout) {
        return text(
          "The relayer did not answer in time; the call may still complete. Check with " +
            "svc_recall before repeating it.",
          true,
        );
      }
      // The sidecar's own error, passed on as it said it (the SDK prefixes its message again).
      if (isAnswer(error)) {
        const { code, data } = error as McpError;
        const said = (error as Error).message.replace(`MCP error ${code}: `, "");
        throw Object.assign(new Error(said), { code, data });
      }
      debug("bridge call failed", { tool: name, error: (error as Error).message });
      if (isStatus(error, 503)) {
        return text(unavailableText(identity.relayerUrl, unavailable), true);
      }
      return text(
        `Cannot reach the svc relayer at ${identity.relayerUrl}: ${(error as Error).message}. ` +
          "Check that it is running and reachable, then try again.",
        true,
      );
    }
  });

  return {
    server,
    /**
     * Credentials changed (signed in or out): close the connection of the old ones and tell the
     * host. A call already made with the new ones keeps its connection.
     */
    async identityChanged(): Promise<void> {
      const identity = await options.identity();
      signedIn = "relayerUrl" in identity;
      if (!("relayerUrl" in identity) || upstream?.key !== keyOf(identity)) await disconnect();
      await server.sendToolListChanged().catch(() => {});
    },
    close: async () => {
      await disconnect();
      await server.close();
    },
  };
}
