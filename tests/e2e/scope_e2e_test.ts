/**
 * Scoped delegate keys end to end, in both modes, through the real relayer process (`main.ts`):
 * embedded, with keys added by `svc key add` to the local ledger; network, with keys added by
 * real transactions on the fake Sui node's `svc_account` module. In each, a read-only key
 * limited to namespace a reads there and nowhere else, cannot remember or erase; a key without
 * scope fields keeps full access; an expired key is refused at once, cached or not.
 */
import assert from "node:assert/strict";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { generateKeyPair } from "@svc/util/keys";
import { SvcClient } from "../../src/client/mod.ts";
import { SvcError } from "../../src/errors.ts";
import { startFakeSui } from "../fixtures/sui_network.ts";
import { installSvcAccount, SvcAccountWallet } from "../fixtures/svc_account_emulation.ts";
import { jobIdOf, startRelayer, svcCli } from "../relayer_process.ts";

const client = (baseUrl: string, privateKey: string, accountId: string) =>
  SvcClient.create({ baseUrl, privateKey, accountId, retries: 0 });

/** `call` is refused: 403 naming `scope` (and the namespace), or 401 with `reason`. */
async function refused(call: Promise<unknown>, scope: string, namespace?: string) {
  await assert.rejects(call, (error: unknown) => {
    assert.ok(error instanceof SvcError, String(error));
    if (scope === "expired_key") {
      assert.equal(error.status, 401);
      assert.equal(error.details.reason, "expired_key");
      return true;
    }
    assert.equal(error.status, 403, error.message);
    assert.deepEqual(
      [error.details.reason, error.details.scope, error.details.namespace],
      ["missing_scope", scope, namespace],
    );
    return true;
  });
}

/** A full-access key and a read-only key limited to namespace a, of the same account. */
async function checkScopes(full: SvcClient, reader: SvcClient) {
  const remember = async (text: string, namespace: string) => {
    const id = jobIdOf(await full.remember(text, { namespace }));
    assert.equal((await full.waitForJob(id)).status, "done");
    return id;
  };
  const inA = await remember("I keep bees in the garden", "a");
  const inB = await remember("My sister lives in Lisbon", "b");

  const found = await reader.recall("bees", { namespace: "a" });
  assert.deepEqual(found.results.map((r) => r.id), [inA]);
  assert.equal((await reader.get(inA)).text, "I keep bees in the garden");
  await refused(reader.recall("sister", { namespace: "b" }), "namespace", "b");
  // A memory of b is unknown to it, as an id that names nothing.
  await assert.rejects(reader.get(inB), (error: SvcError) => error.status === 404);
  await refused(reader.remember("I keep goats", { namespace: "a" }), "write");
  await refused(reader.forget(inA), "erase");

  const me = await reader.whoami();
  assert.equal(me.label, "reader");
  assert.deepEqual(me.scope, { namespaces: ["a"], operations: ["read"] });
  assert.equal(me.expires_at, null);
  // The key without scope fields: full access, everywhere.
  assert.deepEqual((await full.whoami()).scope, { namespaces: null, operations: null });
  assert.equal((await full.forget(inB)).memory_id, inB);
  assert.deepEqual((await full.recall("bees", { namespace: "a" })).results.map((r) => r.id), [
    inA,
  ]);
}

/** A key accepted now and refused from `expiresAt` on, while the relayer still caches it. */
async function checkExpiry(expiring: SvcClient, expiresAt: number) {
  assert.equal((await expiring.whoami()).expires_at, new Date(expiresAt).toISOString());
  await expiring.recall("anything", { namespace: "a" });
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 50));
  await refused(expiring.recall("anything", { namespace: "a" }), "expired_key");
}

Deno.test("scoped keys, embedded: svc key add's scope is enforced by the relayer process", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-scope-e2e-" });
  await using relayer = await startRelayer(dataDir, { SVC_EMBEDDER: "lexical", SVC_LLM: "none" });
  try {
    const { accountId } = await svcCli(dataDir, ["account", "create"]);
    const add = (...flags: string[]) =>
      svcCli(dataDir, ["key", "add", "--account", accountId, ...flags]);
    const full = await add("--label", "full");
    const reader = await add("--label", "reader", "--namespace", "a", "--read-only");
    assert.deepEqual([reader.namespaces, reader.operations], [["a"], ["read"]]);
    const lapsed = await add("--label", "lapsed", "--expires-at", "2020-01-01T00:00:00Z");
    // A date alone, as remember's --expires-at takes it: its midnight, UTC.
    const dated = await add("--label", "dated", "--expires-at", "2020-01-02");
    assert.equal(dated.expires_at, "2020-01-02T00:00:00.000Z");

    await checkScopes(
      await client(relayer.url, full.privateKey, accountId),
      await client(relayer.url, reader.privateKey, accountId),
    );
    await refused(
      (await client(relayer.url, lapsed.privateKey, accountId)).whoami(),
      "expired_key",
    );
    const expiring = await add("--label", "brief", "--expires", "5s");
    await checkExpiry(
      await client(relayer.url, expiring.privateKey, accountId),
      Date.parse(expiring.expires_at),
    );

    const listed = await svcCli(dataDir, ["key", "list", "--account", accountId]);
    const byLabel = Object.fromEntries(
      listed.keys.map((k: { label: string }) => [k.label, k]),
    );
    assert.deepEqual(
      [byLabel.full.namespaces, byLabel.full.operations, byLabel.full.expires_at],
      [null, null, null],
    );
    assert.deepEqual([byLabel.reader.namespaces, byLabel.reader.operations], [["a"], ["read"]]);
  } finally {
    await relayer.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("scoped keys, network: a scope added by a Sui transaction is enforced by the relayer process", async () => {
  await using sui = await startFakeSui();
  const ids = installSvcAccount(sui.network);
  const wallet = new SvcAccountWallet(sui, ids);
  const owner = Ed25519Keypair.generate();
  const accountId = await wallet.createAccount(owner);
  const [full, reader, lapsed, expiring] = await Promise.all(
    Array.from({ length: 4 }, () => generateKeyPair()),
  );
  await wallet.addDelegateKey(owner, accountId, full.publicKey, "full");
  await wallet.addDelegateKey(owner, accountId, reader.publicKey, "reader", {
    scope: { namespaces: ["a"], operations: ["read"] },
  });
  await wallet.addDelegateKey(owner, accountId, lapsed.publicKey, "lapsed", { expiresAt: 1000 });

  const dataDir = await Deno.makeTempDir({ prefix: "svc-scope-network-" });
  await using relayer = await startRelayer(dataDir, {
    SVC_CHAIN: "sui",
    SVC_SUI_RPC_URL: sui.url,
    SVC_PACKAGE_ID: ids.packageId,
    SVC_REGISTRY_ID: ids.registryId,
    SVC_EMBEDDER: "lexical",
    SVC_LLM: "none",
  });
  try {
    await checkScopes(
      await client(relayer.url, full.privateKey, accountId),
      await client(relayer.url, reader.privateKey, accountId),
    );
    await refused(
      (await client(relayer.url, lapsed.privateKey, accountId)).whoami(),
      "expired_key",
    );
    // Resolutions from Sui are cached for 60 s; the expiry is checked on every request.
    const expiresAt = Date.now() + 5000;
    await wallet.addDelegateKey(owner, accountId, expiring.publicKey, "brief", { expiresAt });
    await checkExpiry(await client(relayer.url, expiring.privateKey, accountId), expiresAt);
  } finally {
    await relayer.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
});
