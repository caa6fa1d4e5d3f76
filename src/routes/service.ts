/** Public service routes: health and version. */
import { jsonResponse } from "../http/respond.ts";
import { route } from "../http/router.ts";
import { API_VERSION, MIN_CLIENT_VERSION, VERSION } from "../version.ts";
import type { HandlerContext } from "./context.ts";

export interface HealthInfo {
  mode: string;
  packageId: string;
  backends: Record<string, string>;
  /** The public key erase receipts are signed with (hex). */
  receiptKey: string;
  sidecar: () => "up" | "down";
  /** Open MCP sessions, as the sidecar last reported them. */
  mcpSessions: () => number;
}

export function serviceRoutes(health: HealthInfo) {
  return [
    route<HandlerContext>("GET", "/health", () =>
      Promise.resolve(jsonResponse(200, {
        status: "ok",
        version: VERSION,
        apiVersion: API_VERSION,
        mode: health.mode,
        packageId: health.packageId,
        backends: health.backends,
        receiptKey: health.receiptKey,
        sidecar: health.sidecar(),
        mcpSessions: health.mcpSessions(),
      }))),
    route<HandlerContext>("GET", "/version", () =>
      Promise.resolve(jsonResponse(200, {
        version: VERSION,
        apiVersion: API_VERSION,
        minClientVersion: MIN_CLIENT_VERSION,
      }))),
  ];
}
