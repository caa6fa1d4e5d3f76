/**
 * Three relayer processes on one PostgreSQL database behind a round-robin balancer, as an
 * operator runs them: a memory remembered through one is recallable through the others, a
 * signed request accepted by one is a replay for the others, a key removed with the CLI is
 * refused by every relayer from its very next request, and every relayer's MCP sidecar serves
 * the tools. (SIGKILLs mid-job and chaos: `multi_relayer_chaos_test.ts`.)
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SvcClient } from "../../src/client/mod.ts";
import { keyPairFromSeed } from "@svc/util/keys";
import { signRequest } from "../../src/auth/signing.ts";
import { textOf } from "../mcp_fixtures.ts";
import { type Cluster, clusterAccount, startCluster } from "./relayer_cluster.ts";
import { svcCli, waitForSidecar } from "../relayer_process.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A client of `account` talking to `url`, signing for the cluster's public origin. */
function clientFor(cluster: Cluster, account: { privateKey: string; accountId: string }) {
  return SvcClient.create({
    baseUrl: cluster.url,
    privateKey: account.privateKey,
    accountId: account.accountId,
    retries: 0,
  });
}

/**
 * Sends one signed request for the cluster's origin to `url` (a relayer's own address), with
 * the given headers and body: a test can send the same bytes to every relayer.
 */
function sendSigned(url: string, path: string, signed: { headers: Headers; body: string }) {
  return fetch(`${url}${path}`, { method: "POST", headers: signed.headers, body: signed.body });
}

async function signedPost(
  cluster: Cluster,
  account: { privateKey: string; accountId: string },
  path: string,
  payload: unknown,
) {
  const body = JSON.stringify(payload);
  const headers = await signRequest({
    key: await keyPairFromSeed(account.privateKey),
    method: "POST",
    path,
    body,
    audience: cluster.url,
    accountId: account.accountId,
  });
  return { headers: new Headers({ ...headers, "content-type": "application/json" }), body };
}

async function mcpClient(url: string, account: { privateKey: string; accountId: string }) {
  const client = new Client({ name: "multi-relayer-e2e", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/api/mcp`), {
      requestInit: {
        headers: {
          authorization: `Bearer ${account.privateKey}`,
          "x-svc-account-id": account.accountId,
        },
      },
    }),
  );
  return client;
}

Deno.test("three relayers on one database: recall across relayers, shared replay guard, MCP on each, revocation everywhere at once", async (t) => {
  await using cluster = await startCluster(3);
  const relayers = cluster.relayers.map((relayer) => relayer!);
  const account = await clusterAccount(cluster);
  const client = await clientFor(cluster, account);

  await t.step(
    "a memory remembered on one relayer is recallable on each of the others",
    async () => {
      const namespace = "across";
      for (let origin = 0; origin < relayers.length; origin++) {
        const text = `Relayer ${origin} heard that the lighthouse keeper paints boats crimson`;
        const signed = await signedPost(cluster, account, "/api/remember", { text, namespace });
        const accepted = await sendSigned(relayers[origin].url, "/api/remember", signed);
        assert.equal(accepted.status, 202, await accepted.clone().text());
        const { job_id } = await accepted.json();
        for (let other = 0; other < relayers.length; other++) {
          if (other === origin) continue;
          // Each recall goes to the other relayer's own address, signed for the public origin.
          const deadline = Date.now() + 15_000;
          let found: { id: string; text: string }[] = [];
          while (Date.now() < deadline) {
            const signed = await signedPost(cluster, account, "/api/recall", {
              query: text,
              namespace,
              limit: 5,
            });
            const response = await sendSigned(relayers[other].url, "/api/recall", signed);
            assert.equal(response.status, 200);
            found = (await response.json()).results.filter((r: { id: string }) => r.id === job_id);
            if (found.length) break;
            await sleep(50);
          }
          assert.equal(found.length, 1, `relayer ${other} recalls what relayer ${origin} took`);
          assert.equal(found[0].text, text);
        }
      }
    },
  );

  await t.step("a signed request accepted by one relayer is a replay for every other", async () => {
    let jobId = "";
    for (const path of ["/api/remember", "/api/recall"]) {
      const payload = path === "/api/recall"
        ? { query: "lighthouse keeper", namespace: "across" }
        : { text: "A replayed request must be stored once", namespace: "replay" };
      const signed = await signedPost(cluster, account, path, payload);
      const first = await sendSigned(relayers[0].url, path, signed);
      assert.ok(first.ok, `${path}: ${first.status}`);
      const answer = await first.json();
      if (path === "/api/remember") jobId = answer.job_id;
      for (const relayer of relayers) {
        const again = await sendSigned(relayer.url, path, signed);
        assert.equal(again.status, 409, `${path} sent again to ${relayer.url}`);
        assert.equal((await again.json()).code, "replayed_request");
      }
    }
    // The remember was stored once.
    assert.equal((await client.waitForJob(jobId)).status, "done");
    const page = await client.list({ namespace: "replay" });
    assert.deepEqual(page.memories.map((m) => m.text), ["A replayed request must be stored once"]);
  });

  await t.step(
    "the same texts remembered through every relayer at once are stored once",
    async () => {
      const namespace = "together";
      const texts = Array.from(
        { length: 20 },
        (_, i) => `Shared fact ${i}: the ferry leaves at ${i}`,
      );
      const bulks = await Promise.all(relayers.map(async (relayer) => {
        const signed = await signedPost(cluster, account, "/api/remember/bulk", {
          items: texts.map((text) => ({ text, namespace })),
        });
        const accepted = await sendSigned(relayer.url, "/api/remember/bulk", signed);
        assert.equal(accepted.status, 202, await accepted.clone().text());
        return (await accepted.json()).job_ids as string[];
      }));
      const jobs = await Promise.all(
        bulks.flat().map((id) => client.waitForJob(id)),
      );
      assert.deepEqual(new Set(jobs.map((job) => job.status)), new Set(["done"]));
      const page = await client.list({ namespace, limit: 100 });
      assert.deepEqual(page.memories.map((m) => m.text).sort(), [...texts].sort());
      // Each text's three jobs name one memory: a job that found it stored (`duplicate_of`), or
      // a bulk accepted after it was stored, whose job id is then the memory's own.
      const memories = Map.groupBy(jobs, (job) => job.duplicate_of ?? job.job_id);
      assert.deepEqual([...memories.values()].map((same) => same.length), Array(20).fill(3));
    },
  );

  await t.step("each relayer's MCP sidecar serves the tools", async () => {
    for (const relayer of relayers) {
      await waitForSidecar(relayer.url);
      const mcp = await mcpClient(relayer.url, account);
      try {
        const { tools } = await mcp.listTools();
        const names = tools.map((tool: { name: string }) => tool.name);
        for (const name of ["svc_remember", "svc_recall", "svc_analyze", "svc_restore"]) {
          assert.ok(names.includes(name), `${relayer.url} lists ${name}`);
        }
        const result = await mcp.callTool({
          name: "svc_recall",
          arguments: { query: "lighthouse keeper paints boats", namespace: "across" },
        });
        assert.ok(!result.isError, textOf(result));
        assert.match(
          textOf(result),
          /^1\. \[score [0-9.]+\] Relayer \d heard that the lighthouse/m,
        );
      } finally {
        await mcp.close();
      }
    }
  });

  await t.step(
    "a key removed with the CLI is refused by every relayer's very next request",
    async () => {
      const second = await svcCli(
        cluster.dataDir(0),
        ["key", "add", "--account", account.accountId, "--label", "to-revoke"],
        cluster.env,
      );
      const doomed = { privateKey: second.privateKey as string, accountId: account.accountId };
      // Every relayer knows the key (and caches its resolution) before it is removed.
      for (const relayer of relayers) {
        const signed = await signedPost(cluster, doomed, "/api/recall", { query: "boats" });
        const response = await sendSigned(relayer.url, "/api/recall", signed);
        assert.equal(response.status, 200, `${relayer.url} knows the new key`);
        await response.body?.cancel();
      }
      await svcCli(
        cluster.dataDir(0),
        ["key", "remove", "--account", account.accountId, "--public-key", second.publicKey],
        cluster.env,
      );
      for (const relayer of relayers) {
        const signed = await signedPost(cluster, doomed, "/api/recall", { query: "boats" });
        const response = await sendSigned(relayer.url, "/api/recall", signed);
        const body = await response.json();
        assert.equal(response.status, 401, `${relayer.url} refuses the removed key`);
        assert.equal(body.reason, "unknown_key");
      }
      // The account's other key still works everywhere.
      for (const relayer of relayers) {
        const signed = await signedPost(cluster, account, "/api/recall", { query: "boats" });
        const response = await sendSigned(relayer.url, "/api/recall", signed);
        assert.equal(response.status, 200);
        await response.body?.cancel();
      }
    },
  );
});
