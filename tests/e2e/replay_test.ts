/**
 * The relayer's replay guard: identical requests sent together are accepted once, and a claim
 * is durable once its request is answered, so a request answered before a SIGKILL is refused as
 * a replay by the next process.
 */
import assert from "node:assert/strict";
import { signRequest } from "../../src/auth/signing.ts";
import { BASE, startTestRelayer } from "../fixtures.ts";
import { freePort, newAccountClient, startRelayer } from "../relayer_process.ts";

Deno.test("replay: of identical signed requests sent together, exactly one is accepted", async () => {
  await using t = await startTestRelayer({ processJobs: false });
  const alice = await t.newCaller();
  for (const [method, path] of [["GET", "/api/whoami"], ["POST", "/api/recall"]] as const) {
    const payload = method === "POST" ? JSON.stringify({ query: "bees" }) : undefined;
    const headers = await signRequest({
      key: alice.key,
      method,
      path,
      body: payload,
      audience: BASE,
      accountId: alice.accountId,
    });
    if (payload) headers["content-type"] = "application/json";
    const statuses = await Promise.all(
      Array.from({ length: 25 }, async () => {
        const response = await t.relayer.handler(
          new Request(BASE + path, { method, headers, body: payload }),
        );
        await response.body?.cancel();
        return response.status;
      }),
    );
    assert.equal(statuses.filter((s) => s === 200).length, 1, `${path}: ${statuses}`);
    assert.equal(statuses.filter((s) => s === 409).length, 24, `${path}: ${statuses}`);
  }
});

Deno.test("replay: requests answered just before a SIGKILL are refused after the restart", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-replay-e2e-" });
  // The same address across the restart: version 2 signatures name it as their audience.
  const env = { SVC_PORT: String(freePort()) };
  let relayer = await startRelayer(dataDir, env, { processGroup: true });
  try {
    const { privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
    const signed = async (path: string, body?: string) => {
      const headers = await signRequest({
        key: privateKey,
        method: body === undefined ? "GET" : "POST",
        path,
        body,
        audience: relayer.url,
        accountId,
      });
      if (body !== undefined) headers["content-type"] = "application/json";
      return { path, body, headers };
    };
    type Signed = Awaited<ReturnType<typeof signed>>;
    const send = async ({ path, body, headers }: Signed) => {
      const response = await fetch(relayer.url + path, {
        method: body === undefined ? "GET" : "POST",
        headers,
        body,
      });
      const json = await response.json();
      return response.ok ? "accepted" : `${response.status} ${json.code}`;
    };
    // Sent together, so that their claims are written in group commits (and fewer than the 30
    // failed authentications a minute that rate-limit an address, which the replays count as).
    // Whatever writes its claim: before the route runs, while it runs (whoami, recall), or in
    // the commit that accepts its jobs (remember, bulk).
    const requests = await Promise.all([
      ...Array.from({ length: 10 }, () => signed("/api/whoami")),
      ...Array.from(
        { length: 8 },
        (_, i) => signed("/api/recall", JSON.stringify({ query: `bees ${i}` })),
      ),
      ...Array.from(
        { length: 4 },
        (_, i) => signed("/api/remember", JSON.stringify({ text: `I keep ${i + 2} hives` })),
      ),
      ...Array.from({ length: 2 }, (_, i) =>
        signed(
          "/api/remember/bulk",
          JSON.stringify({ items: [{ text: `My bees ${i} swarmed` }, { text: `Wasps ${i}` }] }),
        )),
    ]);
    assert.deepEqual(
      await Promise.all(requests.map(send)),
      Array(requests.length).fill("accepted"),
    );
    // Killed the moment the last answer arrived: nothing had time to be written afterwards.
    await relayer.kill();
    relayer = await startRelayer(dataDir, env, { processGroup: true });
    assert.deepEqual(
      await Promise.all(requests.map(send)),
      Array(requests.length).fill("409 replayed_request"),
    );
    // A request signed afresh is accepted by the new process, once.
    const fresh = await signed("/api/whoami");
    assert.equal(await send(fresh), "accepted");
    assert.equal(await send(fresh), "409 replayed_request");
  } finally {
    await relayer.kill();
    await Deno.remove(dataDir, { recursive: true });
  }
});
