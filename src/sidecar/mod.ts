/**
 * The MCP sidecar: the process beside the relayer that serves MCP over HTTP and pays for
 * sponsored transactions (`createSidecar`). The relayer checks it with `healthProof` (`.`).
 *
 * @module
 */
export {
  createSidecar,
  type Sidecar,
  type SidecarOptions,
  type SidecarSessions,
} from "./server.ts";
export type { SidecarLink } from "./link.ts";
export type { SessionLimits } from "../mcp/sessions.ts";
