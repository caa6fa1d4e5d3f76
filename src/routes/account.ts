/** `GET /api/whoami`: the caller as the relayer resolves it (used to check credentials). */
import { keyLimitsJson } from "../auth/key_limits.ts";
import { jsonResponse } from "../http/respond.ts";
import { route } from "./context.ts";
import { EXAMPLE_OWNER } from "./examples.ts";

export function accountRoutes() {
  return [
    route("GET", "/api/whoami", ({ caller }) => {
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
    }, {
      signed: true,
      claim: "overlap",
      doc: {
        tag: "account",
        summary: "The caller as the relayer resolves it (a cheap credentials check)",
        responses: {
          200: {
            description: "The key's account, owner, label and limits (`null`: no limit).",
            example: {
              owner: EXAMPLE_OWNER,
              account_id: "0x7d2e…",
              public_key: "3b6a…",
              address: "0x5c1f…",
              label: "laptop agent",
              scope: { namespaces: ["work"], operations: ["read"] },
              expires_at: null,
            },
          },
        },
      },
    }),
  ];
}
