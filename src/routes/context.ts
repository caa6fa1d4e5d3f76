/** What every route handler receives. */
import type { VerifiedCaller } from "../auth/verify.ts";
import type { RouteContext } from "../http/router.ts";

export interface HandlerContext extends RouteContext {
  /** The verified caller; set on signed routes only. */
  caller: VerifiedCaller;
  /** The body as a JSON object (415 / 400 when it is not one). */
  json(): Record<string, unknown>;
}
