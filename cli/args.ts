/** What the CLIs say of a command line `parseArgs` (from `node:util`) refused, and settings they share. */

/** The message of `error`, with `parseArgs`'s refusal of an unknown flag said in a few words. */
export function argsMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // Node's text goes on to advise `--` for a positional argument that starts with a dash.
  const unknown = message.match(/^Unknown option '([^']+)'/);
  return unknown ? `unknown option ${unknown[1]}` : message;
}

/**
 * The port of this machine's relayer (`SVC_PORT`) or dashboard (`SVC_DASHBOARD_PORT`) for a
 * client to call: `fallback` when unset; a sentence saying what is wrong otherwise (also for 0,
 * with which the relayer takes any free port, so it names none).
 */
export function localPort(
  name: "SVC_PORT" | "SVC_DASHBOARD_PORT",
  value: string | undefined,
  fallback: number,
): number | string {
  if (!value) return fallback;
  const port = Number(value);
  return /^[0-9]{1,5}$/.test(value) && port >= 1 && port <= 65535
    ? port
    : `${name} must be a port from 1 to 65535 (got ${JSON.stringify(value.slice(0, 20))})`;
}
