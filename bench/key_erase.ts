/**
 * What one erase costs the local cipher's key store (`keys.sqlite`) as it grows: the store is
 * filled with the wrapped keys of `--sizes` memories, then `--samples` memories are erased one
 * at a time, each erase waited for (its keys overwritten with zeros, the log synced, checkpointed
 * and cut to nothing). Prints the time per erase and writes `bench/results/key_erase.json`.
 *
 * It runs with no permission beyond reading and writing files, as the store needs no other:
 *
 *   deno task bench:erase [--sizes 10000,1000000] [--samples 200] [--out FILE]
 */
import { SqliteKeyStore } from "../plugins/local_cipher/key_store.ts";
import { machine, percentile, resultsFile, round, writeResults } from "./harness.ts";
import { flags, whole } from "./flags.ts";

const { values } = flags({
  options: {
    sizes: { type: "string", default: "10000,1000000" },
    samples: { type: "string", default: "200" },
    out: { type: "string", default: resultsFile("key_erase.json") },
  },
});
const samples = whole(values.samples, "--samples");
const sizes = values.sizes.split(",").map((size) => whole(size, "--sizes"));
const OWNER = "0x" + "ab".repeat(32);
/** Puts made in one turn (one commit). */
const FILL_BATCH = 5000;

const memoryId = (i: number) =>
  `0190e3c4-${i.toString(16).padStart(4, "0")}-7000-8000-000000000000`;

/** A store of `size` memories' keys (each a 60-byte wrapped key, as the cipher writes). */
async function filled(path: string, size: number): Promise<SqliteKeyStore> {
  const store = await SqliteKeyStore.open(path);
  for (let at = 0; at < size; at += FILL_BATCH) {
    const puts = [];
    for (let i = at; i < Math.min(size, at + FILL_BATCH); i++) {
      const place = { owner: OWNER, memoryId: memoryId(i), keyTag: i.toString(16).padStart(16) };
      puts.push(store.put(place, crypto.getRandomValues(new Uint8Array(60))));
    }
    await Promise.all(puts);
  }
  return store;
}

async function measure(size: number) {
  const dir = await Deno.makeTempDir({ prefix: "svc-bench-erase-" });
  try {
    const started = performance.now();
    const store = await filled(`${dir}/keys.sqlite`, size);
    const fillSeconds = (performance.now() - started) / 1000;
    const times: number[] = [];
    for (let s = 0; s < samples; s++) {
      const id = memoryId(Math.floor((s + 0.5) * size / samples));
      const t0 = performance.now();
      await store.erase(OWNER, [id]);
      times.push(performance.now() - t0);
    }
    await store.close();
    const { size: bytes } = await Deno.stat(`${dir}/keys.sqlite`);
    times.sort((a, b) => a - b);
    return {
      keys: size,
      file_mb: round(bytes / 2 ** 20),
      fill_seconds: round(fillSeconds),
      erase_ms_p50: round(percentile(times, 50), 2),
      erase_ms_p95: round(percentile(times, 95), 2),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const rows = [];
for (const size of sizes) {
  const row = await measure(size);
  console.log(JSON.stringify(row));
  rows.push(row);
}
await writeResults(values.out, {
  machine: machine(),
  date: new Date().toISOString(),
  samples,
  rows,
});
