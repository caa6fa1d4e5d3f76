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

const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()]+/gi;

/** A URL without what may hold a credential: its user and password, query and fragment. */
function bareUrl(url: string): string {
  try {
    const { protocol, host, pathname } = new URL(url);
    return `${protocol}//${host}${pathname}`;
  } catch {
    return "[url]";
  }
}

/**
 * An error as a log field: its name, its code if it has one, its message (without credentials
 * in URLs; a SyntaxError's not at all, since it quotes what it failed to parse) and its causes,
 * which hold what went wrong in a backend behind the sentence a caller reads.
 */
function errorField(error: Error, depth = 0): LogFields {
  const code = (error as { code?: unknown }).code;
  return {
    name: error.name,
    ...(typeof code === "string" ? { code } : {}),
    message: error instanceof SyntaxError
      ? "(not shown: it may quote its input)"
      : error.message.replace(URL_IN_TEXT, bareUrl),
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
