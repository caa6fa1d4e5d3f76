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

function redact(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [name, value] of Object.entries(fields)) {
    if (SECRET_FIELD.test(name) && !SAFE_FIELD.test(name)) out[name] = "[redacted]";
    else if (value instanceof Error) out[name] = { name: value.name, message: value.message };
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
