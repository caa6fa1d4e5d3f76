/**
 * Tool errors for a key's missing scope: the relayer's 403 `{reason: "missing_scope", scope}`
 * as a sentence that names the scope and what the agent or its owner can do about it.
 */
import type { SvcError } from "../errors.ts";

/** What each operation scope lets a key do, for refusals. */
const SCOPE_ACTIONS: Record<string, string> = {
  read: "read or search memories",
  write: "save, correct or restore memories",
  erase: "erase memories",
  audit: "read the access log",
};

/** A refusal for a missing scope, naming it and what to do; `null` for any other error. */
export function scopeRefusal(error: SvcError, namespaces?: string[] | null): string | null {
  const { reason, scope, namespace } = error.details;
  if (error.code !== "forbidden" || reason !== "missing_scope") return null;
  if (scope === "namespace") {
    const allowed = namespaces?.length
      ? ` It may use only ${namespaces.map((n) => `"${n}"`).join(", ")}.`
      : "";
    return `Refused (missing scope: namespace "${namespace}"): this delegate key may not use ` +
      `namespace "${namespace}".${allowed} Pass a namespace it may use, or ask the account ` +
      "owner to approve a key for this one.";
  }
  const action = SCOPE_ACTIONS[String(scope)] ?? "do this";
  return `Refused (missing scope: ${scope}): this delegate key may not ${action}; it lacks ` +
    `the "${scope}" operation. Ask the account owner for a key with it (a new sign-in with ` +
    `\`svc-mcp login --login --scope\`, or \`svc key add --operations\`).`;
}
