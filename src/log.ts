/**
 * Structured logs: one JSON object per line on stderr. Fields whose names suggest a secret
 * or memory text are redacted, so a careless call cannot leak them.
 */

/** How severe an entry is; a logger drops entries below its level. */
export type LogLevel = "debug" | "info" | "warn" | "error";
/** The fields of an entry, written beside its message. */
export type LogFields = Record<string, unknown>;

/** Writes structured log entries: a message and its fields. */
export interface Logger {
  /** Logs detail useful when looking into a problem. */
  debug(msg: string, fields?: LogFields): void;
  /** Logs a normal event. */
  info(msg: string, fields?: LogFields): void;
  /** Logs something wrong that the service survives. */
  warn(msg: string, fields?: LogFields): void;
  /** Logs a failure. */
  error(msg: string, fields?: LogFields): void;
}

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const SECRET_FIELD =
  /key|secret|token|bearer|authorization|signature|text|query|question|plaintext/i;
const SAFE_FIELD = /^(public_key|publicKey|account_id|accountId)$/;

/** A URL in a message, to the next white space. */
const URL_IN_TEXT = /\b([a-z][a-z0-9+.-]*:\/\/)(\S*)/gi;
/** A host (or `[address]`) and port, at the start of what follows `scheme://` and any user. */
const HOST = /^(?:\[[0-9a-f:.]*\]|[a-z0-9.-]*)(?::[0-9]*)?/i;
/** A credential sent in a header, as errors about the header quote it. */
const AUTH_HEADER = /\b(Bearer|Basic)\s+\S+/gi;

/**
 * `text` without credentials: each URL shortened to its scheme and host (a user and password, a
 * path, which may hold an API token, a query and a fragment go), and `Bearer …` values redacted.
 */
function withoutCredentials(text: string): string {
  return text
    .replace(URL_IN_TEXT, (_, scheme: string, rest: string) => {
      const [host] = HOST.exec(rest.slice(rest.lastIndexOf("@") + 1))!;
      return `${scheme}${host}${host.length < rest.length ? "/…" : ""}`;
    })
    .replace(AUTH_HEADER, "$1 [redacted]");
}

/**
 * An error as a log field: its name, its code if it has one, its message (without credentials;
 * a SyntaxError's not at all, since it quotes what it failed to parse) and its causes,
 * which hold what went wrong in a backend behind the sentence a caller reads.
 */
function errorField(error: Error, depth = 0): LogFields {
  const code = (error as { code?: unknown }).code;
  return {
    name: error.name,
    ...(typeof code === "string" ? { code } : {}),
    message: error instanceof SyntaxError
      ? "(not shown: it may quote its input)"
      : withoutCredentials(error.message),
    ...(error.cause instanceof Error && depth < 4
      ? { cause: errorField(error.cause, depth + 1) }
      : {}),
  };
}

function redact(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [name, value] of Object.entries(fields)) {
    if (SECRET_FIELD.test(name) && !SAFE_FIELD.test(name)) out[name] = "[redacted]";
    else if (value instanceof Error) out[name] = errorField(value);
    else out[name] = value;
  }
  return out;
}

/** A logger writing JSON lines through `write` (stderr by default). */
export function createLogger(
  level: LogLevel = "info",
  write: (line: string) => void = (line) => console.error(line),
): Logger {
  const at = (lvl: LogLevel) => (msg: string, fields: LogFields = {}) => {
    if (LEVELS[lvl] < LEVELS[level]) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...redact(fields) }));
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** A logger that drops everything (tests, library users who bring their own). */
export const silentLogger: Logger = createLogger("error", () => {});
