/**
 * How long each stage of one recall took, told to whoever listens (the relayer's metrics), in
 * seconds. A stage done in one go is told as it ends (`timed`); one done in parts, such as
 * reading texts before and after ranking, is counted part by part (`counted`, `countedNow`) and
 * told once (`report`).
 */
import type { RecallStage } from "./memory_answers.ts";

/** Hears how long a stage of a recall took, in seconds. */
export type StageObserver = (stage: RecallStage, seconds: number) => void;

/** Times the stages of one recall. */
export class RecallClock {
  readonly #observe?: StageObserver;
  /** Milliseconds counted per stage, not yet told. */
  readonly #counted = new Map<RecallStage, number>();

  constructor(observe?: StageObserver) {
    this.#observe = observe;
  }

  /** `work`, its time told as `stage` once it resolves (when someone listens). */
  async timed<T>(stage: RecallStage, work: () => Promise<T>): Promise<T> {
    if (!this.#observe) return await work();
    const started = performance.now();
    const result = await work();
    this.#observe(stage, (performance.now() - started) / 1000);
    return result;
  }

  /** `work`, its time counted towards `stage` once it resolves. */
  async counted<T>(stage: RecallStage, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const result = await work();
    this.#count(stage, started);
    return result;
  }

  /** `work`, done at once, its time counted towards `stage`. */
  countedNow<T>(stage: RecallStage, work: () => T): T {
    const started = performance.now();
    const result = work();
    this.#count(stage, started);
    return result;
  }

  /** Tells the time counted towards `stage` (when someone listens). */
  report(stage: RecallStage): void {
    this.#observe?.(stage, (this.#counted.get(stage) ?? 0) / 1000);
  }

  #count(stage: RecallStage, started: number): void {
    this.#counted.set(stage, (this.#counted.get(stage) ?? 0) + (performance.now() - started));
  }
}
