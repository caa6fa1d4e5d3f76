/**
 * The reference system's own TypeScript SDK, as published (`@mysten-incubation/memwal` 0.0.1:
 * signature version 1 without a nonce, `x-delegate-key` sent), run unchanged against a relayer
 * process: health, remember, recall, analyze, restore, embed and manual recall.
 */
import assert from "node:assert/strict";
import { MemWal } from "@mysten-incubation/memwal";
import type { RememberAnswer } from "../../src/client/mod.ts";
import { jobIdOf, newAccountClient, startRelayer } from "../relayer_process.ts";

Deno.test("memwal 0.0.1: its documented calls work against svc unchanged", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-memwal-" });
  try {
    await using relayer = await startRelayer(dataDir);
    const { client, privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
    const memwal = MemWal.create({ key: privateKey, accountId, serverUrl: relayer.url });

    assert.equal((await memwal.health()).status, "ok");
    // Its types are of a synchronous remember; svc answers a job, which the SDK passes on.
    const saved = await memwal.remember("I am allergic to peanuts") as unknown as RememberAnswer;
    assert.equal((await client.waitForJob(jobIdOf(saved))).status, "done");
    const found = await memwal.recall("What food should I avoid?", 3);
    assert.equal(found.results[0].text, "I am allergic to peanuts");
    assert.equal(typeof found.results[0].blob_id, "string");
    assert.equal(typeof found.results[0].distance, "number");

    const analyzed = await memwal.analyze(
      "I moved to Bergen last year. I play chess on Thursdays.",
    );
    assert.ok(analyzed.facts.length >= 1);
    assert.ok(analyzed.facts.every((fact) => typeof fact.text === "string"));
    const restored = await memwal.restore("default");
    assert.equal(restored.namespace, "default");

    const { vector } = await memwal.embed("peanut allergy");
    assert.ok(Array.isArray(vector) && vector.length > 0);
    const nearest = await memwal.recallManual({ vector, limit: 1 });
    assert.equal(nearest.results.length, 1);
    assert.equal(typeof nearest.results[0].blob_id, "string");
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
