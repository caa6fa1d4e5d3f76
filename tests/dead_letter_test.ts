/**
 * A job that cannot succeed stops: an update whose landing cannot erase the version it
 * replaces (the key store refuses every erase) fails after its attempts with the reason in its
 * status, leaves the old version as it was, and shows in `/health` and `/metrics`.
 */
import assert from "node:assert/strict";
import { LocalCipher } from "../plugins/local_cipher/mod.ts";
import type { Cipher } from "../src/backends/types.ts";
import { backendError } from "../src/errors.ts";
import type { ConnectionInfo } from "../src/http/router.ts";
import { BASE, jsonOf as json, rememberAll, startTestRelayer } from "./fixtures.ts";

/** A cipher whose erases fail, as a key store that is unavailable, while `broken` says so. */
async function brokenEraseCipher(): Promise<Cipher & { broken: boolean }> {
  const local = await LocalCipher.open({ masterKey: crypto.getRandomValues(new Uint8Array(32)) });
  const cipher: Cipher & { broken: boolean } = {
    name: "local-envelope-aes-256-gcm",
    broken: true,
    encrypt: (...args) => local.encrypt(...args),
    decrypt: (...args) => local.decrypt(...args),
    erase: (owner, ids, options) =>
      cipher.broken
        ? Promise.reject(backendError("the key store", "erase keys", new Error("locked")))
        : local.erase(owner, ids, options),
  };
  return cipher;
}

const LOOPBACK: ConnectionInfo = {
  remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 40_000 },
};

/** The value of one metric series, as `GET /metrics` writes it. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((line) => line.startsWith(series + " "));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

Deno.test("an update whose old version cannot be erased dead-letters; the old version stays", async () => {
  const cipher = await brokenEraseCipher();
  await using t = await startTestRelayer({ cipher, maxAttempts: 2 });
  const alice = await t.newCaller();
  const [old] = await rememberAll(t, alice, [{ text: "I live in Oslo", namespace: "me" }]);
  const update = await json(
    await t.signed(alice, "PUT", `/api/memories/${old}`, { text: "I live in Bergen" }),
    202,
  );
  await t.settle(alice, [update.job_id]);
  await t.relayer.worker.idle();

  const job = await json(await t.signed(alice, "GET", `/api/remember/${update.job_id}`));
  assert.equal(job.status, "failed");
  assert.equal(job.error, "Cannot erase keys: the key store is unavailable");
  assert.equal(job.attempts, 2, "every attempt counted, up to the bound");
  assert.equal(job.memory_id, undefined);
  // All or nothing: the old version is shown and readable, the new one is gone.
  const kept = await json(await t.signed(alice, "GET", `/api/memories/${old}`));
  assert.equal(kept.text, "I live in Oslo");
  await json(await t.signed(alice, "GET", `/api/memories/${update.job_id}`), 404);
  const { results } = await json(
    await t.signed(alice, "POST", "/api/recall", {
      query: "where do I live",
      namespace: "me",
      min_score: 0,
    }),
  );
  assert.deepEqual(results.map((r: { id: string }) => r.id), [old]);
  assert.deepEqual((await t.blobs.list(alice.owner, "me")).length, 1, "the new blob withdrawn");

  const health = await json(await t.send("GET", "/health"));
  assert.equal(health.jobs.deadLettered, 1);
  assert.equal(typeof health.jobs.unfinished, "number");
  const metrics = await (await t.relayer.handler(new Request(`${BASE}/metrics`), LOOPBACK))
    .text();
  assert.equal(sample(metrics, "svc_jobs_dead_lettered_total"), 1);
  assert.equal(sample(metrics, 'svc_jobs_total{outcome="failed"}'), 1);

  // Once the key store erases again, the same update goes through.
  cipher.broken = false;
  const again = await json(
    await t.signed(alice, "PUT", `/api/memories/${old}`, { text: "I live in Bergen" }),
    202,
  );
  await t.settle(alice, [again.job_id]);
  assert.equal(
    (await json(await t.signed(alice, "GET", `/api/remember/${again.job_id}`))).status,
    "done",
  );
  await json(await t.signed(alice, "GET", `/api/memories/${old}`), 404);
  assert.equal(
    (await json(await t.signed(alice, "GET", `/api/memories/${again.job_id}`))).text,
    "I live in Bergen",
  );
});
