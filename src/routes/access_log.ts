/**
 * The access log over HTTP: `withAccessLog` makes every route with an `access` option append
 * an entry per namespace its request touched once it answers below 400 (a refusal adds none;
 * a streamed answer, `application/x-ndjson`, once it is sent or its client leaves), and
 * `GET /api/access-log` reads the log: the owner key, or a delegate key with the `audit` scope,
 * which sees only the entries of the namespaces it may use.
 */
import { isAddress } from "../auth/keys.ts";
import { allowsNamespace, requireNamespace } from "../auth/scope.ts";
import { SvcError } from "../errors.ts";
import { jsonResponse } from "../http/respond.ts";
import { type AccessOperation, type Route, route } from "../http/router.ts";
import { integerField, memoryId, timeField, validNamespace } from "../http/validate.ts";
import { ACCESS_OPERATIONS, type AccessLog, type AccessLogQuery } from "../services/access_log.ts";
import type { HandlerContext } from "./context.ts";

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

/** `response` whose body, once read to its end or cancelled, calls `done` (once). */
function onceSent(response: Response, done: () => void): Response {
  const source = response.body!.getReader();
  let called = false;
  const finish = () => {
    if (!called) done();
    called = true;
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: ended, value } = await source.read();
        if (ended) {
          finish();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        finish();
        controller.error(error);
      }
    },
    async cancel(reason) {
      finish();
      await source.cancel(reason);
    },
  });
  return new Response(body, response);
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
        const streamed = response.body &&
          response.headers.get("content-type")?.startsWith("application/x-ndjson");
        if (streamed) return onceSent(response, append);
        append();
        return response;
      },
    };
  });
}

/** The query of `GET /api/access-log`, checked. */
function accessQuery(params: URLSearchParams): AccessLogQuery {
  const fields: Record<string, unknown> = Object.fromEntries(params);
  const query: AccessLogQuery = {
    since: timeField(fields, "since"),
    until: timeField(fields, "until"),
  };
  if (fields.limit !== undefined) {
    fields.limit = /^\d{1,6}$/.test(String(fields.limit)) ? Number(fields.limit) : fields.limit;
  }
  query.limit = integerField(fields, "limit", 50, 1, 500);
  if (params.has("key")) {
    const key = params.get("key");
    if (!isAddress(key)) throw new SvcError("bad_request", "key must be a key's address (0x…)");
    query.key = key;
  }
  if (params.has("op")) {
    const op = params.get("op") as AccessOperation;
    if (!ACCESS_OPERATIONS.includes(op)) {
      throw new SvcError("bad_request", `op must be one of ${ACCESS_OPERATIONS.join(", ")}`);
    }
    query.op = op;
  }
  if (params.has("namespace")) query.namespace = validNamespace(params.get("namespace"));
  if (params.has("memory")) query.memory = memoryId(params.get("memory"), "memory");
  if (params.has("cursor")) {
    const cursor = params.get("cursor")!;
    if (cursor.length > 200) throw new SvcError("bad_request", "cursor is too long");
    query.cursor = cursor;
  }
  return query;
}

/** `GET /api/access-log`: the owner key, or a delegate key with the `audit` scope. */
export function accessLogRoutes(log: AccessLog) {
  return [
    route<HandlerContext>("GET", "/api/access-log", async ({ caller, request }) => {
      const query = accessQuery(new URL(request.url).searchParams);
      if (query.namespace !== undefined) requireNamespace(caller, query.namespace);
      const page = await log.query(
        caller.owner,
        query,
        (namespace) => allowsNamespace(caller.scope, namespace),
      );
      return jsonResponse(200, page);
    }, { signed: true, ownerKey: true, operation: "audit" }),
  ];
}
