/**
 * The relayer's MCP tools as the stdio bridge serves them (`svc-mcp`): their definitions, what a
 * JSON-RPC message may be, and the tool server over a client of one's own (operator-blind).
 *
 * @module
 */
export { MEMORY_TOOLS, memoryToolList } from "./tool_definitions.ts";
export { CALL_REFUSED, idOf, MAX_BATCH, type Refusal, refusal } from "./messages.ts";
export { IN_PROGRESS } from "./calls_in_flight.ts";
export { MAX_MCP_BODY_BYTES } from "./json_rpc_body.ts";
export { VERSION } from "../version.ts";
export { createMcpServer, type ToolSession } from "./tools.ts";
