/** Remember, recall and restore routes: parse, validate, call the memory service, serialize. */
import { jsonResponse } from "../http/respond.ts";
import type { Route } from "../http/router.ts";
import { boolean, integer, number, object, text } from "../http/fields.ts";
import { namespace, tags, time } from "../http/memory_fields.ts";
import { allowsOperation } from "../auth/scope.ts";
import { DEFAULT_MIN_SCORE } from "../ranking/rank.ts";
import type { LifecycleService } from "../services/lifecycle.ts";
import type { MemoryService } from "../services/memories.ts";
import { anyKeySigned, type HandlerContext, route } from "./context.ts";
import { EXAMPLE_OWNER, EXAMPLE_RESULT } from "./examples.ts";
import { manualRoutes } from "./manual.ts";
import { rememberRoutes } from "./remember.ts";
import { MAX_QUERY_BYTES } from "../text_limits.ts";

const RECALL = object({
  query: text({ max: MAX_QUERY_BYTES, description: "What to look for, in words." }),
  limit: integer({ fallback: 10, min: 1, max: 100 }),
  namespace: namespace(),
  tags: tags({ description: "Only memories carrying every one of these tags." }),
  since: time({ description: "Only memories stored at or after this time (ISO 8601)." }),
  until: time({ description: "Only memories stored before this time (ISO 8601)." }),
  min_score: number({
    min: 0,
    max: 1,
    description: `Leave out memories scoring below this (default ${DEFAULT_MIN_SCORE}).`,
  }),
  explain: boolean({
    description: "Give each result's score components, how far the nearest memories stand out " +
      "(`margin`) and lie apart (`spread`), and the margin below which a best memory without a " +
      "thread gets no answer (`abstain_below`).",
  }),
});
const RESTORE = object({
  namespace: namespace({ required: true }),
  limit: integer({ fallback: 50, min: 1, max: 500 }),
});

/**
 * The memory routes: remember (one, a bulk, their jobs), recall, the client-encrypted ones and
 * restore; `dimensions`: the embedder's, which a client's vector must have.
 */
export function memoryRoutes(
  service: MemoryService,
  lifecycle: LifecycleService,
  dimensions: () => number,
): Route<HandlerContext>[] {
  return [
    ...rememberRoutes({ service, lifecycle }),
    route("POST", "/api/recall", async ({ caller, input: { body }, request, touch }) => {
      const { query, limit, namespace, tags, since, until, min_score, explain } = body;
      touch(namespace);
      const recalled = await service.recall(caller.owner, query, limit, namespace, {
        credentials: caller.credentials,
        keyAddress: caller.address,
        signal: request.signal,
        filter: { tags, since, until },
        minScore: min_score,
        explain,
      });
      touch(namespace, recalled.results.map((result) => result.id));
      return jsonResponse(200, recalled);
    }, {
      ...anyKeySigned, // the dashboard's search
      operations: ["read"],
      claim: "overlap",
      access: "recall",
      input: { body: RECALL },
      doc: {
        tag: "memories",
        summary: "Recall the memories that best match a query",
        example: { body: { query: "what do I eat?", limit: 5, tags: ["diet"] } },
        responses: {
          200: {
            description: "The memories found, best first, as many as 4 MiB of text holds (none: " +
              "`{results: [], total: 0}`).",
            example: { results: [EXAMPLE_RESULT], total: 1 },
          },
        },
      },
    }),
    ...manualRoutes(service, dimensions),
    route("POST", "/api/restore", async ({ caller, input: { body }, request, touch }) => {
      const { namespace, limit } = body;
      touch(namespace);
      const restored = await service.restore(caller.owner, namespace, limit, {
        credentials: caller.credentials,
        signal: request.signal,
        eraseCopies: allowsOperation(caller.scope, "erase"),
      });
      return jsonResponse(200, restored);
    }, {
      signed: true,
      // Restore rebuilds the index: it changes what is stored, as a write does.
      operations: ["write"],
      access: "restore",
      input: { body: RESTORE },
      doc: {
        tag: "memories",
        summary: "Index again the namespace's stored memories that the index lacks",
        example: { body: { namespace: "default", limit: 50 } },
        responses: {
          200: {
            description: "What was restored.",
            example: {
              restored: 3,
              skipped: 40,
              total: 43,
              remaining: 0,
              truncated: false,
              namespace: "default",
              owner: EXAMPLE_OWNER,
            },
          },
        },
      },
    }),
  ];
}
