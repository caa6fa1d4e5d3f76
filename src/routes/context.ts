/** What every relayer route handler receives: the kernel's context plus the verified caller. */
import type { VerifiedCaller } from "../auth/verify.ts";
import type { RouteContext } from "../http/router.ts";

export interface HandlerContext extends RouteContext {
  /** The verified caller; set on signed routes only. */
  caller: VerifiedCaller;
}
