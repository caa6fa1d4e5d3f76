/**
 * An in-process MCP stack for tests: the relayer (in-memory backends) and the sidecar, each
 * behind `Deno.serve` on a free loopback port, linked as `main.ts` links them, plus clients
 * built with the official MCP SDK.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Sponsor } from "../src/backends/types.ts";
import type { RelayerOptions } from "../src/relayer.ts";
import type { SessionLimits } from "../src/mcp/sessions.ts";
import { createSidecar, type Sidecar } from "../src/sidecar/server.ts";
import { LOOPBACK_HOSTS } from "../src/http/relayer_names.ts";
import { silentLogger } from "../src/log.ts";
import { type Caller, startTestRelayer, type TestRelayer } from "./fixtures.ts";
import { LexicalEmbedder } from "../plugins/lexical_embedder/mod.ts";

export interface McpStack extends AsyncDisposable {
  test: TestRelayer;
  sidecar: Sidecar;
  /** The secret the relayer sends the sidecar. */
  token: string;
  /** The relayer's base URL on 127.0.0.1. */
  url: string;
  /** Marks the sidecar as down (or up) for the relayer, as its supervisor would. */
  setSidecarUp(up: boolean): void;
  /** Credentials headers of a caller, as an MCP host sends them. */
  auth(caller: Caller, extra?: Record<string, string>): Record<string, string>;
  /** An SDK client connected over Streamable HTTP (or SSE). */
  connect(caller: Caller, options?: { sse?: boolean; namespace?: string }): Promise<Client>;
}

export async function startMcpStack(
  options: {
    limits?: Partial<SessionLimits>;
    allowedOrigins?: string[];
    /** The sidecar's clock for session limits. */
    now?: () => number;
    sponsor?: Sponsor;
    relayer?: Partial<RelayerOptions>;
  } = {},
): Promise<McpStack> {
  let up = true;
  const link = {
    url: "",
    token: crypto.getRandomValues(new Uint8Array(16)).toHex(),
    status: () => up ? "up" as const : "down" as const,
    sessions: () => sidecar.sessions.size,
  };
  // The relayer's names, as main.ts gives them: its origin once it listens, loopback hosts.
  const audiences = new Set<string>();
  const test = await startTestRelayer({
    sidecar: link,
    audiences,
    allowedHosts: LOOPBACK_HOSTS,
    ...options.relayer,
  });
  const quiet = { hostname: "127.0.0.1", port: 0, onListen() {} };
  const relayerServer = Deno.serve(quiet, test.relayer.handler);
  const url = `http://127.0.0.1:${relayerServer.addr.port}`;
  audiences.add(url);
  const sidecar = createSidecar({
    token: link.token,
    relayerUrl: url,
    limits: options.limits,
    allowedOrigins: options.allowedOrigins,
    now: options.now,
    sponsor: options.sponsor,
    waitMs: 10_000,
    logger: silentLogger,
  });
  const sidecarServer = Deno.serve(quiet, sidecar.handler);
  link.url = `http://127.0.0.1:${sidecarServer.addr.port}`;
  const clients: Client[] = [];

  const auth = (caller: Caller, extra: Record<string, string> = {}) => ({
    authorization: `Bearer ${caller.key.privateKey}`,
    "x-svc-account-id": caller.accountId,
    ...extra,
  });

  return {
    test,
    sidecar,
    token: link.token,
    url,
    setSidecarUp(value) {
      up = value;
    },
    auth,
    async connect(caller, { sse = false, namespace } = {}) {
      const headers = auth(caller, namespace ? { "x-svc-namespace": namespace } : {});
      const transport = sse
        ? new SSEClientTransport(new URL(`${url}/api/mcp/sse`), { requestInit: { headers } })
        : new StreamableHTTPClientTransport(new URL(`${url}/api/mcp`), {
          requestInit: { headers },
        });
      const client = new Client({ name: "svc-test", version: "1.0.0" });
      await client.connect(transport);
      clients.push(client);
      return client;
    },
    async [Symbol.asyncDispose]() {
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
      await sidecar.close();
      await sidecarServer.shutdown();
      await relayerServer.shutdown();
      await test[Symbol.asyncDispose]();
    },
  };
}

/** The text of a tool result. */
export function textOf(result: unknown): string {
  const { content } = result as { content: { type: string; text?: string }[] };
  return content.map((c) => c.type === "text" ? c.text : "").join("");
}

/** A raw Streamable HTTP initialize request, as any MCP client sends first. */
export function initializeRequest(headers: Record<string, string>): RequestInit {
  return {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "raw", version: "1.0.0" },
      },
    }),
  };
}

/**
 * An embedder whose embeddings wait for `release()`: the calls that embed stay in progress.
 * `embedding` resolves once one waits; `waiting()` counts those that did.
 */
export function heldEmbedder() {
  const lexical = new LexicalEmbedder();
  const { promise: held, resolve: release } = Promise.withResolvers<void>();
  const { promise: embedding, resolve: embeds } = Promise.withResolvers<void>();
  let waited = 0;
  const embedder = Object.assign(Object.create(lexical), {
    async embed(texts: string[]) {
      waited++;
      embeds();
      await held;
      return lexical.embed(texts);
    },
  });
  return { embedder, embedding, release, waiting: () => waited };
}
