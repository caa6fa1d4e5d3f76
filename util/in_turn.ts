/**
 * Tasks run one after another: each starts once the one before it settled, whether it resolved
 * or threw.
 *
 * @example
 * ```ts
 * const turn = inTurn();
 * const first = turn(async () => 1);
 * const second = turn(async () => 2); // starts once `first` settled
 * ```
 * @module
 */

/** Runs each task given to it after the ones given before; resolves or rejects as the task. */
export type InTurn = <T>(task: () => Promise<T>) => Promise<T>;

/** A new line of tasks run one after another. */
export function inTurn(): InTurn {
  let last: Promise<unknown> = Promise.resolve();
  return (task) => {
    const done = last.then(task);
    last = done.catch(() => {});
    return done;
  };
}
