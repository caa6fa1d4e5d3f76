/**
 * The stdio bridge's memory tools, relayed to the relayer's MCP sidecar: the tool list it
 * serves, and each call with the default namespace, sent in turn and again after a lost
 * connection, its failures worded for the agent.
 */
import { type CallToolResult, ErrorCode, type McpError } from "@modelcontextprotocol/sdk/types.js";
import {
  type BridgeIdentity,
  type BridgeSettings,
  isAnswer,
  isStatus,
  type Upstream,
} from "./bridge_upstream.ts";
import { MEMORY_TOOLS, memoryToolList } from "@svc/relayer/mcp";

/** A tool's result of one text; an error's when `isError`. */
export function toolText(message: string, isError = false): CallToolResult {
  return { content: [{ type: "text", text: message }], ...(isError && { isError }) };
}

/** The text of a tool's result. */
const textOf = (result: CallToolResult) =>
  result.content.map((part: { type: string; text?: string }) => part.text ?? "").join(" ");

/** One of the memory tools, as `MEMORY_TOOLS` defines it. */
export type MemoryTool = (typeof MEMORY_TOOLS)[keyof typeof MEMORY_TOOLS];

/** The memory tools, served by the relayer. */
export class ToolRelay {
  readonly #upstream: Upstream;
  readonly #options: BridgeSettings;

  constructor(upstream: Upstream, options: BridgeSettings) {
    this.#upstream = upstream;
    this.#options = options;
  }

  /** The relayer's tools; the local list when it cannot say. */
  async listTools(identity: BridgeIdentity): Promise<object[]> {
    try {
      const { tools } = await this.#upstream.call(
        identity,
        (client) => client.listTools(),
      ) as { tools: object[] };
      return tools;
    } catch (error) {
      this.#options.debug("tools/list from the relayer failed; serving the local list", {
        error: (error as Error).message,
      });
      return memoryToolList();
    }
  }

  /** Calls the memory tool `name` on the relayer, as `identity`. */
  async callTool(
    identity: BridgeIdentity,
    name: string,
    tool: MemoryTool,
    args: Record<string, unknown>,
  ): Promise<CallToolResult> {
    const upstream = this.#upstream;
    this.#defaultNamespace(tool, args);
    let sent = 0;
    try {
      const result = await upstream.inTurn(() =>
        upstream.call(identity, (client) => {
          sent++;
          return client.callTool({ name, arguments: args }, undefined, {
            timeout: this.#options.callTimeoutMs ?? 90_000,
          });
        })
      ) as CallToolResult;
      // Sent again after a lost connection, an erase or correction may find its own work done.
      if (sent > 1 && result.isError && (name === "svc_forget" || name === "svc_update")) {
        return toolText(
          `The connection to the relayer was lost while ${name} was sent, so it was sent again, ` +
            `and that answered: ${textOf(result)} The first attempt may have been done: check ` +
            "with svc_get or svc_recall.",
          true,
        );
      }
      return result;
    } catch (error) {
      return this.#failed(error, name, identity.relayerUrl);
    }
  }

  /**
   * Only the tools that take a namespace get the default one (svc_get and the others that
   * name a memory by id take none); an empty one is none.
   */
  #defaultNamespace(tool: MemoryTool, args: Record<string, unknown>): void {
    if (
      "namespace" in tool.inputSchema &&
      !(typeof args.namespace === "string" && args.namespace !== "")
    ) {
      if (this.#options.namespace) args.namespace = this.#options.namespace;
      else if (args.namespace === "") delete args.namespace;
    }
  }

  /** The call `name` failed with `error`: what the agent is told, or the sidecar's own error. */
  #failed(error: unknown, name: string, relayerUrl: string): CallToolResult {
    const { refusals } = this.#upstream;
    if (isStatus(error, 401)) return toolText(refusals.unauthorizedText(relayerUrl), true);
    if (isStatus(error, 429)) return toolText(refusals.rateLimitedText(relayerUrl), true);
    if ((error as { code?: number }).code === ErrorCode.RequestTimeout) {
      return toolText(
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
    this.#options.debug("bridge call failed", { tool: name, error: (error as Error).message });
    if (isStatus(error, 503)) return toolText(refusals.unavailableText(relayerUrl), true);
    return toolText(
      `Cannot reach the svc relayer at ${relayerUrl}: ${(error as Error).message}. ` +
        "Check that it is running and reachable, then try again.",
      true,
    );
  }
}
