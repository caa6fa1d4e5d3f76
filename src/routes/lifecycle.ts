/** The routes of memories once remembered: list, get, update and erase. */
import { jsonResponse } from "../http/respond.ts";
import type { Route } from "../http/router.ts";
import { integer, object, string, text } from "../http/fields.ts";
import {
  memoryId,
  namespace,
  namespaceErase,
  tags,
  time,
  updatedExpiry,
} from "../http/memory_fields.ts";
import { allowsNamespace } from "../auth/scope.ts";
import { SvcError } from "../errors.ts";
import type { LifecycleService } from "../services/lifecycle.ts";
import { allowById, anyKeySigned, type HandlerContext, provenanceOf, route } from "./context.ts";
import { EXAMPLE_ID, EXAMPLE_MEMORY, EXAMPLE_OWNER, EXAMPLE_RECEIPT } from "./examples.ts";
import { MAX_TEXT_BYTES } from "../text_limits.ts";

const unknown = () => new SvcError("not_found", "No such memory");

const BY_ID = object({ id: memoryId({ required: true }) });
const LIST = object({
  namespace: namespace(),
  limit: integer({ fallback: 50, min: 1, max: 500 }),
  cursor: string({ description: "`next_cursor` of the previous page." }),
  tags: tags({ param: "tag", description: "Only memories carrying every tag given (repeat)." }),
  since: time({ description: "Only versions stored at or after this time (ISO 8601)." }),
  until: time({ description: "Only versions stored before this time (ISO 8601)." }),
});
const ERASE_NAMESPACE = namespaceErase(
  "confirm must repeat the namespace: erasing a namespace cannot be undone",
);
const UPDATE = object({
  text: text({ max: MAX_TEXT_BYTES, description: "The corrected text. Not blank; at most 1 MiB." }),
  tags: tags({
    written: true,
    description: "The new version's tags (absent: the old ones are kept).",
  }),
  expiresAt: updatedExpiry(),
});

/** An erase on a Seal relayer with no sponsor to pay for its Sui transaction. */
const NO_SPONSOR = {
  description: "Seal without `SVC_SPONSOR_PRIVATE_KEY`: no sponsor pays the erase transaction.",
};

const STILL_STORED = {
  description: "The memory's remember job is still pending or running: try again once it is done.",
};

/** The routes of remembered memories: namespaces, list, get, erase (one, a namespace), update. */
export function lifecycleRoutes(lifecycle: LifecycleService): Route<HandlerContext>[] {
  return [
    route("GET", "/api/namespaces", async ({ caller, request }) => {
      const listed = await lifecycle.namespaces(caller.owner, { signal: request.signal });
      const namespaces = listed.filter(({ namespace }) => allowsNamespace(caller.scope, namespace));
      return jsonResponse(200, { namespaces });
    }, {
      ...anyKeySigned,
      operations: ["read"],
      claim: "overlap",
      doc: {
        tag: "memories",
        summary: "The namespaces holding memories, with how many each holds",
        description: "Sorted by name; a key limited to some namespaces sees only those.",
        responses: {
          200: {
            description: "The namespaces and their memory counts.",
            example: { namespaces: [{ namespace: "default", count: 12 }] },
          },
        },
      },
    }),
    route("GET", "/api/memories", async ({ caller, input: { query }, request, touch }) => {
      const { namespace, limit, cursor, tags, since, until } = query;
      touch(namespace);
      const page = await lifecycle.list(caller.owner, namespace, {
        limit,
        cursor,
        filter: { tags, since, until },
      }, { credentials: caller.credentials, signal: request.signal });
      touch(namespace, page.memories.map((memory) => memory.id));
      return jsonResponse(200, page);
    }, {
      ...anyKeySigned,
      operations: ["read"],
      access: "list",
      input: { query: LIST },
      doc: {
        tag: "memories",
        summary: "List a namespace's memories, newest first, a page at a time",
        example: { query: { namespace: "default", limit: 20, tag: ["diet"] } },
        responses: {
          200: {
            description: "A page; `next_cursor` is `null` on the last one.",
            example: { memories: [EXAMPLE_MEMORY], next_cursor: null },
          },
        },
      },
    }),
    route("GET", "/api/memories/:id", async ({ caller, input, request, touch }) => {
      const { id } = input.params;
      const memory = await lifecycle.get(caller.owner, id, {
        credentials: caller.credentials,
        signal: request.signal,
        allow: allowById(caller, touch, id, unknown),
      });
      if (!memory) throw unknown();
      return jsonResponse(200, memory);
    }, {
      ...anyKeySigned,
      operations: ["read"],
      access: "get",
      input: { params: BY_ID },
      doc: {
        tag: "memories",
        summary: "One memory",
        example: { params: { id: EXAMPLE_ID } },
        responses: {
          200: { description: "The memory.", example: EXAMPLE_MEMORY },
          404: { description: "Unknown, or another owner's." },
        },
      },
    }),
    route("DELETE", "/api/memories/:id", async ({ caller, input: { params }, touch }) => {
      const { id } = params;
      // Not abortable: once begun, an erase completes even if its client leaves.
      const receipt = await lifecycle.erase(caller.owner, id, {
        credentials: caller.credentials,
        allow: allowById(caller, touch, id, unknown),
      });
      if (!receipt) {
        // An erase sent again whose record names no namespace (an earlier version's): the memory
        // is gone, and says so to a key that may use every namespace.
        if (!caller.scope.namespaces && await lifecycle.erasedAlready(caller.owner, id)) {
          throw new SvcError(
            "not_found",
            "This memory was erased already; its receipt was the answer to that erase",
            { details: { reason: "erased" } },
          );
        }
        throw unknown();
      }
      return jsonResponse(200, receipt);
    }, {
      ...anyKeySigned,
      operations: ["erase"],
      access: "erase",
      input: { params: BY_ID },
      doc: {
        tag: "memories",
        summary: "Erase a memory: its key is destroyed, then its index row and blob",
        example: { params: { id: EXAMPLE_ID } },
        responses: {
          200: {
            description: "The erase receipt, signed by the relayer (`/health`'s `receiptKey`).",
            example: EXAMPLE_RECEIPT,
          },
          404: {
            description: 'Unknown, or another owner\'s; `reason: "erased"` when it was erased ' +
              "already (to a key that may use every namespace).",
          },
          409: STILL_STORED,
          501: NO_SPONSOR,
        },
      },
    }),
    route("DELETE", "/api/memories", async ({ caller, input: { query }, touch }) => {
      const { namespace } = query;
      touch(namespace);
      const erased = await lifecycle.eraseNamespace(caller.owner, namespace, {
        credentials: caller.credentials,
      });
      touch(namespace, erased.receipts.map((receipt) => receipt.memory_id));
      return jsonResponse(200, erased);
    }, {
      ...anyKeySigned,
      operations: ["erase"],
      access: "erase",
      input: { query: ERASE_NAMESPACE },
      doc: {
        tag: "memories",
        summary: "Erase every memory of a namespace, its operator-blind log included",
        example: { query: { namespace: "scratch", confirm: "scratch" } },
        responses: {
          200: {
            description: "A receipt per memory erased.",
            example: {
              namespace: "scratch",
              owner: EXAMPLE_OWNER,
              erased: 1,
              receipts: [EXAMPLE_RECEIPT],
            },
          },
          501: NO_SPONSOR,
        },
      },
    }),
    route("PUT", "/api/memories/:id", async ({ caller, input: { params, body }, touch }) => {
      const { id } = params;
      const job = await lifecycle.update(caller.owner, id, body, {
        allow: allowById(caller, touch, id, unknown),
        rememberedBy: provenanceOf(caller),
      });
      if (!job) throw unknown();
      touch(job.namespace, [job.job_id]);
      return jsonResponse(202, {
        job_id: job.job_id,
        status: job.status,
        supersedes: job.supersedes,
      });
    }, {
      ...anyKeySigned, // the owner key too: the dashboard's Edit
      // A correction erases the version it replaces.
      operations: ["write", "erase"],
      access: "update",
      input: { params: BY_ID, body: UPDATE },
      doc: {
        tag: "memories",
        summary: "Store a corrected version of a memory",
        description: "The old version is erased once the new one is recallable; the new one " +
          "keeps the old `created_at`, and its tags and expiry unless new ones are given. A " +
          "scoped key needs `erase` as well as `write`.",
        example: { params: { id: EXAMPLE_ID }, body: { text: "I am vegan", tags: ["diet"] } },
        responses: {
          202: {
            description: "Accepted: poll the job.",
            example: { job_id: EXAMPLE_ID, status: "pending", supersedes: EXAMPLE_ID },
          },
          404: { description: "Unknown, or another owner's." },
          409: STILL_STORED,
        },
      },
    }),
  ];
}
