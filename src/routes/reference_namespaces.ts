/**
 * The two routes the reference system's Python SDK (`memwal` 0.2.1) calls for
 * `list_namespaces()`: `POST /api/stats`, from which it learns the account's owner, then
 * `GET /v1/owners/{owner}/namespaces`, a page of the owner's namespaces. Both are signed and read
 * the same catalog as `GET /api/namespaces` (`LifecycleService.namespaceActivity`).
 */
import { allowsNamespace } from "../auth/scope.ts";
import { SvcError } from "../errors.ts";
import { validNamespace } from "../validate.ts";
import { integer, object, string } from "../http/fields.ts";
import { namespace } from "../http/memory_fields.ts";
import { jsonResponse } from "../http/respond.ts";
import type { Route } from "../http/router.ts";
import { cursorOf, cursorValue } from "../services/cursor.ts";
import type { NamespaceActivity } from "../services/memory_catalog.ts";
import type { LifecycleService } from "../services/lifecycle.ts";
import { anyKeySigned, type HandlerContext, route } from "./context.ts";
import { EXAMPLE_OWNER } from "./examples.ts";

/** The version of the page's wire format, as the reference relayer numbers its own. */
const SNAPSHOT_VERSION = 2;

const STATS = object({ namespace: namespace({ description: "The namespace to count." }) });
const OWNER = object({
  owner: string({
    description: "The account's owner (`owner` of `POST /api/stats`).",
    required: true,
  }),
});
const PAGE = object({
  limit: integer({ fallback: 100, min: 1, max: 500, description: "The page's size." }),
  updated_after: string({ description: "`next_cursor` of a previous page." }),
});

/** One namespace on a page, as the reference SDK reads it. */
export interface NamespaceSummary {
  /** Its id: svc names a namespace by its name alone. */
  id: string;
  name: string;
  memory_count: number;
  /** Bytes stored: svc does not keep blob sizes in its catalog, so always 0. */
  storage_used: number;
  /** When its newest memory was stored (ISO 8601). */
  updated_at: string;
}

/** A page of namespaces: oldest change first, then by name; `next_cursor` on every page. */
export interface NamespacePage {
  namespaces: NamespaceSummary[];
  next_cursor: string | null;
  has_more: boolean;
  snapshot_version: number;
}

/** Where a walk stands: the last namespace a page showed. */
interface Mark {
  updated_at: string;
  namespace: string;
}

/** The mark a cursor of {@link cursorOf} names; anything else is a 400. */
function markOf(cursor: string): Mark {
  try {
    const mark = cursorValue(cursor) as Mark;
    // A time as this relayer writes it, and a name a namespace can have: else `new Date` or
    // `validNamespace` throws.
    if (new Date(mark.updated_at).toISOString() === mark.updated_at) {
      validNamespace(mark.namespace);
      return mark;
    }
  } catch {
    // refused below
  }
  throw new SvcError("bad_request", "updated_after is not a cursor this relayer gave out");
}

/** Whether `summary` comes after `mark` in the walk's order (change time, then name). */
const isAfter = (summary: NamespaceSummary, mark: Mark) =>
  summary.updated_at > mark.updated_at ||
  (summary.updated_at === mark.updated_at && summary.name > mark.namespace);

/**
 * A page of `activity` after the cursor `after`, at most `limit` long: walked by change time
 * (oldest first), so a cursor kept after the last page finds the namespaces changed since.
 */
function namespacePage(
  activity: NamespaceActivity[],
  limit: number,
  after?: string,
): NamespacePage {
  const mark = after === undefined ? undefined : markOf(after);
  const remaining = activity
    .map(({ namespace, count, updatedAt }) => ({
      id: namespace,
      name: namespace,
      memory_count: count,
      storage_used: 0,
      updated_at: new Date(updatedAt).toISOString(),
    }))
    .sort((a, b) =>
      a.updated_at < b.updated_at ? -1 : a.updated_at > b.updated_at ? 1 : a.name < b.name ? -1 : 1
    )
    .filter((summary) => !mark || isAfter(summary, mark));
  const page = remaining.slice(0, limit);
  const last = page.at(-1);
  const next = last ? { updated_at: last.updated_at, namespace: last.name } : mark;
  return {
    namespaces: page,
    next_cursor: next ? cursorOf(next) : null,
    has_more: remaining.length > page.length,
    snapshot_version: SNAPSHOT_VERSION,
  };
}

/** `POST /api/stats` and `GET /v1/owners/:owner/namespaces`. */
export function referenceNamespaceRoutes(lifecycle: LifecycleService): Route<HandlerContext>[] {
  return [
    route("POST", "/api/stats", async ({ caller, input: { body }, request, touch }) => {
      touch(body.namespace);
      const counts = await lifecycle.namespaces(caller.owner, { signal: request.signal });
      const count = counts.find((entry) => entry.namespace === body.namespace)?.count ?? 0;
      return jsonResponse(200, {
        owner: caller.owner,
        account_id: caller.accountId,
        namespace: body.namespace,
        memory_count: count,
      });
    }, {
      ...anyKeySigned,
      operations: ["read"],
      claim: "overlap",
      input: { body: STATS },
      doc: {
        tag: "memories",
        summary: "The caller's owner, and a namespace's memory count (the reference SDKs' call)",
        example: { body: { namespace: "default" } },
        responses: {
          200: {
            description: "The owner and account the key resolves to, and the namespace's count.",
            example: {
              owner: EXAMPLE_OWNER,
              account_id: "0x7d2e…",
              namespace: "default",
              memory_count: 12,
            },
          },
        },
      },
    }),
    route("GET", "/v1/owners/:owner/namespaces", async ({ caller, input, request }) => {
      if (input.params.owner?.toLowerCase() !== caller.owner.toLowerCase()) {
        throw new SvcError(
          "forbidden",
          "This key may list only its own account's namespaces: the path must name its owner " +
            `${caller.owner} (the owner POST /api/stats answers)`,
        );
      }
      const activity = await lifecycle.namespaceActivity(caller.owner, { signal: request.signal });
      const visible = activity.filter(({ namespace }) => allowsNamespace(caller.scope, namespace));
      const { limit, updated_after } = input.query;
      return jsonResponse(200, namespacePage(visible, limit, updated_after));
    }, {
      ...anyKeySigned,
      operations: ["read"],
      claim: "overlap",
      input: { params: OWNER, query: PAGE },
      doc: {
        tag: "memories",
        summary: "A page of the owner's namespaces (the reference SDKs' `list_namespaces`)",
        example: { params: { owner: EXAMPLE_OWNER }, query: { limit: 100 } },
        description: "Oldest change first; keep `next_cursor` after the last page to find the " +
          "namespaces changed since. A key limited to some namespaces sees only those. " +
          "`storage_used` is always 0: the catalog keeps no blob sizes.",
        responses: {
          200: {
            description: "A page; continue while `has_more`.",
            example: {
              namespaces: [{
                id: "default",
                name: "default",
                memory_count: 12,
                storage_used: 0,
                updated_at: "2026-01-01T00:00:00.000Z",
              }],
              next_cursor: "eyJ1cGRhdGVkX2F0Ijo…",
              has_more: false,
              snapshot_version: SNAPSHOT_VERSION,
            },
          },
        },
      },
    }),
  ];
}
