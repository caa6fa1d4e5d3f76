/**
 * A progress bar for the CLI's long commands, drawn on standard error when it is a terminal
 * (and not at all otherwise, so logs and pipes stay clean), at most ten times a second.
 */

/** Where the bar is drawn: standard error. */
export interface ProgressOutput {
  isTerminal(): boolean;
  writeSync(bytes: Uint8Array): number;
}

const WIDTH = 30;

/** `[#######-------]  120/500 memories  24%`, or `120 memories` without a total. */
export function progressLine(label: string, done: number, total?: number, unit = "memories") {
  if (total === undefined || total <= 0) return `${label} ${done} ${unit}`;
  const share = Math.min(1, done / total);
  const filled = Math.round(share * WIDTH);
  return `${label} [${"#".repeat(filled)}${"-".repeat(WIDTH - filled)}] ` +
    `${done}/${total} ${unit}  ${Math.floor(share * 100)}%`;
}

/** A bar that redraws itself in place. */
export class ProgressBar {
  #out: ProgressOutput;
  #label: string;
  #unit: string;
  #now: () => number;
  #drawn = 0;
  #shown = false;
  #terminal: boolean;

  constructor(
    out: ProgressOutput,
    label: string,
    options: { unit?: string; now?: () => number } = {},
  ) {
    this.#out = out;
    this.#label = label;
    this.#unit = options.unit ?? "memories";
    this.#now = options.now ?? (() => performance.now());
    this.#terminal = out.isTerminal();
  }

  /** Shows `done` of `total` (redrawn at most every 100 ms, and always when done). */
  update(done: number, total?: number): void {
    if (!this.#terminal) return;
    const at = this.#now();
    if (this.#shown && at - this.#drawn < 100 && done !== total) return;
    this.#drawn = at;
    this.#shown = true;
    const line = progressLine(this.#label, done, total, this.#unit);
    this.#out.writeSync(new TextEncoder().encode(`\r${line}\x1b[K`));
  }

  /** Ends the bar's line (when one was drawn). */
  finish(): void {
    if (this.#shown) this.#out.writeSync(new TextEncoder().encode("\n"));
    this.#shown = false;
  }
}
