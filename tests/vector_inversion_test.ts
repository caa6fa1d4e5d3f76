/**
 * The nearest-word attack on a copy of a data directory. The attacker knows the embedder (the
 * offline GloVe one) but not the master key: they find every run of 128 float32 in the files
 * that looks like a stored vector (finite, of unit length) and take the 10 GloVe words nearest
 * to each. On a LanceDB index that recovers a large share of the memories' content words; on
 * the encrypted index it must recover next to nothing.
 */
import assert from "node:assert/strict";
import { openBackends, readConfig } from "../app/mod.ts";
import { assembleRelayer } from "../src/relayer.ts";
import { silentLogger } from "../src/log.ts";
import { GloveEmbedder } from "../plugins/glove_embedder/mod.ts";
import { STOP_WORDS, tokens, WordTable } from "../plugins/glove_embedder/glove_words.ts";
import { decode, DIMENSIONS } from "../plugins/glove_embedder/vectors.ts";
import { TEST_MODELS_DIR } from "./relayer_process.ts";

const WORDS = 30_000;
const MEMORIES = [
  "My boss likes a birthday cake",
  "I am allergic to peanuts and shellfish",
  "My sister lives in Berlin with her husband",
  "I play the guitar every Sunday evening",
  "Our dog is a golden retriever called Biscuit",
  "I drink green tea instead of coffee",
  "My daughter started kindergarten this autumn",
  "I run a marathon every spring",
  "The car needs new tires before winter",
  "I am learning Japanese for a trip to Tokyo",
  "My favourite book is a novel about the ocean",
  "I work as a nurse at the children's hospital",
  "We bought a small house near the river",
  "My grandmother bakes apple pie on holidays",
  "I prefer trains to airplanes",
  "My brother repairs old motorcycles",
  "I am vegetarian and love spicy curry",
  "The garden has tomatoes and roses",
  "My phone screen cracked last week",
  "I go swimming at the lake in summer",
  "My husband snores loudly at night",
  "I collect vintage postage stamps",
  "Our wedding anniversary is in October",
  "I hate waking up early on Mondays",
  "My son plays basketball at school",
  "I keep a diary about my dreams",
  "The doctor said my blood pressure is high",
  "I moved to Canada for a new job",
  "My cat sleeps on the piano",
  "I paint landscapes with watercolors",
  "We celebrate Christmas with a big dinner",
  "I lost my wallet at the airport",
  "My neighbor grows huge pumpkins",
  "I meditate before breakfast",
  "My best friend is a chef in Paris",
  "I want to climb a mountain in Nepal",
  "My laptop battery dies quickly",
  "I volunteer at the animal shelter",
  "My mother teaches history at a university",
  "I ride my bicycle to the office",
  "Our kitchen needs a new refrigerator",
  "I enjoy fishing with my father",
  "My favourite season is autumn",
  "I read mystery novels on the train",
  "My uncle owns a farm with cows and horses",
  "I am saving money for a new apartment",
  "The baby cries when it thunders",
  "I bake bread every weekend",
  "My wife loves jazz music and dancing",
  "I broke my leg skiing in the mountains",
];

/** Remembers every memory through the composed relayer on `dataDir`, then closes it all. */
async function rememberAll(dataDir: string, env: Record<string, string>) {
  // GloVe's vectors, which the attack's word vectors read.
  const config = readConfig({
    SVC_DATA_DIR: dataDir,
    SVC_MODELS_DIR: TEST_MODELS_DIR,
    SVC_EMBEDDER: "local",
    ...env,
  });
  assert.ok(config.ok);
  const backends = await openBackends(config.config, silentLogger);
  const relayer = await assembleRelayer({ ...backends.relayer, logger: silentLogger });
  const owner = "0x" + "ab".repeat(32);
  for (let i = 0; i < MEMORIES.length; i += 20) {
    const items = MEMORIES.slice(i, i + 20).map((text) => ({ text, namespace: "personal" }));
    await relayer.service.remember(owner, items);
  }
  const { vectors } = backends.relayer;
  while ((await vectors.count()) < MEMORIES.length) await new Promise((r) => setTimeout(r, 20));
  await relayer.close();
  await backends.close();
}

async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyDir(`${from}/${entry.name}`, `${to}/${entry.name}`);
    else if (entry.isFile) await Deno.copyFile(`${from}/${entry.name}`, `${to}/${entry.name}`);
  }
}

async function* filesOf(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* filesOf(path);
    else if (entry.isFile) yield path;
  }
}

/**
 * Every run of `dims` float32 in `bytes`, at any 4-byte step from any of the first four
 * offsets, that is finite, of unit length and does not start with a zero (a run shifted onto
 * zero padding); runs found do not overlap.
 */
function candidates(bytes: Uint8Array, dims: number): Float32Array[] {
  const out: Float32Array[] = [];
  for (let phase = 0; phase < 4; phase++) {
    const n = Math.floor((bytes.length - phase) / 4);
    if (n < dims) continue;
    const floats = new Float32Array(bytes.slice(phase, phase + n * 4).buffer);
    // Running sums over the window: squares of the plausible values, count of the others.
    const plausible = (x: number) => Number.isFinite(x) && Math.abs(x) <= 1;
    let squares = 0, implausible = 0;
    const fill = (from: number) => {
      squares = 0;
      implausible = 0;
      for (let i = from; i < from + dims; i++) {
        if (plausible(floats[i])) squares += floats[i] * floats[i];
        else implausible++;
      }
    };
    fill(0);
    let start = 0;
    while (start + dims <= n) {
      if (implausible === 0 && Math.abs(squares - 1) < 1e-3 && floats[start] !== 0) {
        out.push(floats.slice(start, start + dims));
        start += dims; // past this vector
        if (start + dims <= n) fill(start);
        continue;
      }
      if (start + dims < n) {
        const gone = floats[start], come = floats[start + dims];
        if (plausible(gone)) squares -= gone * gone;
        else implausible--;
        if (plausible(come)) squares += come * come;
        else implausible++;
      }
      start++;
    }
  }
  return out;
}

/**
 * The attacker's dictionary: GloVe's most frequent words (182 of the memories' 188 content words
 * are among the first 30,000), as unit vectors with the common direction removed, as sentences
 * are.
 */
async function vocabulary() {
  await GloveEmbedder.open({ cacheDir: TEST_MODELS_DIR }); // makes sure the cache exists
  const table = decode(await Deno.readFile(`${TEST_MODELS_DIR}/glove-100d-100k-v1.bin`))!;
  const words = new WordTable(table);
  const names: string[] = [];
  for (const [word, row] of table.index) if (row < WORDS) names[row] = word;
  const matrix = new Float32Array(WORDS * DIMENSIONS);
  const c = table.commonDirection;
  for (let row = 0; row < WORDS; row++) {
    const v = new Float64Array(DIMENSIONS);
    for (let i = 0; i < DIMENSIONS; i++) v[i] = table.values[row * DIMENSIONS + i];
    let projection = 0;
    for (let i = 0; i < DIMENSIONS; i++) projection += v[i] * c[i];
    for (let i = 0; i < DIMENSIONS; i++) v[i] -= projection * c[i];
    let norm = 0;
    for (let i = 0; i < DIMENSIONS; i++) norm += v[i] * v[i];
    norm = Math.sqrt(norm) || 1;
    for (let i = 0; i < DIMENSIONS; i++) matrix[row * DIMENSIONS + i] = v[i] / norm;
  }
  return { names, matrix, words };
}

/** The share of the memories' content words among the 10 words nearest any found vector. */
async function attack(dataDir: string, vocab: Awaited<ReturnType<typeof vocabulary>>) {
  const found = new Map<string, Float32Array>();
  for await (const path of filesOf(dataDir)) {
    for (const vector of candidates(await Deno.readFile(path), DIMENSIONS + 28)) {
      found.set(new Uint8Array(vector.buffer).toHex(), vector);
    }
  }
  const guessed = new Set<string>();
  const { names, matrix } = vocab;
  for (const vector of found.values()) {
    const best: { score: number; row: number }[] = [];
    let worst = -Infinity;
    for (let row = 0, at = 0; row < names.length; row++, at += DIMENSIONS) {
      let dot = 0;
      for (let i = 0; i < DIMENSIONS; i += 4) {
        dot += vector[i] * matrix[at + i] + vector[i + 1] * matrix[at + i + 1] +
          vector[i + 2] * matrix[at + i + 2] + vector[i + 3] * matrix[at + i + 3];
      }
      if (dot <= worst) continue;
      best.push({ score: dot, row });
      best.sort((a, b) => b.score - a.score);
      if (best.length > 10) best.pop();
      if (best.length === 10) worst = best[9].score;
    }
    for (const { row } of best) guessed.add(names[row]);
  }
  // Content words: the memories' words that are not stop words and that GloVe knows.
  const content = new Set(
    MEMORIES.flatMap(tokens).filter((w) => !STOP_WORDS.has(w) && vocab.words.row(w) !== undefined),
  );
  const recovered = [...content].filter((w) =>
    guessed.has(w) || (w.endsWith("s") && guessed.has(w.slice(0, -1)))
  );
  return { vectors: found.size, content: content.size, recovered: recovered.length };
}

Deno.test("vector inversion: the nearest-word attack reads LanceDB's vectors, not the encrypted index's", async () => {
  const root = await Deno.makeTempDir({ prefix: "svc-inversion-" });
  try {
    const vocab = await vocabulary();
    const shares: Record<string, number> = {};
    for (const store of ["lancedb", "encrypted"]) {
      const env: Record<string, string> = store === "lancedb" ? { SVC_VECTOR_STORE: store } : {};
      await rememberAll(`${root}/${store}`, env);
      await copyDir(`${root}/${store}`, `${root}/${store}-copy`);
      const result = await attack(`${root}/${store}-copy`, vocab);
      shares[store] = result.recovered / result.content;
      console.log(
        `${store}: ${result.vectors} vectors found, ` +
          `${result.recovered} of ${result.content} content words recovered`,
      );
    }
    assert.ok(shares.lancedb >= 0.3, `LanceDB: ${shares.lancedb} (the attack must work)`);
    assert.ok(shares.encrypted <= 0.02, `encrypted: ${shares.encrypted}`);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
