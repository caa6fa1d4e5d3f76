/** `GET /api/whoami`: the caller as the relayer resolves it (used to check credentials). */
import { jsonResponse } from "../http/respond.ts";
import { route } from "../http/router.ts";
import type { HandlerContext } from "./context.ts";
import { EXAMPLE_OWNER } from "./examples.ts";

export function accountRoutes() {
  return [
    route<HandlerContext>("GET", "/api/whoami", ({ caller }) =>
      Promise.resolve(jsonResponse(200, {
        owner: caller.owner,
        account_id: caller.accountId,
        public_key: caller.publicKey,
      })), {
      signed: true,
      doc: {
        tag: "account",
        summary: "The caller as the relayer resolves it (a cheap credentials check)",
        responses: {
          200: {
            description: "The key's account and owner.",
            example: { owner: EXAMPLE_OWNER, account_id: "0x7d2e…", public_key: "3b6a…" },
          },
        },
      },
    }),
  ];
}
