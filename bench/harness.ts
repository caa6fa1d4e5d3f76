/**
 * Small helpers shared by the benchmarks: rounding, percentiles, a process's resident memory,
 * waiting for remember jobs, the machine line written with results, and writing them.
 */
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import type { SvcClient } from "../src/client/mod.ts";

/** `x` rounded to `digits` decimals. */
export const round = (x: number, digits = 1): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** The `p`th percentile of ascending `sorted` (nearest rank below), 0 when it is empty. */
export function percentile(sorted: number[], p: number): number {
  return sorted.length
    ? sorted[Math.min(sorted.length - 1, Math.floor(p / 100 * sorted.length))]
    : 0;
}

/** Resident memory of a process, in MB. */
export async function rssMb(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Math.round(Number(status.match(/VmRSS:\s+(\d+)/)![1]) / 1024);
}

/**
 * Resolves once every job of `jobIds` is done; throws if one failed, or once `timeoutMs` (none
 * by default) has passed with some still pending.
 */
export async function allDone(
  client: SvcClient,
  jobIds: string[],
  timeoutMs = Infinity,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let pending = jobIds;
  while (pending.length) {
    // Jobs finish roughly in order: wait on the newest, then sweep the rest.
    const tail = pending.slice(-100);
    const { results: jobs } = await client.jobs(tail);
    if (jobs.some((job) => job.status === "failed")) throw new Error("a remember job failed");
    if (!jobs.every((job) => job.status === "done")) {
      if (performance.now() > deadline) {
        throw new Error(`${pending.length} remember jobs still pending after ${timeoutMs} ms`);
      }
      await new Promise((r) => setTimeout(r, 20));
      continue;
    }
    pending = pending.slice(0, -100);
  }
}

/** Cores, memory, load average and Deno version, for the results' `machine` field. */
export function machine(): string {
  return `${navigator.hardwareConcurrency} cores, ${
    Math.round(Deno.systemMemoryInfo().total / 2 ** 30)
  } GiB, load average ${
    Deno.loadavg().map((x) => round(x, 2)).join(" ")
  }, deno ${Deno.version.deno}`;
}

/** The path of `name` in `bench/results/`, where every benchmark writes unless told `--out`. */
export const resultsFile = (name: string): string =>
  fileURLToPath(new URL(`./results/${name}`, import.meta.url));

/** Writes `value` as JSON to `path`, creating its folder first. */
export async function writeResults(path: string, value: unknown): Promise<void> {
  await Deno.mkdir(dirname(path), { recursive: true });
  await Deno.writeTextFile(path, JSON.stringify(value, null, 2) + "\n");
  console.log(`wrote ${path}`);
}

/** The median and 95th percentile of `ms`, rounded to a tenth. */
export function percentiles(ms: number[]): { p50_ms: number; p95_ms: number } {
  const sorted = ms.toSorted((a, b) => a - b);
  return { p50_ms: round(percentile(sorted, 50)), p95_ms: round(percentile(sorted, 95)) };
}

/**
 * A table for `console.table`: a row per figure (its label, and how to read it off a result), a
 * column per result's system; a result that failed shows "error".
 */
export function tableOf<R extends { system: string }>(
  results: (R | { system: string; error: string })[],
  figures: (readonly [string, (result: R) => string | number])[],
): Record<string, Record<string, string | number>> {
  return Object.fromEntries(figures.map(([label, pick]) => [
    label,
    Object.fromEntries(
      results.map((result) => [result.system, "error" in result ? "error" : pick(result as R)]),
    ),
  ]));
}

/** Bytes under `path` (a file or a directory), 0 when it does not exist. */
export async function diskBytes(path: string): Promise<number> {
  try {
    const info = await Deno.stat(path);
    if (!info.isDirectory) return info.size;
  } catch {
    return 0;
  }
  let total = 0;
  for await (const entry of Deno.readDir(path)) total += await diskBytes(`${path}/${entry.name}`);
  return total;
}
