/**
 * The access log over HTTP: `withAccessLog` makes every route with an `access` option append
 * an entry per namespace its request touched once it answers below 400 (a refusal adds none;
 * a streamed answer, `application/x-ndjson`, once it is sent or its client leaves; it ends once they
 * are queued, so a request that outruns the store waits for it), and
 * `GET /api/access-log` reads the log: the owner key, or a delegate key with the `audit` scope,
 * which sees only the entries of the namespaces it may use.
 */
import { allowsNamespace, requireNamespace } from "../auth/scope.ts";
import { SvcError } from "../errors.ts";
import { jsonResponse } from "../http/respond.ts";
import type { AccessOperation, Route } from "../http/router.ts";
import { integer, object, oneOf, string } from "../http/fields.ts";
import { address, memoryId, optionalNamespace, time } from "../http/memory_fields.ts";
import { EXAMPLE_ID } from "./examples.ts";
import { ACCESS_OPERATIONS, type AccessLog } from "../services/access_log.ts";
import { anyKeySigned, type HandlerContext, route } from "./context.ts";

/** What the request of `context` touched, as access-log events of operation `op`. */
function eventsOf(context: HandlerContext, op: AccessOperation) {
  const { caller, accessed, clientAddress, requestId } = context;
  return [...accessed].map(([namespace, memoryIds]) => ({
    owner: caller.owner,
    op,
    key: { address: caller.address, label: caller.label },
    namespace,
    memoryIds,
    client: clientAddress,
    requestId,
  }));
}

/**
 * `response` whose body, once read to its end or cancelled, calls `done` (once); its end waits
 * for `done`.
 */
function onceSent(response: Response, done: () => Promise<void>): Response {
  let called: Promise<void> | undefined;
  const finish = () => called ??= done();
  // Pulled as its client reads, no chunk ahead: what was read is what was sent.
  const relay = new TransformStream({ flush: finish, cancel: finish }, { highWaterMark: 0 });
  return new Response(response.body!.pipeThrough(relay), response);
}

/** `routes`, each with an `access` option appending to `log` once it answers below 400. */
export function withAccessLog(
  routes: Route<HandlerContext>[],
  log: AccessLog,
): Route<HandlerContext>[] {
  return routes.map((original) => {
    const op = original.access;
    if (!op) return original;
    return {
      ...original,
      async handle(context: HandlerContext) {
        const response = await original.handle(context);
        if (response.status >= 400) return response;
        const append = () => log.append(eventsOf(context, op));
        // Only a stream's body is touched: reading `body` of any other answer turns it into a
        // stream, which is then sent in chunks instead of with its length.
        const streamed = response.headers.get("content-type")?.startsWith("application/x-ndjson");
        if (streamed && response.body) return onceSent(response, append);
        await append();
        return response;
      },
    };
  });
}

const ACCESS_LOG = object({
  since: time({ description: "Only entries at or after this time (ISO 8601)." }),
  until: time({ description: "Only entries before this time (ISO 8601)." }),
  key: address({ description: "Only entries of the key with this address." }),
  op: oneOf(ACCESS_OPERATIONS, { description: "Only entries of this operation." }),
  namespace: optionalNamespace({ description: "Only entries of this namespace." }),
  memory: memoryId({ description: "Only entries that touched this memory." }),
  limit: integer({ fallback: 50, min: 1, max: 500 }),
  cursor: string({ description: "`next_cursor` of the previous page." }),
}, {
  check({ cursor }) {
    if (cursor !== undefined && cursor.length > 200) {
      throw new SvcError("bad_request", "cursor is too long");
    }
  },
});

/** `GET /api/access-log`: the owner key, or a delegate key with the `audit` scope. */
export function accessLogRoutes(log: AccessLog) {
  return [
    route("GET", "/api/access-log", async ({ caller, input: { query } }) => {
      if (query.namespace !== undefined) requireNamespace(caller, query.namespace);
      const page = await log.query(
        caller.owner,
        query,
        (namespace) => allowsNamespace(caller.scope, namespace),
      );
      return jsonResponse(200, page);
    }, {
      ...anyKeySigned,
      operations: ["audit"],
      input: { query: ACCESS_LOG },
      doc: {
        tag: "access log",
        summary: "Who did what to the owner's memories, newest first",
        example: { query: { op: "recall", limit: 20 } },
        responses: {
          200: {
            description: "A page of entries; `next_cursor` is `null` on the last one.",
            example: {
              entries: [{
                id: "01JD…",
                at: "2026-05-01T12:00:00.000Z",
                op: "recall",
                key: { address: "0x5c1f…", label: "laptop agent" },
                namespace: "default",
                memory_ids: [EXAMPLE_ID],
                client: "127.0.0.1",
                request_id: "5b0e…",
              }],
              next_cursor: null,
            },
          },
        },
      },
    }),
  ];
}
