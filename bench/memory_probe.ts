/**
 * Preloaded into a relayer process by `load_rss.ts` (`deno run --preload`): every 250 ms it
 * writes the process's `Deno.memoryUsage()` (MB) as one JSON line to the file named by
 * `SVC_BENCH_MEMORY_FILE`, so the harness can tell the V8 heap from memory outside it.
 */
const file = Deno.env.get("SVC_BENCH_MEMORY_FILE");
if (file) {
  const mb = (bytes: number) => Math.round(bytes / 2 ** 17) / 8;
  const timer = setInterval(() => {
    const usage = Deno.memoryUsage();
    const line = JSON.stringify({
      rss_mb: mb(usage.rss),
      heap_total_mb: mb(usage.heapTotal),
      heap_used_mb: mb(usage.heapUsed),
      external_mb: mb(usage.external),
    });
    Deno.writeTextFileSync(file, line + "\n", { append: true });
  }, 250);
  Deno.unrefTimer(timer);
}
