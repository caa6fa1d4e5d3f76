/**
 * `svc log`: the owner's access log as a table, newest first: when, which operation, which key
 * (its label and address), the namespace, how many memories (`--json` lists their ids), from
 * which client. Signed by the account owner's key saved in the data directory (`svc account
 * create`), else by `SVC_DELEGATE_KEY`, which then needs the `audit` scope.
 */
import { isAddress } from "@svc/util/keys";
import {
  type AccessEntry,
  type AccessLogOptions,
  type AccessOperation,
  SvcClient,
} from "@svc/relayer/client";
import { ACCESS_OPERATIONS } from "@svc/relayer/rules";
import {
  accountIdOf,
  delegateKeyOf,
  memoryIdArg,
  pastTime,
  positiveInt,
  relayerUrl,
  UsageError,
} from "./client_flags.ts";
import { type Output } from "./svc_memories.ts";
import type { Flags, Invocation } from "./svc_command_line.ts";
import { savedOwnerKey } from "./svc_ledger_access.ts";
import { visibleName } from "./visible_text.ts";

export const LOG_USAGE = `Access log (signed by the owner key in SVC_DATA_DIR for --account, else by
SVC_DELEGATE_KEY with the audit scope):
  log [--key ADDR] [--op OP] [--namespace NS] [--memory ID] [--since 7d|TIME]
      [--until TIME] [--limit N] [--cursor C] --account ID
                                         newest first; OP is one of remember, recall, get,
                                         list, update, erase, restore, ask, analyze, export,
                                         import; --memory: who read or changed that memory`;

/** The query of `svc log`, checked before anything is sent. */
export function logQuery(values: Flags, now = Date.now()): AccessLogOptions {
  if (values.key !== undefined && !isAddress(values.key)) {
    // 64 hex characters: a public key (as `key list` shows it first), or the signing key
    // --key is in the other commands.
    const hex = /^[0-9a-f]{64}$/.test(values.key)
      ? " as `svc key list` shows it, not a public or private key; in log, --key picks whose " +
        "entries to show, and the key that reads the log is SVC_DELEGATE_KEY (or the owner " +
        "key, with --account)"
      : "";
    throw new UsageError(`--key must be a key's address (0x and 64 hex characters)${hex}`);
  }
  if (values.op !== undefined && !ACCESS_OPERATIONS.includes(values.op as AccessOperation)) {
    throw new UsageError(`--op must be one of ${ACCESS_OPERATIONS.join(", ")}`);
  }
  return {
    key: values.key,
    op: values.op as AccessOperation | undefined,
    namespace: values.namespace,
    memory: values.memory === undefined ? undefined : memoryIdArg(values.memory, "--memory"),
    since: pastTime(values.since, "--since", now),
    until: pastTime(values.until, "--until", now),
    limit: positiveInt(values.limit, "--limit", 500),
    cursor: values.cursor,
  };
}

/** `0x1234…cdef`. */
const shortAddress = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`;

/** The entries as a table, one line each, columns padded to their widest cell. */
function logTable(entries: AccessEntry[]): string {
  const header = ["TIME", "OP", "KEY", "NAMESPACE", "MEMORIES", "CLIENT"];
  const rows = entries.map((e) =>
    [
      e.at.replace("T", " ").replace(/\.\d{3}Z$/, "Z"),
      e.op,
      e.key.label ? `${e.key.label} (${shortAddress(e.key.address)})` : shortAddress(e.key.address),
      e.namespace,
      String(e.memory_ids.length),
      e.client,
    ].map(visibleName) // one line each, whatever a label or namespace holds, and as it is
  );
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((row) => row[i].length)));
  return [header, ...rows]
    .map((row) => row.map((cell, i) => cell.padEnd(widths[i])).join("  ").trimEnd())
    .join("\n");
}

/** Runs `svc log`, signed with the account's owner key or a delegate key with `audit`. */
export async function runLogCommand({ flags: values, io }: Invocation): Promise<Output> {
  const env = (name: string) => io.env[name];
  const dataDir = env("SVC_DATA_DIR") || "./data";
  const account = accountIdOf(values.account, env);
  const delegateKey = env("SVC_DELEGATE_KEY");
  // The account's owner key when the data directory has it: for --account, or for
  // SVC_ACCOUNT_ID without a SVC_DELEGATE_KEY, which is otherwise the key the log is read with
  // (it needs `audit`; --key is the log's filter, not a key).
  const byOwner = values.account !== undefined || !delegateKey ? account : undefined;
  const ownerKey = byOwner && await savedOwnerKey({ dataDir, env: io.env }, byOwner);
  if (!ownerKey && !delegateKey && account) {
    throw new UsageError(
      `missing SVC_DELEGATE_KEY: the owner key of account ${account} is not in ` +
        `${dataDir}/owner_keys nor SVC_OWNER_KEY, so the log is read with a delegate key that ` +
        "has the audit scope (or with SVC_DATA_DIR where `svc account create` made the account)",
    );
  }
  const privateKey = ownerKey || delegateKeyOf(undefined, env, "SVC_DELEGATE_KEY");
  const query = logQuery(values);
  const client = await SvcClient.create({
    baseUrl: relayerUrl(values.relayer, env),
    privateKey,
    accountId: account,
    ...(io.fetch && { fetch: io.fetch }),
  });
  const page = await client.accessLog(query);
  const lines = page.entries.length ? [logTable(page.entries)] : ["No access log entries"];
  if (page.next_cursor) lines.push(`next page: --cursor ${page.next_cursor}`);
  return { json: { ...page }, text: lines.join("\n") };
}
