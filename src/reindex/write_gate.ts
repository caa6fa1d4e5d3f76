/**
 * A gate for index writes: any number pass at once (`shared`), until a task needs them all
 * stopped (`exclusive`): it waits for the writes under way to finish, holds new ones back, runs,
 * then lets them through. A waiting exclusive task goes before writes that arrive after it.
 */
export class WriteGate {
  #writes = 0;
  #drained: (() => void) | undefined;
  #closed: Promise<void> | null = null;

  /** Runs `task` once no exclusive task holds the gate. */
  async shared<T>(task: () => Promise<T>): Promise<T> {
    while (this.#closed) await this.#closed;
    this.#writes++;
    try {
      return await task();
    } finally {
      if (--this.#writes === 0) this.#drained?.();
    }
  }

  /** Runs `task` alone: after the writes under way, before any other. */
  async exclusive<T>(task: () => Promise<T>): Promise<T> {
    while (this.#closed) await this.#closed;
    let open!: () => void;
    this.#closed = new Promise((resolve) => open = resolve);
    try {
      if (this.#writes > 0) await new Promise<void>((resolve) => this.#drained = resolve);
      this.#drained = undefined;
      return await task();
    } finally {
      this.#closed = null;
      open();
    }
  }
}
