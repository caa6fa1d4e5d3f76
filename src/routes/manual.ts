/**
 * Routes of memories the client encrypts itself: stored and recalled under the client's own
 * vectors, which the relayer can embed for it.
 */
import { jsonResponse } from "../http/respond.ts";
import type { Route } from "../http/router.ts";
import { integer, object, oneOf } from "../http/fields.ts";
import { embedTexts, manualBlob, namespace, vector } from "../http/memory_fields.ts";
import type { MemoryService } from "../services/memories.ts";
import { type HandlerContext, provenanceOf, route } from "./context.ts";
import { EXAMPLE_ID, EXAMPLE_MEMORY, EXAMPLE_OWNER, EXAMPLE_RESULT } from "./examples.ts";
import { MAX_QUERY_BYTES } from "../text_limits.ts";

const EMBED = object({
  texts: embedTexts(MAX_QUERY_BYTES),
  purpose: oneOf(["document", "query"] as const, {
    description: "Embed as memories (`document`, the default) or as recall questions (`query`).",
  }),
});

/** A vector of the embedder's `dimensions`, for the examples. */
function exampleVector(dimensions: () => number): number[] {
  return Array.from({ length: dimensions() }, (_, i) => (i % 7) / 10);
}

/** The routes: store, embed, recall; `dimensions`: the embedder's, which a vector must have. */
export function manualRoutes(
  service: MemoryService,
  dimensions: () => number,
): Route<HandlerContext>[] {
  const MANUAL = object({
    blob: manualBlob(),
    vector: vector({ dimensions }),
    namespace: namespace({ written: true }),
  });
  const MANUAL_RECALL = object({
    vector: vector({ dimensions }),
    limit: integer({ fallback: 10, min: 1, max: 100 }),
    namespace: namespace(),
  });
  return [
    route("POST", "/api/remember/manual", async ({ caller, input: { body }, touch }) => {
      const { blob, vector, namespace } = body;
      touch(namespace);
      const stored = await service.rememberManual(
        caller.owner,
        blob,
        vector,
        namespace,
        provenanceOf(caller),
      );
      touch(namespace, [stored.id]);
      return jsonResponse(200, stored);
    }, {
      signed: true,
      operations: ["write"],
      access: "remember",
      input: { body: MANUAL },
      doc: {
        tag: "manual",
        summary: "Store a memory the client encrypted, under the client's vector",
        get example() {
          return {
            body: {
              encrypted_data: "c2VhbGVkIGJ5IHRoZSBjbGllbnQ=",
              vector: exampleVector(dimensions),
            },
          };
        },
        responses: {
          200: {
            description: "Stored and indexed.",
            example: {
              id: EXAMPLE_ID,
              blob_id: EXAMPLE_RESULT.blob_id,
              owner: EXAMPLE_OWNER,
              namespace: "default",
            },
          },
        },
      },
    }),
    route("POST", "/api/embed", async ({ input: { body }, request }) => {
      const { texts: { texts, one }, purpose = "document" } = body;
      const { vectors, model, dimensions } = await service.embed(texts, purpose, {
        signal: request.signal,
      });
      const embedded = one ? { vector: vectors[0] } : { vectors };
      return jsonResponse(200, { ...embedded, model, dimensions });
    }, {
      // Not sent again without a nonce: each call costs the embedder's work.
      signed: true,
      operations: ["read"],
      input: { body: EMBED },
      doc: {
        tag: "manual",
        summary: "Vectors of texts in the relayer's embedding space (the relayer reads them)",
        example: { body: { text: "I am vegetarian" } },
        responses: {
          200: {
            description: "`vector` for `text`, `vectors` in order for `texts`; the model and " +
              "its dimensions.",
            get example() {
              return {
                vector: exampleVector(dimensions),
                model: "example-model",
                dimensions: dimensions(),
              };
            },
          },
        },
      },
    }),
    route("POST", "/api/recall/manual", async ({ caller, input: { body }, request, touch }) => {
      const { vector, limit, namespace } = body;
      touch(namespace);
      const recalled = await service.recallManual(caller.owner, vector, limit, namespace, {
        signal: request.signal,
      });
      touch(namespace, recalled.results.map((result) => result.id));
      return jsonResponse(200, recalled);
    }, {
      signed: true,
      operations: ["read"],
      claim: "overlap",
      access: "recall",
      input: { body: MANUAL_RECALL },
      doc: {
        tag: "manual",
        summary: "The memories nearest to the client's vector",
        get example() {
          return { body: { vector: exampleVector(dimensions), limit: 5 } };
        },
        responses: {
          200: {
            description: "The nearest memories, without their text.",
            example: {
              results: [{
                id: EXAMPLE_ID,
                blob_id: EXAMPLE_RESULT.blob_id,
                distance: 0.12,
                created_at: EXAMPLE_MEMORY.created_at,
              }],
              total: 1,
            },
          },
        },
      },
    }),
  ];
}
