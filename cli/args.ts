/** What the CLIs say of a command line `parseArgs` (from `node:util`) refused. */

/** The message of `error`, with `parseArgs`'s refusal of an unknown flag said in a few words. */
export function argsMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // Node's text goes on to advise `--` for a positional argument that starts with a dash.
  const unknown = message.match(/^Unknown option '([^']+)'/);
  return unknown ? `unknown option ${unknown[1]}` : message;
}
