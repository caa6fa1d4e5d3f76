/**
 * The flags of `svc`'s client commands as their requests take them, checked before anything is
 * sent: a value that cannot be sent is a {@link UsageError} (exit 2, with the `--help` pointer)
 * rather than the relayer's refusal.
 */
import { ACCOUNT_ID, isKeyHex } from "@svc/util/keys";
import { isHttpUrl } from "@svc/relayer/http";
import {
  MAX_TTL_SECONDS,
  MEMORY_ID,
  parseIsoTime,
  tagsValue,
  threadValue,
} from "@svc/relayer/rules";
import { SvcError } from "@svc/relayer/kit";
import type { SvcClientOptions } from "@svc/relayer/client";
import { CredentialsFile } from "./svc_mcp/credentials.ts";

/**
 * How long a command waits for the relayer's answer to begin: past the longest a relayer works on
 * one request by default (`analyze`: a model's call and an embedding, each up to
 * `SVC_LLM_TIMEOUT_MS`, 60 s).
 */
export const ANSWER_TIMEOUT_MS = 180_000;

/** A command line that cannot be run as given: exit 2 with the usage. */
export class UsageError extends Error {}

/**
 * The relayer a client command calls: `--relayer`, else `SVC_SERVER_URL` (unless empty), else
 * this machine's relayer on the port it takes itself (`SVC_PORT`, 8000 by default).
 */
export function relayerUrl(
  flag: string | undefined,
  env: (name: string) => string | undefined,
): string {
  const url = flag ??
    (env("SVC_SERVER_URL") || `http://127.0.0.1:${localPort("SVC_PORT", env("SVC_PORT"), 8000)}`);
  const name = flag === undefined ? "SVC_SERVER_URL" : "--relayer";
  if (!isHttpUrl(url)) {
    throw new UsageError(`${name} must be an http(s) URL, such as http://127.0.0.1:8000`);
  }
  const { username, password, origin, href } = new URL(url);
  // fetch would send them as Basic credentials, and the relayer's address is shown in messages.
  if (username || password) throw new UsageError(`${name} must not hold a user name or password`);
  // The routes are the relayer's own paths, and what a request signs (`?` alone counts too).
  if (href !== `${origin}/`) {
    throw new UsageError(
      `${name} must be the relayer's address alone, without a path, query or fragment ` +
        "(such as http://127.0.0.1:8000)",
    );
  }
  return url;
}

/**
 * The port of this machine's relayer (`SVC_PORT`) or dashboard (`SVC_DASHBOARD_PORT`) for a
 * client to call: `fallback` when unset; a usage error saying what is wrong otherwise (also for
 * 0, with which the relayer takes any free port, so it names none).
 */
export function localPort(
  name: "SVC_PORT" | "SVC_DASHBOARD_PORT",
  value: string | undefined,
  fallback: number,
): number {
  if (!value) return fallback;
  const port = Number(value);
  if (/^[0-9]{1,5}$/.test(value) && port >= 1 && port <= 65535) return port;
  throw new UsageError(
    `${name} must be a port from 1 to 65535 (got ${JSON.stringify(value.slice(0, 20))})`,
  );
}

export function need(value: string | undefined, what: string): string {
  if (!value) throw new UsageError(`missing ${what}`);
  return value;
}

/** `--limit` and the like: a whole number from 1 to `max` (the relayer's own bound). */
export function positiveInt(
  value: string | undefined,
  flag: string,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^[0-9]+$/.test(value) || number < 1 || number > max) {
    throw new UsageError(`${flag} must be a whole number from 1 to ${max}`);
  }
  return number;
}

/** A memory's id on the command line: a lowercase UUID, as `svc list` prints them. */
export function memoryIdArg(value: string | undefined, what: string): string {
  if (!MEMORY_ID.test(need(value, what))) {
    throw new UsageError(`${what} must be a lowercase UUID, as \`svc list\` prints ids`);
  }
  return value!;
}

/** `--account` (or what `what` names) on the command line, checked as the relayer checks it. */
export function accountIdArg(value: string, what: string): string {
  if (!ACCOUNT_ID.test(value)) {
    throw new UsageError(
      `${what} must be an account id: 0x and up to 64 hex digits, as \`svc account create\` ` +
        "prints it",
    );
  }
  return value.toLowerCase(); // as the ledger and the relayer keep it
}

/**
 * The delegate key a client command signs with: `--key`, else `SVC_DELEGATE_KEY`; checked
 * before anything is sent, and never shown.
 */
export function delegateKeyOf(
  flag: string | undefined,
  env: (name: string) => string | undefined,
  missing = "SVC_DELEGATE_KEY or --key",
): string {
  if (flag === "") throw new UsageError("--key must not be empty (without it, SVC_DELEGATE_KEY)");
  const key = need(flag ?? env("SVC_DELEGATE_KEY"), missing);
  if (isKeyHex(key)) return key;
  throw new UsageError(
    `${flag === undefined ? "SVC_DELEGATE_KEY" : "--key"} must be a private key: 64 lowercase ` +
      "hex characters, as `svc key add` prints it (without spaces or quotes)",
  );
}

/** The account a client command names: `--account`, else `SVC_ACCOUNT_ID` (unless empty). */
export function accountIdOf(
  flag: string | undefined,
  env: (name: string) => string | undefined,
): string | undefined {
  if (flag !== undefined) return accountIdArg(flag, "--account");
  const value = env("SVC_ACCOUNT_ID");
  return value ? accountIdArg(value, "SVC_ACCOUNT_ID") : undefined;
}

/** The seconds of each unit a duration on the command line takes (none: seconds). */
export const SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800, "": 1 };

/** `--ttl`: `90`, `45s`, `30m`, `12h`, `30d`, `2w` → seconds. */
export function ttlSeconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^([0-9]{1,9})([smhdw]?)$/.exec(value);
  if (!match || Number(match[1]) === 0) {
    throw new UsageError("--ttl must be a positive number of s, m, h, d or w, such as 30d");
  }
  const seconds = Number(match[1]) * SECONDS[match[2]];
  if (seconds > MAX_TTL_SECONDS) throw new UsageError("--ttl must be at most ten years (3650d)");
  return seconds;
}

/** A value checked as the relayer checks it, its refusal a usage error (the flag named). */
export function asRelayerChecks<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof SvcError) throw new UsageError(error.message);
    throw error;
  }
}

/** `--tag`, repeated: at most 16, each 1 to 64 characters without control characters. */
export const tagsArg = (tags: string[] | undefined) =>
  asRelayerChecks(() => tagsValue(tags?.length ? tags : undefined, "--tag"));

/** `--thread`: 1 to 128 characters without control characters. */
export const threadArg = (thread: string | undefined) =>
  asRelayerChecks(() => threadValue(thread, "--thread"));

/** `--min-score`: a number from 0 to 1. */
export function minScoreArg(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  // Decimal only: Number() would also read 0x1 and 1e0.
  if (!/^(0|1)?(\.[0-9]+)?$/.test(value) || value === "" || !(number >= 0 && number <= 1)) {
    throw new UsageError("--min-score must be a number from 0 to 1");
  }
  return number;
}

/** `--since`/`--until`: a duration back from `now` (`90m`, `7d`, `2w`) or an ISO 8601 time. */
export function pastTime(value: string | undefined, flag: string, now: number): string | undefined {
  if (value === undefined) return undefined;
  const ago = /^([0-9]{1,9})([smhdw])$/.exec(value);
  const ms = ago ? now - Number(ago[1]) * SECONDS[ago[2]] * 1000 : parseIsoTime(value);
  if (Number.isNaN(new Date(ms).getTime())) {
    throw new UsageError(
      `${flag} must be a duration such as 7d or 12h, or a time such as ` +
        "2026-07-01T00:00:00Z",
    );
  }
  return new Date(ms).toISOString();
}

/** `--expires-at`: an ISO 8601 time, as ISO 8601 UTC. */
export function expiryTime(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  const ms = parseIsoTime(value);
  if (Number.isNaN(ms)) throw new UsageError(`${flag} must be a time such as 2026-07-01T00:00:00Z`);
  return new Date(ms).toISOString();
}

/**
 * The SDK's options of a client command: the relayer of `--relayer`, the key of `--key` and the
 * account of `--account`, else the environment's, else (no key given either way) those of the
 * credentials `svc-mcp login` saved in `~/.svc/credentials.json`; `fetch` when given (a test's).
 */
export async function clientOptions(
  values: { relayer?: string; key?: string; account?: string },
  env: (name: string) => string | undefined,
  fetch?: typeof globalThis.fetch,
): Promise<SvcClientOptions> {
  const accountId = accountIdOf(values.account, env);
  const given = values.relayer ?? (env("SVC_SERVER_URL") || undefined);
  const saved = values.key === undefined && !env("SVC_DELEGATE_KEY")
    ? await savedCredentials(env)
    : undefined;
  // Saved credentials are used only for the relayer and account they were made for.
  const usable = saved && (given === undefined || sameOrigin(given, saved.relayerUrl)) &&
      (accountId === undefined || accountId === saved.accountId.toLowerCase())
    ? saved
    : undefined;
  return {
    baseUrl: relayerUrl(values.relayer ?? (given ? undefined : usable?.relayerUrl), env),
    privateKey: usable?.delegatePrivateKey ??
      delegateKeyOf(values.key, env, "SVC_DELEGATE_KEY or --key (or sign in: svc-mcp login)"),
    accountId: accountId ?? usable?.accountId,
    answerTimeoutMs: ANSWER_TIMEOUT_MS,
    ...(fetch && { fetch }),
  };
}

const sameOrigin = (a: string, b: string) =>
  URL.canParse(a) && URL.canParse(b) && new URL(a).origin === new URL(b).origin;

/** The credentials `svc-mcp login` saved under `HOME`, when there are any to use. */
async function savedCredentials(env: (name: string) => string | undefined) {
  const home = env("HOME");
  if (!home) return undefined;
  const loaded = await CredentialsFile.inHome(home).load();
  if (loaded.kind === "corrupt") {
    throw new UsageError(`cannot use the saved credentials: ${loaded.reason}`);
  }
  return loaded.kind === "ok" ? loaded.credentials : undefined;
}
