/**
 * Opening the sign-in link in the person's browser: `open` on macOS, `start` on Windows,
 * `xdg-open` elsewhere. A Linux or BSD session without a display (`DISPLAY`,
 * `WAYLAND_DISPLAY`) is headless: the link is only printed, as with `--no-browser`.
 */

export interface BrowserOptions {
  os?: typeof Deno.build.os;
  env?: Record<string, string | undefined>;
}

/** The command that opens `url` here, or `null` when there is no browser to open. */
export function browserCommand(url: string, options: BrowserOptions = {}): string[] | null {
  const os = options.os ?? Deno.build.os;
  const env = options.env ?? Deno.env.toObject();
  if (os === "darwin") return ["open", url];
  if (os === "windows") return ["cmd", "/c", "start", "", url.replaceAll("&", "^&")];
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return null;
  return ["xdg-open", url];
}

/**
 * Best effort: starts the opener without waiting for it and without tying this process to it.
 * Returns whether an opener was started; a missing one leaves the printed link.
 */
export function openBrowser(url: string, options: BrowserOptions = {}): boolean {
  const command = browserCommand(url, options);
  if (!command) return false;
  try {
    const child = new Deno.Command(command[0], {
      args: command.slice(1),
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    child.status.catch(() => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}
