/** Remember, recall and restore routes: parse, validate, call the memory service, serialize. */
import { jsonResponse } from "../http/respond.ts";
import { routesFor } from "../http/router.ts";
import {
  array,
  boolean,
  integer,
  nonEmptyString,
  number,
  object,
  oneOf,
  text,
} from "../http/fields.ts";
import {
  embedTexts,
  expiry,
  manualBlob,
  memoryId,
  namespace,
  tags,
  thread,
  time,
  vector,
} from "../http/memory_fields.ts";
import { allowsNamespace, allowsOperation, requireOperation } from "../auth/scope.ts";
import { SvcError } from "../errors.ts";
import { DEFAULT_MIN_SCORE } from "../ranking/rank.ts";
import type { LifecycleService } from "../services/lifecycle.ts";
import type { MemoryService, RememberItem } from "../services/memories.ts";
import { allowById, type HandlerContext, provenanceOf } from "./context.ts";
import {
  EXAMPLE_ID,
  EXAMPLE_JOB,
  EXAMPLE_MEMORY,
  EXAMPLE_OWNER,
  EXAMPLE_RESULT,
} from "./examples.ts";
import { MAX_QUERY_BYTES, MAX_TEXT_BYTES } from "../text_limits.ts";

/** What remember and each bulk item take besides the text. */
const itemFields = {
  text: text({ max: MAX_TEXT_BYTES, description: "The memory. Not blank; at most 1 MiB." }),
  namespace: namespace({ written: true }),
  tags: tags({ written: true }),
  thread: thread({
    description: "The conversation or session it belongs to: recall lets memories of one " +
      "thread lift each other; independent facts have none.",
  }),
  expiresAt: expiry(),
};
const rememberItem = object(itemFields);
const REMEMBER = object({
  ...itemFields,
  replaces: memoryId({ description: "Store this as a new version of that memory." }),
});
const BULK = object({ items: array(rememberItem, { min: 1, max: 20 }) });
const BULK_STATUS = object({ job_ids: array(nonEmptyString(), { min: 1, max: 100 }) });
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
const EMBED = object({
  texts: embedTexts(MAX_QUERY_BYTES),
  purpose: oneOf(["document", "query"] as const, {
    description: "Embed as memories (`document`, the default) or as recall questions (`query`).",
  }),
});
const RESTORE = object({
  namespace: namespace({ required: true }),
  limit: integer({ fallback: 50, min: 1, max: 500 }),
});

const noReplaced = () => new SvcError("not_found", "No memory with the id in replaces");

/** A text to remember with its attributes, from a remember body or a bulk item. */
function itemOf(
  { text, namespace, tags, thread, expiresAt }: ReturnType<typeof rememberItem.parseObject>,
): RememberItem {
  return { text, namespace, attributes: { tags, thread, expiresAt } };
}

export function memoryRoutes(
  service: MemoryService,
  lifecycle: LifecycleService,
  dimensions: () => number,
) {
  const route = routesFor<HandlerContext>();
  const write = { signed: true, operations: ["write"], access: "remember" } as const;
  const read = { signed: true, operations: ["read"] } as const;
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
  const exampleVector = () => Array.from({ length: dimensions() }, (_, i) => (i % 7) / 10);
  return [
    route("POST", "/api/remember", async ({ caller, input: { body }, touch }) => {
      const item = { ...itemOf(body), rememberedBy: provenanceOf(caller) };
      if (body.replaces !== undefined) {
        // A correction erases the version it replaces: it needs the erase scope too, and
        // happens in the namespace of that version.
        requireOperation(caller, "erase");
        await caller.claim?.settle();
        const { text, attributes, rememberedBy } = item;
        const replaced = body.replaces;
        const job = await lifecycle.update(caller.owner, replaced, { text, ...attributes }, {
          allow: allowById(caller, touch, replaced, noReplaced),
          rememberedBy,
        });
        if (!job) throw noReplaced();
        touch(job.namespace, [job.job_id]);
        return jsonResponse(202, {
          job_id: job.job_id,
          status: job.status,
          supersedes: job.supersedes,
        });
      }
      touch(item.namespace);
      const [original] = await service.duplicates(caller.owner, [item]);
      if (original) {
        // Shown only to a key that may read it, and when it can be: a cipher that decrypts with
        // the caller's key (Seal) refuses without one, which a write need not send.
        const memory = allowsOperation(caller.scope, "read")
          ? await lifecycle.get(caller.owner, original, caller).catch((error) => {
            if (error instanceof SvcError && error.code === "forbidden") return undefined;
            throw error;
          })
          : undefined;
        touch(item.namespace, [original]);
        // `job_id` as a bulk answers a duplicate item, for clients that follow every answer's job.
        return jsonResponse(200, {
          status: "duplicate",
          duplicate_of: original,
          job_id: original,
          ...(memory && { memory }),
        });
      }
      const [job] = await service.remember(caller.owner, [item], caller.claim);
      touch(item.namespace, [job.job_id]);
      return jsonResponse(202, { job_id: job.job_id, status: job.status });
    }, {
      ...write,
      claim: "carried",
      input: { body: REMEMBER },
      doc: {
        tag: "memories",
        summary: "Remember a text: queued, then encrypted, stored and indexed",
        description: "A text the namespace already holds (same after normalising case and " +
          "white space) stores nothing and answers with that memory. With `replaces`, the " +
          "text is a new version of that memory, which is erased once the new one is " +
          "recallable; a scoped key then needs `erase` as well as `write`.",
        example: { body: { text: "I am vegetarian", namespace: "default", tags: ["diet"] } },
        responses: {
          202: {
            description: "Accepted: poll the job.",
            example: { job_id: EXAMPLE_ID, status: "pending" },
          },
          200: {
            description: "Already remembered: the memory holding the text (`job_id` names it " +
              "too, as a bulk does; there is nothing to wait for).",
            example: {
              status: "duplicate",
              duplicate_of: EXAMPLE_ID,
              job_id: EXAMPLE_ID,
              memory: EXAMPLE_MEMORY,
            },
          },
          404: { description: "With `replaces`: no memory of the caller has that id." },
        },
      },
    }),

    route("POST", "/api/remember/bulk", async ({ caller, input: { body }, touch }) => {
      const rememberedBy = provenanceOf(caller);
      const items = body.items.map((item) => ({ ...itemOf(item), rememberedBy }));
      for (const item of items) touch(item.namespace);
      const originals = await service.duplicates(caller.owner, items);
      const fresh = items.filter((_, i) => !originals[i]);
      const jobs = fresh.length > 0
        ? await service.remember(caller.owner, fresh, caller.claim)
        : [];
      for (const job of jobs) touch(job.namespace, [job.job_id]);
      const duplicates = originals.flatMap((original, index) => {
        if (!original) return [];
        touch(items[index].namespace, [original]);
        return [{ index, duplicate_of: original }];
      });
      // `job_ids[i]` is `items[i]`'s: a duplicate's is the memory holding its text, which is
      // the id of the job that stored it.
      const next = jobs.values();
      return jsonResponse(202, {
        job_ids: originals.map((original) => original ?? next.next().value!.job_id),
        total: items.length,
        status: "pending",
        ...(duplicates.length > 0 && { duplicates }),
      });
    }, {
      ...write,
      claim: "carried",
      input: { body: BULK },
      doc: {
        tag: "memories",
        summary: "Remember 1 to 20 texts at once",
        description: "`job_ids[i]` is `items[i]`'s job. An item whose text is already " +
          "remembered starts none: its `job_ids[i]` is the memory holding the text (nothing " +
          "to wait for), and it is listed in `duplicates`.",
        example: {
          body: { items: [{ text: "I keep bees" }, { text: "My sister lives in Lisbon" }] },
        },
        responses: {
          202: {
            description: "Accepted: a job per item, in order.",
            example: { job_ids: [EXAMPLE_ID], total: 1, status: "pending" },
          },
        },
      },
    }),

    route("POST", "/api/remember/bulk/status", async ({ caller, input: { body }, touch }) => {
      // A job in a namespace the key may not use is answered as an unknown one.
      const results = (await service.jobs(caller.owner, body.job_ids)).map((job) =>
        "namespace" in job && !allowsNamespace(caller.scope, job.namespace)
          ? { job_id: job.job_id, status: "not_found" as const }
          : job
      );
      for (const job of results) if ("namespace" in job) touch(job.namespace);
      return jsonResponse(200, { results });
    }, {
      signed: true,
      operations: ["write"],
      claim: "overlap",
      input: { body: BULK_STATUS },
      doc: {
        tag: "memories",
        summary: "The state of 1 to 100 remember jobs",
        example: { body: { job_ids: [EXAMPLE_ID] } },
        responses: {
          200: {
            description:
              "The jobs in request order; an unknown, malformed or another owner's job is " +
              '`{job_id, status: "not_found"}`.',
            example: { results: [EXAMPLE_JOB] },
          },
        },
      },
    }),

    route("GET", "/api/remember/:job_id", async ({ caller, params, touch }) => {
      const job = await service.job(caller.owner, params.job_id);
      if (!job || !allowsNamespace(caller.scope, job.namespace)) {
        throw new SvcError("not_found", "No such remember job");
      }
      touch(job.namespace);
      return jsonResponse(200, job);
    }, {
      signed: true,
      ownerKey: true, // the dashboard waits for a correction
      operations: ["write"],
      claim: "overlap",
      doc: {
        tag: "memories",
        summary: "The state of a remember job",
        example: { params: { job_id: EXAMPLE_ID } },
        responses: {
          200: { description: "The job.", example: EXAMPLE_JOB },
          404: { description: "Unknown, expired or another owner's job." },
        },
      },
    }),

    route("POST", "/api/recall", async ({ caller, input: { body }, request, touch }) => {
      const { query, limit, namespace, tags, since, until, min_score, explain } = body;
      touch(namespace);
      const recalled = await service.recall(caller.owner, query, limit, namespace, {
        credentials: caller.credentials,
        signal: request.signal,
        filter: { tags, since, until },
        minScore: min_score,
        explain,
      });
      touch(namespace, recalled.results.map((result) => result.id));
      return jsonResponse(200, recalled);
      // The owner key too: the dashboard's search.
    }, {
      ...read,
      claim: "overlap",
      ownerKey: true,
      access: "recall",
      input: { body: RECALL },
      doc: {
        tag: "memories",
        summary: "Recall the memories that best match a query",
        example: { body: { query: "what do I eat?", limit: 5, tags: ["diet"] } },
        responses: {
          200: {
            description: "The memories found, best first (none: `{results: [], total: 0}`).",
            example: { results: [EXAMPLE_RESULT], total: 1 },
          },
        },
      },
    }),

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
      ...write,
      input: { body: MANUAL },
      doc: {
        tag: "manual",
        summary: "Store a memory the client encrypted, under the client's vector",
        get example() {
          return {
            body: { encrypted_data: "c2VhbGVkIGJ5IHRoZSBjbGllbnQ=", vector: exampleVector() },
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
      ...read,
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
              return { vector: exampleVector(), model: "example-model", dimensions: dimensions() };
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
      ...read,
      claim: "overlap",
      access: "recall",
      input: { body: MANUAL_RECALL },
      doc: {
        tag: "manual",
        summary: "The memories nearest to the client's vector",
        get example() {
          return { body: { vector: exampleVector(), limit: 5 } };
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

    route("POST", "/api/restore", async ({ caller, input: { body }, request, touch }) => {
      const { namespace, limit } = body;
      touch(namespace);
      const restored = await service.restore(caller.owner, namespace, limit, {
        credentials: caller.credentials,
        signal: request.signal,
        eraseCopies: allowsOperation(caller.scope, "erase"),
      });
      return jsonResponse(200, restored);
      // Restore rebuilds the index: it changes what is stored, as a write does.
    }, {
      signed: true,
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
