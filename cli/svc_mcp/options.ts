/**
 * Flags and environment of the stdio package (specification §4.3), resolved into one options
 * object. Flags beat environment variables; an explicit `--relayer` / `--web-url` beats a
 * preset; a relayer from neither falls back to the saved credentials, then to `--local`.
 */
import { parseArgs } from "node:util";
import { isHttpUrl } from "@svc/relayer/http";
import { argsMessage, repeatedFlag } from "../args.ts";
import { type KeyScope, shown, UNSHOWN_IN_LABELS } from "@svc/relayer/kit";
import { validNamespace } from "@svc/relayer/rules";
import { durationMs, expiryFromFlag, parseScopeFlag } from "../key_scope_flags.ts";
import { asRelayerChecks, localPort, UsageError } from "../client_flags.ts";

/** A relayer and its dashboard. */
export type Preset = { relayer: string; webUrl: string };

/**
 * Hosted addresses are placeholders (reserved `.example` names) until a hosted service
 * exists; `--local` is the embedded default of `deno task start`.
 */
export const PRESETS: Record<"prod" | "dev" | "staging" | "local", Preset> = {
  prod: { relayer: "https://relayer.svc.example", webUrl: "https://app.svc.example" },
  dev: { relayer: "https://relayer.dev.svc.example", webUrl: "https://app.dev.svc.example" },
  staging: {
    relayer: "https://relayer.staging.svc.example",
    webUrl: "https://app.staging.svc.example",
  },
  local: { relayer: "http://127.0.0.1:8000", webUrl: "http://localhost:5173" },
};

/**
 * `--local`: this machine's relayer and dashboard, on the ports `SVC_PORT` and
 * `SVC_DASHBOARD_PORT` give them (as `deno task start` and `svc` read them), else the defaults.
 */
export function localPreset(env: Record<string, string | undefined>): Preset {
  return {
    relayer: `http://127.0.0.1:${localPort("SVC_PORT", env.SVC_PORT, 8000)}`,
    webUrl: `http://localhost:${localPort("SVC_DASHBOARD_PORT", env.SVC_DASHBOARD_PORT, 5173)}`,
  };
}

export interface StdioOptions {
  command: "serve" | "login" | "status" | "logout" | "help";
  /**
   * Forces a new sign-in even when credentials exist (`--login`; the `login` command always
   * does).
   */
  forceLogin: boolean;
  /** The relayer chosen by flag, preset or environment; `undefined`: saved, else `--local`. */
  relayer?: string;
  webUrl: string;
  /** The key's label: `--label`, else `SVC_CLIENT_LABEL`, else `svc-mcp on <hostname>`. */
  label: string;
  /** Whether the label was given (by flag or variable) rather than the default. */
  labelGiven: boolean;
  /** The default namespace (`--namespace`/`--ns`, else `SVC_NAMESPACE`). */
  namespace?: string;
  /** Never open a browser at sign-in; only print the link (`--no-browser`). */
  noBrowser: boolean;
  /** The scope a sign-in asks for (`--scope`, else `SVC_KEY_SCOPE`); `{}`: full access. */
  scope: KeyScope;
  /**
   * How long a signed-in key should work (`--expires`, else `SVC_KEY_EXPIRES`): a duration
   * counted from the approval (`30d`) or an ISO 8601 time; absent: no expiry asked.
   */
  expires?: string;
  debug: boolean;
  /**
   * Serves the namespace as operator-blind (`--blind`): this machine embeds, ranks and decrypts
   * with the ONNX model of `SVC_ONNX_MODEL_DIR`, and the relayer only stores.
   */
  blind: boolean;
  /**
   * With `blind`: the file keeping the namespace's log on this machine (`--cache`), sealed with
   * the key, so that a start reads only the log's tail and a log that went back is noticed.
   */
  cacheFile?: string;
}

/** What a label shows wrongly or not at all (`UNSHOWN_IN_LABELS`), each place of it. */
const UNSHOWN = new RegExp(UNSHOWN_IN_LABELS.source, "gu");

/**
 * The label of a key signed in from an MCP host: the default one names the host as it names
 * itself (`Claude Desktop via svc-mcp on laptop`), so that each host's key can be told apart;
 * a label given, or a host without a usable name, leaves it as it is. At most 64 bytes.
 */
export function signInLabel(options: StdioOptions, host: string | undefined): string {
  const name = host?.replace(UNSHOWN, "").trim();
  if (options.labelGiven || !name) return options.label;
  const suffix = ` via ${options.label}`;
  let prefix = "";
  for (const char of name) {
    if (new TextEncoder().encode(prefix + char + suffix).length > 64) break;
    prefix += char;
  }
  return prefix.trim() ? `${prefix.trim()}${suffix}` : options.label;
}

/** The commands besides serving. */
const COMMANDS = ["login", "status"] as const;

export const USAGE = `usage: svc-mcp [login | status] [options]

An MCP server on stdio for svc memory: MCP hosts start it; it signs in through the dashboard
and bridges the memory tools to a relayer.

  login                 sign in now with a new key (opens the browser when it can) and exit
  status                the relayer's version and embedder, and whether the saved key works
  --login               sign in again even if credentials exist
  --no-browser          print the sign-in link without opening a browser
  --logout              delete the local credentials and exit
  --relayer URL         relayer address (SVC_SERVER_URL)
  --web-url URL         dashboard address used at sign-in (SVC_WEB_URL)
  --label TEXT          name of this client's key on the dashboard (SVC_CLIENT_LABEL)
  --namespace NAME, --ns NAME
                        default namespace for the memory tools (SVC_NAMESPACE)
  --blind               serve the namespace as operator-blind: this machine embeds, ranks
                        and decrypts with the ONNX model of SVC_ONNX_MODEL_DIR (sign in first)
  --cache FILE          with --blind: keep the namespace's log in FILE, sealed with the key
                        (one process a file)
  --scope OPS[:NAMESPACES]
                        the access a sign-in asks for (SVC_KEY_SCOPE): operations of read,
                        write, erase, audit (or all), then the namespaces, comma-separated:
                        --scope read, --scope read,write:work,notes, --scope all:work;
                        the dashboard shows it and may narrow it (default: full access)
  --expires 30d|TIME    ask for a key that expires after a duration (s, m, h, d, w) or at
                        an ISO 8601 time (SVC_KEY_EXPIRES)
  --prod | --dev | --staging | --local
                        preset relayer + dashboard (--local: ${PRESETS.local.relayer} +
                        ${PRESETS.local.webUrl}, or the ports SVC_PORT and
                        SVC_DASHBOARD_PORT name)
  -h, --help            this text

SVC_MCP_DEBUG=1 logs credential loading, the bridge connection and each request on stderr.
Credentials live in ~/.svc/credentials.json (mode 0600).`;

/** An http(s) URL without credentials, without its trailing slashes. */
function url(value: string, flag: string): string {
  if (!isHttpUrl(value)) {
    throw new UsageError(`${flag} must be an http(s) URL (got ${shown(value)})`);
  }
  const parsed = new URL(value);
  if (parsed.username || parsed.password) {
    // fetch would send them as Basic credentials in place of the key's, and logs show URLs.
    throw new UsageError(`${flag} must not hold a user name or password`);
  }
  return parsed.href.replace(/\/+$/, "");
}

/** Resolves `args` and `env`; throws `UsageError` for unknown flags and bad values. */
export function parseStdioOptions(
  args: string[],
  env: Record<string, string | undefined>,
  hostname = "this computer",
): StdioOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      tokens: true,
      options: {
        relayer: { type: "string" },
        "web-url": { type: "string" },
        label: { type: "string" },
        namespace: { type: "string" },
        ns: { type: "string" },
        scope: { type: "string" },
        expires: { type: "string" },
        login: { type: "boolean" },
        "no-browser": { type: "boolean" },
        logout: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        prod: { type: "boolean" },
        dev: { type: "boolean" },
        staging: { type: "boolean" },
        local: { type: "boolean" },
        blind: { type: "boolean" },
        cache: { type: "string" },
      },
    });
  } catch (error) {
    throw new UsageError(argsMessage(error));
  }
  const { values, positionals } = parsed;
  const repeated = repeatedFlag(parsed.tokens);
  if (repeated) throw new UsageError(repeated);
  if (
    positionals.length > 1 ||
    (positionals.length === 1 && !(COMMANDS as readonly string[]).includes(positionals[0]))
  ) {
    throw new UsageError(
      `unknown command "${positionals.join(" ")}" (the commands are "login" and "status")`,
    );
  }
  const presets = (["prod", "dev", "staging", "local"] as const).filter((name) => values[name]);
  if (presets.length > 1) throw new UsageError(`choose one preset, not ${presets.join(" and ")}`);
  const preset = presets[0] === "local"
    ? localPreset(env)
    : presets.length
    ? PRESETS[presets[0]]
    : undefined;
  if (values.namespace !== undefined && values.ns !== undefined) {
    throw new UsageError("give --namespace or --ns, not both");
  }
  const namespace = values.namespace ?? values.ns ?? (env.SVC_NAMESPACE || undefined);
  if (namespace !== undefined) {
    asRelayerChecks(() => validNamespace(namespace, "the namespace"));
    // It rides in a header, which drops the spaces at its ends: another namespace.
    if (/^ | $/.test(namespace)) {
      throw new UsageError("the namespace must not begin or end with a space");
    }
  }
  /** The URL of `--flag`, else the preset's, else that of the variable `name`, if any. */
  const urlOf = (flag: "relayer" | "web-url", preset: string | undefined, name: string) =>
    values[flag] !== undefined
      ? url(values[flag], `--${flag}`)
      : preset ?? (env[name] ? url(env[name], name) : undefined);
  const relayer = urlOf("relayer", preset?.relayer, "SVC_SERVER_URL");
  const webUrl = urlOf("web-url", preset?.webUrl, "SVC_WEB_URL") ??
    `http://localhost:${localPort("SVC_DASHBOARD_PORT", env.SVC_DASHBOARD_PORT, 5173)}`;
  // Without a relayer here, a sign-in may fall back to the local one: its port is read now.
  if (relayer === undefined) localPort("SVC_PORT", env.SVC_PORT, 8000);
  const label = values.label ?? (env.SVC_CLIENT_LABEL || `svc-mcp on ${hostname.slice(0, 40)}`);
  if (label === "" || new TextEncoder().encode(label).length > 64) {
    throw new UsageError("the label must be 1 to 64 bytes");
  }
  if (UNSHOWN_IN_LABELS.test(label)) {
    throw new UsageError("the label must not hold control, text-direction or invisible characters");
  }
  // A problem names where the value came from: the flag, else the variable.
  const scopeValue = values.scope ?? (env.SVC_KEY_SCOPE || undefined);
  const scopeName = values.scope === undefined ? "SVC_KEY_SCOPE" : "--scope";
  const scope = scopeValue === undefined ? {} : parseScopeFlag(scopeValue, scopeName);
  let expires = values.expires ?? (env.SVC_KEY_EXPIRES || undefined);
  const expiresName = values.expires === undefined ? "SVC_KEY_EXPIRES" : "--expires";
  if (expires !== undefined && durationMs(expires) === undefined) {
    expires = new Date(expiryFromFlag(expires, expiresName)).toISOString();
  }
  const command = values.help
    ? "help"
    : values.logout
    ? "logout"
    : (positionals[0] as (typeof COMMANDS)[number] | undefined) ?? "serve";
  return {
    command,
    forceLogin: values.login ?? false,
    relayer,
    webUrl,
    label,
    labelGiven: values.label !== undefined || Boolean(env.SVC_CLIENT_LABEL),
    namespace,
    noBrowser: values["no-browser"] ?? false,
    scope,
    ...(expires === undefined ? {} : { expires }),
    debug: env.SVC_MCP_DEBUG === "1",
    blind: values.blind ?? false,
    ...(values.cache !== undefined && { cacheFile: cacheFile(values.cache, values.blind) }),
  };
}

/** `--cache`'s file: a name, and only with `--blind`. */
function cacheFile(value: string, blind: boolean | undefined): string {
  if (!blind) throw new UsageError("--cache keeps an operator-blind namespace's log: add --blind");
  if (!value) throw new UsageError("--cache needs a file name");
  return value;
}
