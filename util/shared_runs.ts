/**
 * Runs shared by key: asking for a key whose run is under way gets that run, else starts one,
 * forgotten once it settles (so a later ask starts anew).
 *
 * @example
 * ```ts
 * const loads = new SharedRuns<string, string>();
 * const [a, b] = await Promise.all([
 *   loads.run("ns", () => Promise.resolve("rows")),
 *   loads.run("ns", () => Promise.resolve("not started: the first run is shared")),
 * ]); // both "rows"
 * ```
 */
export class SharedRuns<K, T> {
  #running = new Map<K, Promise<T>>();

  /** The run under way for `key`, or `task()`, shared until it settles. */
  run(key: K, task: () => Promise<T>): Promise<T> {
    let running = this.#running.get(key);
    if (!running) {
      running = task().finally(() => this.#running.delete(key));
      this.#running.set(key, running);
    }
    return running;
  }
}
