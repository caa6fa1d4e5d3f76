/**
 * Reads settings from environment variables and collects every problem, so a configuration is
 * reported all at once. The core's configuration and each plugin's settings use it.
 *
 * An absent (or empty) variable reads as `undefined`; a present one is checked, and a value
 * that fails its check is recorded as a problem and returned as given, so a caller goes on
 * reading and reports the rest. The result is only used when `problems` stays empty.
 *
 * @example
 * ```ts
 * const read = new SettingsReader({ SVC_PORT: "8080" });
 * const port = read.integer("SVC_PORT", 8000, 0, 65535);
 * const url = read.httpUrl("SVC_SUI_RPC_URL") ?? read.missing("SVC_SUI_RPC_URL", "by SVC_CHAIN=sui");
 * if (read.problems.length) console.error(read.problems.join("\n"));
 * ```
 */
export class SettingsReader {
  /** One sentence per problem, naming the variable; never a secret's value. */
  readonly problems: string[] = [];
  /** The default of each setting read with one (`choice`, `integer`), as the docs show it. */
  readonly defaults: Map<string, string> = new Map();
  #env: Record<string, string | undefined>;

  /** A reader of `env`, the environment variables by name. */
  constructor(env: Record<string, string | undefined>) {
    this.#env = env;
  }

  /** Records a problem once, however many settings report it. */
  problem(message: string): void {
    if (!this.problems.includes(message)) this.problems.push(message);
  }

  /** Records that `name` is required (`why` says by what) and returns an empty placeholder. */
  missing(name: string, why: string): string {
    this.problem(`${name} is required ${why}`);
    return "";
  }

  /** The raw value, `undefined` when absent or empty. */
  text(name: string): string | undefined {
    return this.#env[name] || undefined;
  }

  /** The value when it matches `pattern`; otherwise `message` is recorded. */
  matching(name: string, pattern: RegExp, message: string): string | undefined {
    const value = this.text(name);
    if (value !== undefined && !pattern.test(value)) this.problem(message);
    return value;
  }

  /** One of `allowed`, `fallback` when absent. */
  choice<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    this.defaults.set(name, fallback);
    const value = this.text(name) ?? fallback;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    this.problem(`${name} must be one of ${allowed.join(", ")} (got ${shown(value)})`);
    return fallback;
  }

  /** A whole number within `[min, max]`, `fallback` when absent. */
  integer(name: string, fallback: number, min: number, max: number): number {
    this.defaults.set(name, String(fallback));
    const raw = this.#env[name];
    if (raw === undefined || raw === "") return fallback;
    const value = Number(raw);
    if (!/^[0-9]+$/.test(raw) || value < min || value > max) {
      this.problem(`${name} must be an integer from ${min} to ${max} (got ${shown(raw)})`);
      return fallback;
    }
    return value;
  }

  /** An http(s) URL; `complete` may fill in what a value leaves out, such as the scheme. */
  httpUrl(name: string, complete = (value: string) => value): string | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    const url = complete(value);
    if (!isHttpUrl(url)) this.problem(`${name} must be an http(s) URL (got ${shown(value)})`);
    return url;
  }

  /** A comma-separated list, entries trimmed, empty ones dropped. */
  list(name: string): string[] {
    return (this.#env[name] ?? "").split(",").map((entry) => entry.trim()).filter(Boolean);
  }

  /** A comma-separated list of http(s) URLs (see `list`); each other entry is a problem. */
  httpUrls(name: string): string[] {
    const urls = this.list(name);
    for (const url of urls) {
      if (!isHttpUrl(url)) this.problem(`${name} must list http(s) URLs (got ${shown(url)})`);
    }
    return urls;
  }
}

/**
 * A setting's value as a problem quotes it, never what may be a secret set in the wrong
 * variable: without a user's part (to its last `@`) or a query, quoted as JSON when short (a
 * URL up to 80 characters, anything else up to 24), else by its length alone (a key is 64
 * characters or more).
 */
export function shown(value: string): string {
  const cut = value.replace(/^([a-z][a-z0-9+.-]*:\/\/)?.*@/is, "$1…@").replace(/[?#].*$/s, "?…");
  const limit = value.includes("://") ? 80 : 24;
  return cut.length <= limit ? JSON.stringify(cut) : `a value of ${value.length} characters`;
}

/** Whether `value` parses as an http: or https: URL. */
export function isHttpUrl(value: string): boolean {
  return URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
}
