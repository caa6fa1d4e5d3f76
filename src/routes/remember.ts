/** Remember routes: one text, a bulk of them, and the state of their jobs. */
import { jsonResponse } from "../http/respond.ts";
import type { Route } from "../http/router.ts";
import { array, nonEmptyString, object, type Parsed, text } from "../http/fields.ts";
import { expiry, memoryId, namespace, tags, thread } from "../http/memory_fields.ts";
import { allowsNamespace, allowsOperation, requireOperation } from "../auth/scope.ts";
import { SvcError } from "../errors.ts";
import type { PublicJob } from "../jobs/job_queue.ts";
import type { LifecycleService } from "../services/lifecycle.ts";
import type { MemoryService, RememberItem } from "../services/memories.ts";
import type { Memory } from "../services/memory_view.ts";
import { allowById, anyKeySigned, type HandlerContext, provenanceOf, route } from "./context.ts";
import { EXAMPLE_ID, EXAMPLE_JOB, EXAMPLE_MEMORY } from "./examples.ts";
import { MAX_TEXT_BYTES } from "../text_limits.ts";

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

const noReplaced = () => new SvcError("not_found", "No memory with the id in replaces");

/** A text to remember with its attributes, from a remember body or a bulk item. */
function itemOf(
  { text, namespace, tags, thread, expiresAt }: Parsed<typeof rememberItem>,
): RememberItem {
  return { text, namespace, attributes: { tags, thread, expiresAt } };
}

/** The services a remember calls. */
export interface RememberServices {
  service: MemoryService;
  lifecycle: LifecycleService;
}

/** What a remember turned out to be, and what it started. */
type RememberOutcome =
  | { kind: "update"; job: PublicJob & { supersedes: string } }
  | { kind: "duplicate"; original: string; memory?: Memory | null }
  | { kind: "new"; job: Pick<PublicJob, "job_id" | "status"> };

/**
 * Carries out a remember, deciding what it is: with `replaces`, a new version of that memory;
 * for a text the namespace already holds, nothing (the outcome names that memory); otherwise a
 * new memory.
 */
async function rememberText(
  { service, lifecycle }: RememberServices,
  { caller, touch }: Pick<HandlerContext, "caller" | "touch">,
  body: Parsed<typeof REMEMBER>,
): Promise<RememberOutcome> {
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
    return { kind: "update", job };
  }
  touch(item.namespace);
  const [accepted] = await service.accept(caller.owner, [item], caller.claim);
  if (accepted.job) {
    touch(item.namespace, [accepted.job.job_id]);
    return { kind: "new", job: accepted.job };
  }
  const original = accepted.duplicate_of;
  // Shown only to a key that may read it, and when it can be: a cipher that decrypts with
  // the caller's key (Seal) refuses without one, which a write need not send.
  const memory = allowsOperation(caller.scope, "read")
    ? await lifecycle.get(caller.owner, original, caller).catch((error) => {
      if (error instanceof SvcError && error.code === "forbidden") return undefined;
      throw error;
    })
    : undefined;
  touch(item.namespace, [original]);
  return { kind: "duplicate", original, memory };
}

/** The answer to a remember. */
function rememberResponse(outcome: RememberOutcome): Response {
  switch (outcome.kind) {
    case "update": {
      const { job_id, status, supersedes } = outcome.job;
      return jsonResponse(202, { job_id, status, supersedes });
    }
    case "duplicate": {
      const { original, memory } = outcome;
      // `job_id` as a bulk answers a duplicate item, for clients that follow every answer's job.
      return jsonResponse(200, {
        status: "duplicate",
        duplicate_of: original,
        job_id: original,
        ...(memory && { memory }),
      });
    }
    case "new":
      return jsonResponse(202, { job_id: outcome.job.job_id, status: outcome.job.status });
  }
}

/** The remember routes: one text, a bulk of them, and the state of their jobs. */
export function rememberRoutes(services: RememberServices): Route<HandlerContext>[] {
  const { service } = services;
  return [
    route("POST", "/api/remember", async (context) => {
      const outcome = await rememberText(services, context, context.input.body);
      return rememberResponse(outcome);
    }, {
      signed: true,
      operations: ["write"],
      access: "remember",
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
      const accepted = await service.accept(caller.owner, items, caller.claim);
      for (const { job } of accepted) if (job) touch(job.namespace, [job.job_id]);
      const duplicates = accepted.flatMap(({ duplicate_of }, index) => {
        if (!duplicate_of) return [];
        touch(items[index].namespace, [duplicate_of]);
        return [{ index, duplicate_of }];
      });
      // `job_ids[i]` is `items[i]`'s: a duplicate's is the memory holding its text, which is
      // the id of the job that stored it.
      return jsonResponse(202, {
        job_ids: accepted.map(({ duplicate_of, job }) => duplicate_of ?? job.job_id),
        total: items.length,
        status: "pending",
        ...(duplicates.length > 0 && { duplicates }),
      });
    }, {
      signed: true,
      operations: ["write"],
      access: "remember",
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
      ...anyKeySigned, // the dashboard waits for a correction
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
  ];
}
