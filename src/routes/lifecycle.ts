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
import { type HandlerContext, provenanceOf } from "./context.ts";
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
    route<HandlerContext>("GET", "/api/memories", async ({ caller, request, touch }) => {
      const query = queryOf(request);
      const cursor = query.cursor;
      const namespace = namespaceField(query);
      touch(namespace);
      const page = await lifecycle.list(caller.owner, namespace, {
        limit: integerField(query, "limit", 50, 1, 500),
        cursor: typeof cursor === "string" ? cursor : undefined,
        filter: {
          tags: tagsField(query),
          since: timeField(query, "since"),
          until: timeField(query, "until"),
        },
      }, { credentials: caller.credentials, signal: request.signal });
      touch(namespace, page.memories.map((memory) => memory.id));
      return jsonResponse(200, page);
    }, { ...signed, operation: "read", access: "list" }),

    route<HandlerContext>(
      "GET",
      "/api/memories/:id",
      async ({ caller, params, request, touch }) => {
        const id = memoryId(params.id);
        const memory = await lifecycle.get(caller.owner, id, {
          credentials: caller.credentials,
          signal: request.signal,
          allow: (namespace) => touch(namespace, [id]),
        });
        if (!memory) throw unknown();
        return jsonResponse(200, memory);
      },
      { ...signed, operation: "read", access: "get" },
    ),

    route<HandlerContext>("DELETE", "/api/memories/:id", async ({ caller, params, touch }) => {
      const id = memoryId(params.id);
      // Not abortable: once begun, an erase completes even if its client leaves.
      const receipt = await lifecycle.erase(caller.owner, id, {
        credentials: caller.credentials,
        allow: (namespace) => touch(namespace, [id]),
      });
      if (!receipt) throw unknown();
      return jsonResponse(200, receipt);
    }, { ...signed, operation: "erase", access: "erase" }),

    route<HandlerContext>("DELETE", "/api/memories", async ({ caller, request, touch }) => {
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
      touch(namespace);
      const erased = await lifecycle.eraseNamespace(caller.owner, namespace, {
        credentials: caller.credentials,
      });
      touch(namespace, erased.receipts.map((receipt) => receipt.memory_id));
      return jsonResponse(200, erased);
    }, { ...signed, operation: "erase", access: "erase" }),

    route<HandlerContext>("PUT", "/api/memories/:id", async ({ caller, params, json, touch }) => {
      const id = memoryId(params.id);
      const body = json();
      const job = await lifecycle.update(caller.owner, id, {
        text: requiredText(body, "text", MAX_TEXT_BYTES),
        tags: tagsField(body),
        expiresAt: expiryFields(body, Date.now()),
      }, { allow: (namespace) => touch(namespace, [id]), rememberedBy: provenanceOf(caller) });
      if (!job) throw unknown();
      touch(job.namespace, [job.job_id]);
      return jsonResponse(202, {
        job_id: job.job_id,
        status: job.status,
        supersedes: job.supersedes,
      });
    }, { signed: true, operation: "write", access: "update" }),
  ];
}
