/** What every relayer route handler receives: the kernel's context plus the verified caller. */
import { allowsNamespace } from "../auth/scope.ts";
import type { VerifiedCaller } from "../auth/verify.ts";
import type { SvcError } from "../errors.ts";
import { type Route, type RouteContext, routesFor } from "../http/router.ts";
import type { Provenance } from "../pipeline/attributes.ts";

/** What a request touched, for the owner's access log: namespace → memory ids, in order. */
export type Accessed = Map<string, string[]>;

export interface HandlerContext extends RouteContext {
  /** The verified caller; set on signed routes only. */
  caller: VerifiedCaller;
  /**
   * Checks that the caller's key may use `namespace` (403 `forbidden` naming the scope) and
   * records it, with the memory ids given, as touched by this request. Call it before any work
   * on the namespace, and again with the ids once known.
   */
  touch(namespace: string, ids?: Iterable<string>): void;
  /** What `touch` recorded. */
  accessed: Accessed;
  /** Throws once the caller's key is no longer its account's, or the account inactive. */
  stillAuthorized(): Promise<void>;
}

/** Builds a relayer route; the handler's `input` has the types its declared shapes read into. */
export const route = routesFor<HandlerContext>();

/** The options of a route signed by one of the account's delegate keys or by the owner's own key. */
export const anyKeySigned = { signed: true, ownerKey: true };

/** The provenance of what `caller` stores: its key's address and label (`remembered_by`). */
export function provenanceOf(caller: VerifiedCaller): Provenance {
  return { address: caller.address, label: caller.label };
}

/**
 * Wraps the routes whose replay claim verification left to them (`RouteOptions.claim`) so that
 * each answers, or fails, only once its request's claim is durable.
 */
export function answeringOnceClaimed(routes: Route<HandlerContext>[]): Route<HandlerContext>[] {
  return routes.map((original) => {
    if (!original.claim) return original;
    return {
      ...original,
      async handle(context: HandlerContext) {
        try {
          return await original.handle(context);
        } finally {
          await context.caller.claim?.settle();
        }
      },
    };
  });
}

/**
 * The `allow` of a call on the memory `id`: one in a namespace the caller's key may not use is
 * answered as an unknown one, so an id never tells its namespace to a key limited to others.
 */
export function allowById(
  caller: HandlerContext["caller"],
  touch: HandlerContext["touch"],
  id: string,
  notFound: () => SvcError,
): (namespace: string) => void {
  return (namespace) => {
    if (!allowsNamespace(caller.scope, namespace)) throw notFound();
    touch(namespace, [id]);
  };
}
