/**
 * A delegate key's scope and expiry from command-line flags, shared by `svc key add`
 * (`--namespace`, `--read-only`, `--operations`, `--audit`, `--expires`) and `svc-mcp login`
 * (`--scope`, `--expires`), as their usage texts describe them. Every problem is a `UsageError`
 * naming the flag.
 */
import type { DelegateKey } from "@svc/local-ledger";

/** A ledger key as the commands show it (Sui keeps no date for a key). */
export type ListedKey = Omit<DelegateKey, "created_at"> & { created_at?: string };
import {
  describeKeyLimits,
  keyLimitsJson,
  OPERATIONS,
  parseIsoTime,
  parseScope,
} from "@svc/relayer/rules";
import { type KeyScope, type Operation, SvcError } from "@svc/relayer/kit";
import { SECONDS, UsageError } from "./client_flags.ts";
import type { Flags } from "./svc_command_line.ts";

/** A comma-separated list, without blanks around its items; empty items are refused. */
function list(value: string, flag: string): string[] {
  const items = value.split(",").map((item) => item.trim());
  if (items.some((item) => item === "")) {
    throw new UsageError(`${flag} must be a comma-separated list without empty items`);
  }
  return items;
}

/** Checks a scope with the relayer's own rules, as a usage error naming `flag`. */
function checked(scope: KeyScope, flag: string): KeyScope {
  try {
    return parseScope(scope);
  } catch (error) {
    if (!(error instanceof SvcError)) throw error;
    throw new UsageError(`${flag}: ${error.message.replace(/^scope\./, "")}`);
  }
}

function operationList(value: string, flag: string, or = ""): Operation[] {
  const names = list(value, flag);
  const unknown = names.filter((name) => !(OPERATIONS as readonly string[]).includes(name));
  if (unknown.length) {
    throw new UsageError(
      `${flag}: unknown operation ${unknown.join(", ")} (use ${OPERATIONS.join(", ")}${or})`,
    );
  }
  return names as Operation[];
}

/** The scope of `svc key add`'s flags, each may be absent: `{}` (full access) when none is. */
export function scopeFromFlags(
  flags: Pick<Flags, "namespace" | "operations" | "read-only" | "audit">,
): KeyScope {
  const scope: KeyScope = {};
  if (flags.namespace !== undefined) scope.namespaces = list(flags.namespace, "--namespace");
  if (flags["read-only"] && flags.operations !== undefined) {
    throw new UsageError("give --read-only or --operations, not both");
  }
  if (flags["read-only"]) scope.operations = ["read"];
  if (flags.operations !== undefined && flags.operations !== "all") {
    scope.operations = operationList(flags.operations, "--operations", ", or all alone");
  }
  if (flags.audit) {
    if (!scope.operations) {
      throw new UsageError(
        "--audit adds the audit operation to --read-only or --operations; without them a key " +
          "may do everything, audit included",
      );
    }
    scope.operations.push("audit");
  }
  return checked(scope, scope.operations ? "--operations" : "--namespace");
}

/**
 * svc-mcp's `--scope OPERATIONS[:NAMESPACES]`: `read`, `read,write:work,notes`, `all:work`
 * (every operation, namespace work only).
 */
export function parseScopeFlag(value: string, name = "--scope"): KeyScope {
  const at = value.indexOf(":");
  const ops = at < 0 ? value : value.slice(0, at);
  const namespaces = at < 0 ? undefined : value.slice(at + 1);
  const scope: KeyScope = {};
  if (ops !== "all" && ops !== "*") {
    scope.operations = operationList(ops, name, ", or all alone");
  }
  if (namespaces !== undefined) scope.namespaces = list(namespaces, `${name}'s namespaces`);
  return checked(scope, name);
}

/** The longest duration `--expires` takes: 100 years. */
const MAX_DURATION_MS = 36_500 * 86_400_000;

/**
 * `30d`, `12h`, `2w`, `90m`, `45s` → milliseconds; `undefined` when `value` is no duration, or
 * one longer than 100 years.
 */
export function durationMs(value: string): number | undefined {
  const match = /^([0-9]{1,9})([smhdw])$/.exec(value);
  const ms = match ? Number(match[1]) * SECONDS[match[2]] * 1000 : 0;
  return ms > 0 && ms <= MAX_DURATION_MS ? ms : undefined;
}

/**
 * `--expires`: a duration from `now` (`30d`) or an ISO 8601 time; Unix milliseconds. A time in
 * the past is refused: the key would never work.
 */
export function expiryFromFlag(value: string, flag: string, now = Date.now()): number {
  const duration = durationMs(value);
  const at = duration !== undefined ? now + duration : parseIsoTime(value);
  if (Number.isNaN(at)) {
    throw new UsageError(
      `${flag} must be a duration such as 30d, 12h or 2w (at most 100 years), or a time such as ` +
        "2026-07-01T00:00:00Z",
    );
  }
  if (at <= now) throw new UsageError(`${flag} is in the past`);
  return at;
}

/**
 * A ledger key as `svc key list --json` prints it: every limit named, `null` for none (and for
 * the date a key on Sui was added, which Sui does not keep).
 */
export function delegateKeyJson(key: ListedKey): Record<string, unknown> {
  const { public_key, address, label, created_at } = key;
  return {
    public_key,
    address,
    label,
    created_at: created_at ?? null,
    ...keyLimitsJson(...limitsOf(key)),
  };
}

/** A ledger key as one line of `svc key list` (with the date it was added, where kept). */
export function delegateKeyLine(key: ListedKey): string {
  const limits = describeKeyLimits(...limitsOf(key));
  const added = key.created_at ? `  ${key.created_at}` : "";
  return `${key.public_key}  ${key.address}${added}  ${key.label}  (${limits})`;
}

/** A ledger key's scope, and when it expires (Unix milliseconds), if it does. */
function limitsOf({ namespaces, operations, expires_at }: ListedKey): [KeyScope, number?] {
  return [{ namespaces, operations }, expires_at ? Date.parse(expires_at) : undefined];
}
