import type { CallOptions } from "../backends/types.ts";
import type { StepOptions } from "./remember.ts";
import { withTimeout } from "./with_timeout.ts";

/**
 * Runs one backend call with the step's signal and, when the step has a time limit, a signal
 * that fires when it runs out (the call then rejects with "<what> timed out after <n> ms").
 */
export function backendCall<T>(
  options: StepOptions,
  what: string,
  task: (options: CallOptions) => Promise<T>,
): Promise<T> {
  const { signal, timeoutMs } = options;
  if (timeoutMs === undefined) return task({ signal });
  return withTimeout(timeoutMs, what, (limited) => task({ signal: limited }), signal);
}
