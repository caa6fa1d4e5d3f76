/**
 * Revocation on the local ledger is immediate: a change made through another handle on the
 * ledger file (the sidecar's, the CLI's) is seen by the relayer's very next request, however
 * long `accountCacheMs` is.
 */
import assert from "node:assert/strict";
import { generateKeyPair } from "@svc/util/keys";
import { reasonOf, recallRequest, sharedLedger } from "./ledger_fixtures.ts";

const AN_HOUR = 3600_000;

Deno.test("revocation: a removed key is refused by the next request", async () => {
  await using shared = await sharedLedger();
  const relayer = await shared.relayer({ accountCacheMs: AN_HOUR });
  const recall = async () =>
    await relayer.send("POST", "/api/recall", await recallRequest(shared)).then(reasonOf);
  assert.equal(await recall(), "accepted");
  await shared.transact({
    kind: "remove_delegate_key",
    account_id: shared.accountId,
    public_key: shared.key.publicKey,
  });
  assert.equal(await recall(), "401 unknown_key");
});

Deno.test("revocation: a request whose body is held open is refused once its key is removed meanwhile", async () => {
  await using shared = await sharedLedger();
  let clock = Date.now();
  const relayer = await shared.relayer({ accountCacheMs: AN_HOUR, now: () => clock });
  /** A recall whose body arrives once `meanwhile` has run, after the headers were checked. */
  const heldOpen = async (meanwhile: () => Promise<void>) => {
    const { body, headers } = await recallRequest(shared);
    const [reading, sent] = [Promise.withResolvers<void>(), Promise.withResolvers<void>()];
    // Pulled only when read: by the relayer, once it has checked the headers.
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        reading.resolve();
        await sent.promise;
        controller.enqueue(new TextEncoder().encode(body as string));
        controller.close();
      },
    }, { highWaterMark: 0 });
    const answer = relayer.send("POST", "/api/recall", { body: stream, headers });
    await reading.promise;
    await meanwhile();
    sent.resolve();
    return await answer.then(reasonOf);
  };
  // Within a second of its headers, it is as if it had come before the removal.
  assert.equal(await heldOpen(() => Promise.resolve(void (clock += 500))), "accepted");
  const removed = await heldOpen(async () => {
    await shared.transact({
      kind: "remove_delegate_key",
      account_id: shared.accountId,
      public_key: shared.key.publicKey,
    });
    clock += 3000;
  });
  assert.equal(removed, "401 unknown_key");
});

Deno.test("revocation: a deactivated account is refused by the next request, and comes back", async () => {
  await using shared = await sharedLedger();
  const relayer = await shared.relayer({ accountCacheMs: AN_HOUR });
  const recall = async () =>
    await relayer.send("POST", "/api/recall", await recallRequest(shared)).then(reasonOf);
  assert.equal(await recall(), "accepted");
  await shared.transact({ kind: "deactivate_account", account_id: shared.accountId });
  assert.equal(await recall(), "403 forbidden");
  await shared.transact({ kind: "reactivate_account", account_id: shared.accountId });
  assert.equal(await recall(), "accepted");
});

Deno.test("revocation: a key past its expiry is refused; one before it is accepted", async () => {
  await using shared = await sharedLedger();
  const relayer = await shared.relayer({ accountCacheMs: AN_HOUR });
  const [expired, valid] = [await generateKeyPair(), await generateKeyPair()];
  for (const [key, offset] of [[expired, -1000], [valid, AN_HOUR]] as const) {
    await shared.transact({
      kind: "add_delegate_key",
      account_id: shared.accountId,
      public_key: key.publicKey,
      label: "temporary",
      expires_at: new Date(Date.now() + offset).toISOString(),
    });
  }
  const recall = async (key: typeof valid) =>
    await relayer.send("POST", "/api/recall", await recallRequest(shared, undefined, key))
      .then(reasonOf);
  assert.equal(await recall(expired), "401 expired_key");
  assert.equal(await recall(valid), "accepted");
});

Deno.test("revocation: with the cache warm from concurrent requests, every request after the removal is refused", async () => {
  await using shared = await sharedLedger();
  const relayer = await shared.relayer({ accountCacheMs: AN_HOUR });
  const recalls = async (n: number) =>
    await Promise.all(
      Array.from({ length: n }, async () =>
        await relayer.send("POST", "/api/recall", await recallRequest(shared)).then(reasonOf)),
    );
  assert.deepEqual(await recalls(20), Array(20).fill("accepted"));
  await shared.transact({
    kind: "remove_delegate_key",
    account_id: shared.accountId,
    public_key: shared.key.publicKey,
  });
  assert.deepEqual(await recalls(20), Array(20).fill("401 unknown_key"));
});
