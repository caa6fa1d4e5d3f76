/**
 * The stdio package's MCP server: it serves `svc_login` and `svc_logout` itself and bridges
 * the memory tools to a relayer's legacy SSE endpoint (`/api/mcp/sse`). Signed out, it
 * still answers `initialize` and `tools/list`, and each memory tool returns an error saying
 * how to sign in; once credentials exist the same process starts bridging.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { MEMORY_TOOLS, memoryToolList, VERSION } from "@svc/relayer/mcp";
import { type MemoryTool, ToolRelay, toolText } from "./bridge_relay.ts";
import { type BridgeIdentity, type BridgeSettings, Upstream } from "./bridge_upstream.ts";

export type { BridgeIdentity } from "./bridge_upstream.ts";

/** Signed out: why, in a sentence for the person (the default says how to sign in). */
export interface SignedOut {
  reason?: string;
}

const isSignedIn = (identity: BridgeIdentity | SignedOut): identity is BridgeIdentity =>
  "relayerUrl" in identity;

/** What a memory tool answers signed out: why, and how to sign in. */
function signedOutText(identity: SignedOut): string {
  return (identity.reason ? `${identity.reason} ` : "Not signed in to svc memory. ") +
    "Call the svc_login tool and open the link it returns, or run `svc-mcp login` " +
    "with the preset of your relayer (for example `svc-mcp login --local`) in a terminal.";
}

export interface StdioBridgeOptions extends BridgeSettings {
  /** The identity to use now (read again whenever the bridge is signed out). */
  identity(): Promise<BridgeIdentity | SignedOut>;
  /**
   * Mints a sign-in link for the MCP host that asks (its name, if it gave one); returns the
   * text for the agent.
   */
  login(host: string | undefined): Promise<string>;
  /** Deletes the local credentials; returns the text for the agent, or throws why it cannot. */
  logout(): Promise<string>;
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

type CallRequest = { params: { name: string; arguments?: Record<string, unknown> } };

/** The memory tool `name`; an unknown tool is refused as the MCP specification answers it. */
function memoryTool(name: string): MemoryTool {
  const tool = Object.hasOwn(MEMORY_TOOLS, name)
    ? MEMORY_TOOLS[name as keyof typeof MEMORY_TOOLS]
    : undefined;
  if (!tool) {
    // As the MCP specification answers an unknown tool (an McpError would read "MCP error
    // -32602: Tool x not found": the SDK answers a thrown error's code and message).
    throw Object.assign(new Error(`Unknown tool: ${name}`), { code: ErrorCode.InvalidParams });
  }
  return tool;
}

export function createStdioBridge(options: StdioBridgeOptions) {
  const { debug } = options;
  const server = new Server(
    { name: "svc", version: VERSION },
    { capabilities: { tools: { listChanged: true } } },
  );
  const toolsChanged = () => {
    server.sendToolListChanged().catch(() => {});
  };
  const upstream = new Upstream(options);
  const relay = new ToolRelay(upstream, options);
  // Whether the last identity read was signed in (undefined: none read yet).
  let signedIn: boolean | undefined;

  /**
   * The identity of the moment. A sign-in or sign-out the host was not told of (credentials
   * another process wrote or deleted: `svc-mcp login` in a terminal) tells it the tools changed,
   * unless the caller tells it itself (`telling`).
   */
  async function currentIdentity(telling = false): Promise<BridgeIdentity | SignedOut> {
    const identity = await options.identity();
    const now = isSignedIn(identity);
    if (!telling && signedIn !== undefined && signedIn !== now) toolsChanged();
    signedIn = now;
    return identity;
  }

  async function logout(): Promise<CallToolResult> {
    let message: string;
    try {
      message = await options.logout();
    } catch (error) {
      return toolText((error as Error).message, true); // still signed in
    }
    await upstream.disconnect();
    signedIn = false;
    toolsChanged();
    return toolText(message);
  }

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const identity = await currentIdentity();
    if (!isSignedIn(identity)) return { tools: [...memoryToolList(), SESSION_TOOLS[0]] };
    return { tools: [...await relay.listTools(identity), ...SESSION_TOOLS] };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request: CallRequest) => {
    const { name } = request.params;
    const args = { ...request.params.arguments };
    debug("tool call", { tool: name, arguments: Object.keys(args) });
    if (name === "svc_login") {
      const host = server.getClientVersion();
      return toolText(await options.login(host?.title || host?.name));
    }
    if (name === "svc_logout") return await logout();
    const tool = memoryTool(name);
    const identity = await currentIdentity();
    if (!isSignedIn(identity)) return toolText(signedOutText(identity), true);
    return await relay.callTool(identity, name, tool, args);
  });

  return {
    server,
    /**
     * Credentials changed (signed in or out): close the connection of the old ones and tell the
     * host. A call already made with the new ones keeps its connection.
     */
    async identityChanged(): Promise<void> {
      const identity = await currentIdentity(true);
      if (!isSignedIn(identity) || !upstream.isFor(identity)) await upstream.disconnect();
      await server.sendToolListChanged().catch(() => {});
    },
    close: async () => {
      await upstream.disconnect();
      await server.close();
    },
  };
}
