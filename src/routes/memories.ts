/** Remember, recall and restore routes: parse, validate, call the memory service, serialize. */
import { jsonResponse } from "../http/respond.ts";
import { route } from "../http/router.ts";
import {
  arrayField,
  base64Field,
  booleanField,
  expiryFields,
  integerField,
  memoryId,
  namespaceField,
  numberField,
  objectValue,
  requiredText,
  tagsField,
  threadField,
  timeField,
  vectorField,
} from "../http/validate.ts";
import { SvcError } from "../errors.ts";
import type { LifecycleService } from "../services/lifecycle.ts";
import type { MemoryService, RememberItem } from "../services/memories.ts";
import type { HandlerContext } from "./context.ts";

export const MAX_TEXT_BYTES = 1024 * 1024;
export const MAX_QUERY_BYTES = 64 * 1024;
const JOB_ID = /^[0-9a-f-]{36}$/;

/** A text to remember with its attributes, from a remember body or a bulk item. */
function rememberItem(body: Record<string, unknown>): RememberItem {
  return {
    text: requiredText(body, "text", MAX_TEXT_BYTES),
    namespace: namespaceField(body),
    attributes: {
      tags: tagsField(body),
      thread: threadField(body),
      expiresAt: expiryFields(body, Date.now()),
    },
  };
}

export function memoryRoutes(
  service: MemoryService,
  lifecycle: LifecycleService,
  dimensions: () => number,
) {
  const signed = { signed: true };
  return [
    route<HandlerContext>("POST", "/api/remember", async ({ caller, json }) => {
      const body = json();
      const item = rememberItem(body);
      if (body.replaces !== undefined && body.replaces !== null) {
        const { text, attributes } = item;
        const job = await lifecycle.update(caller.owner, memoryId(body.replaces, "replaces"), {
          text,
          ...attributes,
        });
        if (!job) throw new SvcError("not_found", "No memory with the id in replaces");
        return jsonResponse(202, {
          job_id: job.job_id,
          status: job.status,
          supersedes: job.supersedes,
        });
      }
      const [original] = await service.duplicates(caller.owner, [item]);
      const memory = original && await lifecycle.get(caller.owner, original, caller);
      if (memory) return jsonResponse(200, { status: "duplicate", duplicate_of: original, memory });
      const [job] = await service.remember(caller.owner, [item]);
      return jsonResponse(202, { job_id: job.job_id, status: job.status });
    }, signed),

    route<HandlerContext>("POST", "/api/remember/bulk", async ({ caller, json }) => {
      const items = arrayField(json(), "items", 1, 20).map((value, i) =>
        rememberItem(objectValue(value, `items[${i}]`))
      );
      const originals = await service.duplicates(caller.owner, items);
      const fresh = items.filter((_, i) => !originals[i]);
      const jobs = fresh.length > 0 ? await service.remember(caller.owner, fresh) : [];
      const duplicates = originals.flatMap((original, index) =>
        original ? [{ index, duplicate_of: original }] : []
      );
      return jsonResponse(202, {
        job_ids: jobs.map((job) => job.job_id),
        total: jobs.length,
        status: "pending",
        ...(duplicates.length > 0 && { duplicates }),
      });
    }, signed),

    route<HandlerContext>("POST", "/api/remember/bulk/status", async ({ caller, json }) => {
      const ids = arrayField(json(), "job_ids", 1, 100).map((id, i) => {
        if (typeof id !== "string" || id === "") {
          throw new SvcError("bad_request", `job_ids[${i}] must be a non-empty string`);
        }
        return id;
      });
      return jsonResponse(200, { results: await service.jobs(caller.owner, ids) });
    }, signed),

    route<HandlerContext>("GET", "/api/remember/:job_id", async ({ caller, params }) => {
      const job = JOB_ID.test(params.job_id)
        ? await service.job(caller.owner, params.job_id)
        : null;
      if (!job) throw new SvcError("not_found", "No such remember job");
      return jsonResponse(200, job);
    }, signed),

    route<HandlerContext>("POST", "/api/recall", async ({ caller, json, request }) => {
      const body = json();
      const query = requiredText(body, "query", MAX_QUERY_BYTES);
      const limit = integerField(body, "limit", 10, 1, 100);
      const namespace = namespaceField(body);
      const filter = {
        tags: tagsField(body),
        since: timeField(body, "since"),
        until: timeField(body, "until"),
      };
      return jsonResponse(
        200,
        await service.recall(caller.owner, query, limit, namespace, {
          credentials: caller.credentials,
          signal: request.signal,
          filter,
          minScore: numberField(body, "min_score", 0, 1),
          explain: booleanField(body, "explain"),
        }),
      );
    }, { signed: true, ownerKey: true }), // the owner key too: the dashboard's search

    route<HandlerContext>("POST", "/api/remember/manual", async ({ caller, json }) => {
      const body = json();
      const ciphertext = base64Field(body, "encrypted_data");
      const vector = vectorField(body, "vector", dimensions());
      const namespace = namespaceField(body);
      return jsonResponse(
        200,
        await service.rememberManual(caller.owner, ciphertext, vector, namespace),
      );
    }, signed),

    route<HandlerContext>("POST", "/api/recall/manual", async ({ caller, json, request }) => {
      const body = json();
      const vector = vectorField(body, "vector", dimensions());
      const limit = integerField(body, "limit", 10, 1, 100);
      const namespace = namespaceField(body);
      return jsonResponse(
        200,
        await service.recallManual(caller.owner, vector, limit, namespace, {
          signal: request.signal,
        }),
      );
    }, signed),

    route<HandlerContext>("POST", "/api/restore", async ({ caller, json, request }) => {
      const body = json();
      if (body.namespace === undefined || body.namespace === null) {
        throw new SvcError("bad_request", "namespace is required");
      }
      const namespace = namespaceField(body);
      const limit = integerField(body, "limit", 50, 1, 500);
      return jsonResponse(
        200,
        await service.restore(caller.owner, namespace, limit, {
          credentials: caller.credentials,
          signal: request.signal,
        }),
      );
    }, signed),
  ];
}
