/**
 * Serving HTTP as the relayer does, for the servers beside it (the dashboard, the MCP bridge's
 * sign-in page, the sidecar's supervisor): the kernel that reads, guards and answers requests,
 * routes, JSON answers and errors, and the loopback names.
 *
 * @module
 */
export { createHttpHandler, type HttpHandler, type HttpHandlerOptions } from "./kernel.ts";
export {
  type AccessOperation,
  type ConnectionInfo,
  type ResponseDoc,
  type Route,
  route,
  type RouteContext,
  type RouteDoc,
  type RouteInput,
  type RouteInputValues,
  type RouteOptions,
} from "./router.ts";
export type { Field, FieldGroup, JsonSchema, Member, Shape } from "./fields.ts";
export type {
  BodyBudget,
  BodyBudgetOptions,
  BodyBudgetRefusal,
  BodyReservation,
} from "./body_budget.ts";
export type { ClaimWrite } from "../auth/verify.ts";
export { errorResponse, FailureLog, jsonResponse } from "./respond.ts";
export { type BodyReadOptions, readBody } from "./body.ts";
export {
  boundAddress,
  bypassProxyForLoopback,
  defaultAllowedHosts,
  hostGuard,
  isHostEntry,
  listeningOrigins,
  LOOPBACK_HOSTS,
  noProxy,
} from "./relayer_names.ts";
export { isHttpUrl } from "../settings_reader.ts";
