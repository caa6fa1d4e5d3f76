/** `GET /api/whoami`: the caller as the relayer resolves it (used to check credentials). */
import { keyLimitsJson } from "../auth/key_limits.ts";
import { jsonResponse } from "../http/respond.ts";
import { route } from "../http/router.ts";
import type { HandlerContext } from "./context.ts";

export function accountRoutes() {
  return [
    route<HandlerContext>("GET", "/api/whoami", ({ caller }) => {
      // What the key may do: namespaces and operations (null: all), until expires_at (null: never).
      const { namespaces, operations, expires_at } = keyLimitsJson(caller.scope, caller.expiresAt);
      return Promise.resolve(jsonResponse(200, {
        owner: caller.owner,
        account_id: caller.accountId,
        public_key: caller.publicKey,
        address: caller.address,
        label: caller.label,
        scope: { namespaces, operations },
        expires_at,
      }));
    }, { signed: true }),
  ];
}
