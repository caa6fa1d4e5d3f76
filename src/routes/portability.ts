/**
 * Export and import: `GET /api/export` streams the caller's memories as JSON lines;
 * `POST /api/import` takes JSON lines of the same shape (up to 500 a request) and queues
 * them as memories, reporting each line it could not take by its number.
 */
import { allowsNamespace, requireNamespace } from "../auth/scope.ts";
import { SvcError } from "../errors.ts";
import { jsonProblem, parseJson } from "@svc/util/json";
import { saysUtf8 } from "../http/body.ts";
import { jsonResponse } from "../http/respond.ts";
import { object } from "../http/fields.ts";
import { namespaces } from "../http/memory_fields.ts";
import { EXAMPLE_ID } from "./examples.ts";
import {
  expiryFields,
  namespaceValue,
  objectValue,
  tagsValue,
  textValue,
  threadValue,
  timeValue,
} from "../validate.ts";
import type { ExportService } from "../services/export.ts";
import {
  type ImportFailure,
  importItems,
  type ImportSummary,
  MAX_IMPORT_LINES,
} from "../services/import.ts";
import type { MemoryService, RememberItem } from "../services/memories.ts";
import { anyKeySigned, provenanceOf, route } from "./context.ts";
import { MAX_TEXT_BYTES } from "../text_limits.ts";

/** The body limit of an import request: 500 lines of short memories, or a few long ones. */
const MAX_IMPORT_BYTES = 4 * 1024 * 1024;

/** The media types of JSON lines an import takes. */
const JSON_LINES = new Set(["application/x-ndjson", "application/jsonl"]);

/** One line of an import as a memory to remember (throws `bad_request` naming the problem). */
function importItem(value: unknown, now: number): RememberItem {
  const line = objectValue(value, "line");
  const createdAt = timeValue(line.created_at, "created_at");
  if (createdAt !== undefined && createdAt > now) {
    throw new SvcError("bad_request", "created_at must not be in the future");
  }
  return {
    text: textValue(line.text, "text", MAX_TEXT_BYTES),
    namespace: namespaceValue(line.namespace),
    attributes: {
      tags: tagsValue(line.tags),
      thread: threadValue(line.thread),
      expiresAt: expiryFields({ expires_at: line.expires_at }, now),
      // Kept as the memory's first-created time: list and get show it as `created_at`.
      firstCreatedAt: createdAt,
    },
  };
}

/**
 * The lines of an import body: each non-blank line a memory, or a failure naming its line
 * number (from 1, blank lines counted). More than `MAX_IMPORT_LINES` is refused whole.
 */
function importLines(
  body: Uint8Array,
  now: number,
): { items: RememberItem[]; failed: ImportFailure[] } {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    throw new SvcError("bad_request", "Cannot import: the body is not UTF-8");
  }
  const lines = text.split("\n").map((line, i) => ({ line: i + 1, text: line.trim() }))
    .filter((line) => line.text !== "");
  if (lines.length === 0) throw new SvcError("bad_request", "Cannot import: the body has no lines");
  if (lines.length > MAX_IMPORT_LINES) {
    throw new SvcError(
      "bad_request",
      `Cannot import ${lines.length} lines at once: send at most ${MAX_IMPORT_LINES} a request`,
    );
  }
  const items: RememberItem[] = [];
  const failed: ImportFailure[] = [];
  for (const { line, text } of lines) {
    let value: unknown;
    try {
      value = parseJson(text);
    } catch (error) {
      failed.push({ line, error: jsonProblem(error) });
      continue;
    }
    try {
      items.push(importItem(value, now));
    } catch (error) {
      if (!(error instanceof SvcError) || error.code !== "bad_request") throw error;
      failed.push({ line, error: error.message });
    }
  }
  return { items, failed };
}

/** The most namespaces one export names. */
const MAX_EXPORT_NAMESPACES = 100;

const EXPORT = object({
  namespace: namespaces({
    description: "The namespaces to export (repeat, up to 100); absent: every namespace the " +
      "key may use.",
    max: MAX_EXPORT_NAMESPACES,
  }),
});

const EXAMPLE_LINE = {
  text: "I am vegetarian",
  namespace: "default",
  tags: ["diet"],
  created_at: "2026-01-02T03:04:05.000Z",
};

export function portabilityRoutes(exporter: ExportService, service: MemoryService) {
  return [
    route("GET", "/api/export", async (context) => {
      const { caller, input: { query }, request, touch } = context;
      // Without a namespace: every namespace the key may use.
      const namespaces = query.namespace ??
        (await exporter.namespaces(caller.owner)).filter((namespace) =>
          allowsNamespace(caller.scope, namespace)
        );
      for (const namespace of namespaces) requireNamespace(caller, namespace);
      const plan = await exporter.plan(caller.owner, namespaces);
      // The access log names what was sent, in the namespaces it was sent from: it is written
      // once the stream ends or is cancelled.
      const body = await exporter.stream(caller.owner, plan, {
        credentials: caller.credentials,
        signal: request.signal,
        sent: touch,
        // A key removed while its export streams gets no more of it.
        stillAllowed: context.stillAuthorized,
      });
      return new Response(body, {
        headers: {
          "content-type": "application/x-ndjson; charset=utf-8",
          "cache-control": "no-store",
          // The memories gathered (lines may be fewer: some may go while the export streams).
          "x-svc-export-count": String(plan.reduce((n, { ids }) => n + ids.length, 0)),
        },
      });
    }, {
      ...anyKeySigned, // the owner may export with its own key
      operations: ["read"],
      access: "export",
      input: { query: EXPORT },
      doc: {
        tag: "memories",
        summary: "Stream the caller's memories as JSON lines, one memory object a line",
        example: { query: { namespace: ["default"] } },
        responses: {
          200: {
            description: "JSON lines; `x-svc-export-count` says how many memories were gathered.",
            contentType: "application/x-ndjson",
            example: JSON.stringify({ id: EXAMPLE_ID, ...EXAMPLE_LINE }) + "\n",
          },
        },
      },
    }),

    route("POST", "/api/import", async ({ caller, request, body, touch }) => {
      const header = request.headers.get("content-type") ?? "";
      const type = header.split(";")[0].trim().toLowerCase();
      if (!JSON_LINES.has(type) || !saysUtf8(header)) {
        throw new SvcError(
          "unsupported_media_type",
          "Cannot import: send JSON lines in UTF-8 as application/x-ndjson",
        );
      }
      const { items: lines, failed } = importLines(body, Date.now());
      // An imported memory is remembered by the key that imports it.
      const rememberedBy = provenanceOf(caller);
      const items = lines.map((item) => ({ ...item, rememberedBy }));
      for (const namespace of new Set(items.map((item) => item.namespace))) touch(namespace);
      const { jobs, duplicates } = await importItems(service, caller.owner, items);
      for (const job of jobs) touch(job.namespace, [job.job_id]);
      const summary: ImportSummary = {
        imported: jobs.length,
        duplicates,
        failed,
        job_ids: jobs.map((job) => job.job_id),
      };
      return jsonResponse(202, summary);
    }, {
      signed: true,
      operations: ["write"],
      access: "import",
      maxBodyBytes: MAX_IMPORT_BYTES,
      doc: {
        tag: "memories",
        summary: `Remember up to ${MAX_IMPORT_LINES} JSON lines; duplicates are skipped`,
        body: {
          description:
            "JSON lines `{text, namespace?, tags?, thread?, created_at?, expires_at?}` " +
            "(also as `application/jsonl`).",
          contentType: "application/x-ndjson",
          example: JSON.stringify(EXAMPLE_LINE) + "\n",
        },
        responses: {
          202: {
            description: "Queued; each line not taken is listed with its number (from 1).",
            example: { imported: 1, duplicates: 0, failed: [], job_ids: [EXAMPLE_ID] },
          },
        },
      },
    }),
  ];
}
