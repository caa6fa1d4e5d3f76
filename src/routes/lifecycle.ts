/** The routes of memories once remembered: list, get, update and erase. */
import { jsonResponse } from "../http/respond.ts";
import { route } from "../http/router.ts";
import {
  expiryFields,
  integerField,
  memoryId,
  namespaceField,
  requiredText,
  tagsField,
  timeField,
} from "../http/validate.ts";
import { SvcError } from "../errors.ts";
import type { LifecycleService } from "../services/lifecycle.ts";
import type { HandlerContext } from "./context.ts";
import { MAX_TEXT_BYTES } from "./memories.ts";

const unknown = () => new SvcError("not_found", "No such memory");

/** The query string as a body: `limit` a number when it is one, `tag` as the list `tags`. */
function queryOf(request: Request): Record<string, unknown> {
  const params = new URL(request.url).searchParams;
  const query: Record<string, unknown> = Object.fromEntries(params);
  if (query.limit !== undefined) {
    const limit = Number(query.limit);
    query.limit = /^\d+$/.test(String(query.limit)) ? limit : query.limit;
  }
  delete query.tag;
  if (params.has("tag")) query.tags = params.getAll("tag");
  return query;
}

export function lifecycleRoutes(lifecycle: LifecycleService) {
  const signed = { signed: true, ownerKey: true };
  return [
    route<HandlerContext>("GET", "/api/memories", async ({ caller, request }) => {
      const query = queryOf(request);
      const cursor = query.cursor;
      return jsonResponse(
        200,
        await lifecycle.list(caller.owner, namespaceField(query), {
          limit: integerField(query, "limit", 50, 1, 500),
          cursor: typeof cursor === "string" ? cursor : undefined,
          filter: {
            tags: tagsField(query),
            since: timeField(query, "since"),
            until: timeField(query, "until"),
          },
        }, { credentials: caller.credentials, signal: request.signal }),
      );
    }, signed),

    route<HandlerContext>("GET", "/api/memories/:id", async ({ caller, params, request }) => {
      const memory = await lifecycle.get(caller.owner, memoryId(params.id), {
        credentials: caller.credentials,
        signal: request.signal,
      });
      if (!memory) throw unknown();
      return jsonResponse(200, memory);
    }, signed),

    route<HandlerContext>("DELETE", "/api/memories/:id", async ({ caller, params }) => {
      // Not abortable: once begun, an erase completes even if its client leaves.
      const receipt = await lifecycle.erase(caller.owner, memoryId(params.id), {
        credentials: caller.credentials,
      });
      if (!receipt) throw unknown();
      return jsonResponse(200, receipt);
    }, signed),

    route<HandlerContext>("DELETE", "/api/memories", async ({ caller, request }) => {
      const query = queryOf(request);
      if (query.namespace === undefined) {
        throw new SvcError("bad_request", "namespace is required to erase a namespace");
      }
      const namespace = namespaceField(query);
      if (query.confirm !== namespace) {
        throw new SvcError(
          "bad_request",
          "confirm must repeat the namespace: erasing a namespace cannot be undone",
        );
      }
      return jsonResponse(
        200,
        await lifecycle.eraseNamespace(caller.owner, namespace, {
          credentials: caller.credentials,
        }),
      );
    }, signed),

    route<HandlerContext>("PUT", "/api/memories/:id", async ({ caller, params, json }) => {
      const id = memoryId(params.id);
      const body = json();
      const job = await lifecycle.update(caller.owner, id, {
        text: requiredText(body, "text", MAX_TEXT_BYTES),
        tags: tagsField(body),
        expiresAt: expiryFields(body, Date.now()),
      });
      if (!job) throw unknown();
      return jsonResponse(202, {
        job_id: job.job_id,
        status: job.status,
        supersedes: job.supersedes,
      });
    }, { signed: true }),
  ];
}
