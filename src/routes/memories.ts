/** Remember, recall and restore routes: parse, validate, call the memory service, serialize. */
import { jsonResponse } from "../http/respond.ts";
import { route } from "../http/router.ts";
import {
  arrayField,
  base64Field,
  integerField,
  namespaceField,
  objectValue,
  requiredText,
  vectorField,
} from "../http/validate.ts";
import { SvcError } from "../errors.ts";
import type { MemoryService } from "../services/memories.ts";
import type { HandlerContext } from "./context.ts";

export const MAX_TEXT_BYTES = 1024 * 1024;
export const MAX_QUERY_BYTES = 64 * 1024;
const JOB_ID = /^[0-9a-f-]{36}$/;

export function memoryRoutes(service: MemoryService, dimensions: () => number) {
  const signed = { signed: true };
  return [
    route<HandlerContext>("POST", "/api/remember", async ({ caller, json }) => {
      const body = json();
      const text = requiredText(body, "text", MAX_TEXT_BYTES);
      const namespace = namespaceField(body);
      const [job] = await service.remember(caller.owner, [{ text, namespace }]);
      return jsonResponse(202, { job_id: job.job_id, status: job.status });
    }, signed),

    route<HandlerContext>("POST", "/api/remember/bulk", async ({ caller, json }) => {
      const items = arrayField(json(), "items", 1, 20).map((value, i) => {
        const item = objectValue(value, `items[${i}]`);
        return {
          text: requiredText(item, "text", MAX_TEXT_BYTES),
          namespace: namespaceField(item),
        };
      });
      const jobs = await service.remember(caller.owner, items);
      return jsonResponse(202, {
        job_ids: jobs.map((job) => job.job_id),
        total: jobs.length,
        status: "pending",
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
      return jsonResponse(
        200,
        await service.recall(caller.owner, query, limit, namespace, {
          credentials: caller.credentials,
          signal: request.signal,
        }),
      );
    }, signed),

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
