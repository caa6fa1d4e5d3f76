/** `GET /api/whoami`: the caller as the relayer resolves it (used to check credentials). */
import { jsonResponse } from "../http/respond.ts";
import { route } from "../http/router.ts";
import type { HandlerContext } from "./context.ts";

export function accountRoutes() {
  return [
    route<HandlerContext>("GET", "/api/whoami", ({ caller }) =>
      Promise.resolve(jsonResponse(200, {
        owner: caller.owner,
        account_id: caller.accountId,
        public_key: caller.publicKey,
      })), { signed: true }),
  ];
}
