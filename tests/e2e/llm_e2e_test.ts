/**
 * Analyze and ask through the real relayer (`main.ts`): on the embedded default, and with the
 * Ollama embedder and an OpenAI-compatible LLM selected by environment (local protocol fakes).
 */
import assert from "node:assert/strict";
import type { SvcClient } from "../../src/client/mod.ts";
import { type FakeModelServer, startFakeModelServer } from "../fakes/model_server.ts";
import { newAccountClient, startRelayer } from "../relayer_process.ts";

const CHAT = "Morning! Did you see the match? I'm training for the Berlin marathon in " +
  "September. My partner Sam is a pilot. Can you book a table? I can't eat gluten.";

async function analyzeThenAsk(client: SvcClient) {
  const analysis = await client.analyze(CHAT, { namespace: "me" });
  assert.equal(analysis.fact_count, 3);
  for (const id of analysis.job_ids) {
    assert.equal((await client.waitForJob(id)).status, "done");
  }
  for (
    const [query, expected] of [["marathon", /Berlin marathon/], ["gluten", /gluten/]] as const
  ) {
    const { results } = await client.recall(query, { namespace: "me" });
    assert.match(results[0].text, expected);
  }
  const answered = await client.ask("What does my partner Sam do?", { namespace: "me" });
  assert.match(answered.answer, /pilot/);
  assert.ok(answered.memories_used >= 1);
  const unknown = await client.ask("What is my favourite film?", { namespace: "films" });
  assert.equal(unknown.memories_used, 0);
  assert.match(unknown.answer, /nothing in your memories/);
}

Deno.test("e2e: analyze and ask on the embedded default", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    await using relayer = await startRelayer(dataDir);
    const health = await (await fetch(`${relayer.url}/health`)).json();
    assert.equal(health.backends.llm, "local-extractive");
    // The documented example is what the default answers.
    const document = await (await fetch(`${relayer.url}/openapi.json`)).json();
    const example = document.paths["/health"].get.responses[200].content["application/json"]
      .example;
    assert.deepEqual(example.backends, health.backends);
    assert.deepEqual(Object.keys(example).sort(), Object.keys(health).sort());
    const { client } = await newAccountClient(dataDir, relayer.url);
    await analyzeThenAsk(client);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("e2e: SVC_EMBEDDER=ollama and SVC_LLM=openai select the remote plugins", async () => {
  const dataDir = await Deno.makeTempDir();
  await using ollama = startFakeModelServer("ollama", { dimensions: 96 });
  await using openai = startFakeModelServer("openai");
  try {
    await using relayer = await startRelayer(dataDir, {
      SVC_EMBEDDER: "ollama",
      OLLAMA_HOST: ollama.url,
      SVC_EMBED_MODEL: "nomic-embed-text",
      SVC_LLM: "openai",
      OPENAI_BASE_URL: `${openai.url}/v1`,
      OPENAI_API_KEY: "sk-test",
      SVC_LLM_MODEL: "small-chat",
    });
    const health = await (await fetch(`${relayer.url}/health`)).json();
    assert.deepEqual([health.backends.embedder, health.backends.llm], [
      "ollama:nomic-embed-text",
      "openai",
    ]);
    const { client } = await newAccountClient(dataDir, relayer.url);
    await analyzeThenAsk(client);
    assert.ok(ollama.requests.some((r) => r.body.model === "nomic-embed-text"));
    const chats = openai.requests.filter((r) => r.path === "/v1/chat/completions");
    assert.ok(chats.length >= 2 && chats.every((r) => r.body.model === "small-chat"));
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

const until = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 20));
};

/** A relayer (`processGroup`: leading its own) whose `ask` waits on a model that hangs. */
async function askingAHungModel(dataDir: string, ollama: FakeModelServer, processGroup = false) {
  const env = { SVC_LLM: "ollama", OLLAMA_HOST: ollama.url };
  const relayer = await startRelayer(dataDir, env, { processGroup });
  const { client } = await newAccountClient(dataDir, relayer.url);
  const saved = await client.remember("I keep bees");
  if (saved.status !== "duplicate") await client.waitForJob(saved.job_id);
  const release = ollama.holdNext(60_000);
  const asking = client.ask("What do I keep?");
  asking.catch(() => {}); // awaited by the tests that expect an answer
  await until(() => ollama.requests.some((r) => r.path === "/api/chat"));
  return { relayer, release, asking };
}

Deno.test("e2e: a second Ctrl-C stops a relayer whose request waits on a model that hangs", async () => {
  await using ollama = startFakeModelServer("ollama");
  const dataDir = await Deno.makeTempDir();
  try {
    const held = await askingAHungModel(dataDir, ollama);
    await using relayer = held.relayer;
    relayer.process.kill("SIGINT");
    await until(() => relayer.log().includes("relayer stopping"));
    // Past the moment in which a repeat is the same Ctrl-C delivered twice.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    relayer.process.kill("SIGINT");
    assert.equal((await relayer.process.status).code, 130);
    assert.match(relayer.log(), /stopping now, without the requests still running/);
    held.release();
    await held.asking.catch(() => {});
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("e2e: one Ctrl-C delivered twice, to the process group and by deno task, waits for the requests", async () => {
  await using ollama = startFakeModelServer("ollama");
  const dataDir = await Deno.makeTempDir();
  try {
    const held = await askingAHungModel(dataDir, ollama, true);
    await using relayer = held.relayer;
    Deno.kill(-relayer.process.pid, "SIGINT");
    // deno task forwards the terminal's signal a moment later.
    await new Promise((resolve) => setTimeout(resolve, 100));
    relayer.process.kill("SIGINT");
    held.release();
    assert.match((await held.asking).answer, /bees/);
    assert.equal((await relayer.process.status).code, 0);
    assert.doesNotMatch(relayer.log(), /stopping now/);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
