/**
 * Network mode end to end: the real relayer (`main.ts`, with its sidecar) runs with
 * `SVC_CHAIN=sui SVC_CIPHER=seal SVC_BLOB_STORE=walrus` against local servers that speak the
 * protocols: a Sui JSON-RPC node with the `svc_account` and Walrus packages, three Seal key
 * servers (threshold 2) and a Walrus publisher with two aggregators. Erasing a memory there
 * destroys its key on chain.
 */
import assert from "node:assert/strict";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { Transaction } from "@mysten/sui/transactions";
import { SuiJsonRpcClient } from "@mysten/sui/jsonRpc";
import { SvcClient } from "../../src/client/mod.ts";
import { addressOf } from "@svc/util/keys";
import { signRequest } from "../../src/auth/signing.ts";
import { SealCipher } from "../../plugins/seal/mod.ts";
import { SvcError } from "../../src/errors.ts";
import { accountType, createAccountCall } from "../../plugins/sui/mod.ts";
import { startLocalNetwork } from "../fixtures/local_network.ts";
import { newDelegateKey } from "../fixtures/seal/seal_setup.ts";
import { jobIdOf, removeIndex, startRelayer, svcCli, waitForSidecar } from "../relayer_process.ts";
import { testDatabase } from "../../plugins/postgres/testing/test_server.ts";
import { LexicalEmbedder } from "../../plugins/lexical_embedder/mod.ts";

/** The local network, with a relayer's settings for the tests: no model, keys read again often. */
async function startNetwork() {
  const net = await startLocalNetwork();
  Object.assign(net.env, {
    SVC_EMBEDDER: "lexical",
    SVC_LLM: "none",
    SVC_ACCOUNT_CACHE_SECONDS: "1",
  });
  return net;
}

Deno.test({
  name: "network mode: remember, recall, restore, revocation and an aggregator outage",
  async fn() {
    await using net = await startNetwork();
    const owner = Ed25519Keypair.generate();
    const accountId = await net.wallet.createAccount(owner);
    const delegate = newDelegateKey();
    await net.wallet.addDelegateKey(owner, accountId, delegate.publicKey, "laptop");
    const dataDir = await Deno.makeTempDir({ prefix: "svc-network-e2e-" });
    const open = (sendDelegateKey: boolean) =>
      SvcClient.create({
        baseUrl: relayer.url,
        privateKey: delegate.seed,
        accountId,
        sendDelegateKey,
        retries: 0,
      });

    let relayer = await startRelayer(dataDir, net.env);
    try {
      const health = await (await fetch(`${relayer.url}/health`)).json();
      assert.equal(health.mode, "network");
      let client = await open(true);
      assert.equal((await client.whoami()).owner, owner.toSuiAddress());

      // Remember: sealed with Seal, stored on Walrus, its metadata on the blob object.
      const job_id = jobIdOf(
        await client.remember("I am vegetarian and I adore puppies", { namespace: "e2e" }),
      );
      const job = await client.waitForJob(job_id);
      assert.equal(job.status, "done");
      const blob = net.walrus.blobs.get(job.blob_id!);
      assert.ok(blob, "the blob is on Walrus");
      assert.ok(!new TextDecoder().decode(blob.bytes).includes("vegetarian"));
      const blobObjects = net.sui.network.ownedObjects(net.operator.toSuiAddress())
        .filter((o) => o.type === net.chain.blobType);
      assert.equal(blobObjects.length, 1);

      // Recall decrypts through the caller's own delegate key; without it the relayer has none.
      const { results } = await client.recall("am I vegetarian?", { namespace: "e2e" });
      assert.equal(results[0]?.text, "I am vegetarian and I adore puppies");
      const viaCli = await svcCli(dataDir, [
        "recall",
        "am I vegetarian?",
        ...["--relayer", relayer.url, "--key", delegate.seed, "--account", accountId],
        ...["--namespace", "e2e"],
      ]);
      assert.equal(viaCli.results[0]?.text, "I am vegetarian and I adore puppies");
      const keyless = await open(false);
      await assert.rejects(
        () => keyless.recall("am I vegetarian?", { namespace: "e2e" }),
        (error: SvcError) => error.status === 403 && /x-delegate-key/.test(error.message),
      );
      // The same text again is a duplicate, shown with its memory when the key is sent, and named
      // alone when it is not (a write needs none), never refused.
      const repeated = await client.remember("i am vegetarian and i adore puppies", {
        namespace: "e2e",
      });
      assert.deepEqual(
        repeated.status === "duplicate" && [repeated.duplicate_of, repeated.memory?.text],
        [job_id, "I am vegetarian and I adore puppies"],
      );
      const keylessAgain = await (await open(false)).remember(
        "I am vegetarian and I adore puppies",
        {
          namespace: "e2e",
        },
      );
      assert.deepEqual(keylessAgain, { status: "duplicate", duplicate_of: job_id, job_id });
      // So does an export: refused before it starts, not cut short after a 200.
      await assert.rejects(
        async () => {
          for await (const _ of keyless.export({ namespace: "e2e" })) { /* refused first */ }
        },
        (error: SvcError) => error.status === 403 && /x-delegate-key/.test(error.message),
      );

      // Restore after wiping the index: the blobs are listed from the chain and read back.
      await relayer.stop();
      await removeIndex(dataDir);
      await Deno.remove(`${dataDir}/walrus_cache`, { recursive: true });
      relayer = await startRelayer(dataDir, net.env);
      client = await open(true);
      assert.deepEqual((await client.recall("am I vegetarian?", { namespace: "e2e" })).results, []);
      // The first aggregator is down and the local cache is gone: the second one serves.
      await net.walrus.aggregators[0].setDown("refused");
      const served = net.walrus.aggregators[1].count("GET", "/v1/blobs/");
      const restored = await client.restore("e2e");
      assert.deepEqual([restored.restored, restored.skipped, restored.total], [1, 0, 1]);
      assert.ok(net.walrus.aggregators[1].count("GET", "/v1/blobs/") > served);
      const again = await client.recall("puppies", { namespace: "e2e" });
      assert.equal(again.results[0]?.text, "I am vegetarian and I adore puppies");

      // The owner erases that memory on chain, from a wallet: a key that reads the namespace
      // afresh is refused its key alone, and recalls the rest.
      const cello = jobIdOf(await client.remember("I play the cello", { namespace: "e2e" }));
      await client.waitForJob(cello);
      await net.wallet.eraseMemories(owner, accountId, [
        Uint8Array.fromHex(job_id.replaceAll("-", "")),
      ]);
      const phone = newDelegateKey();
      await net.wallet.addDelegateKey(owner, accountId, phone.publicKey, "phone");
      const fresh = await SvcClient.create({
        baseUrl: relayer.url,
        privateKey: phone.seed,
        accountId,
        sendDelegateKey: true,
        retries: 0,
      });
      const rest = await fresh.recall("puppies or cello", { namespace: "e2e", minScore: 0 });
      assert.deepEqual(rest.results.map((r) => r.text), ["I play the cello"]);

      // Sponsored transactions run through the relayer's /sponsor routes on Sui.
      await waitForSidecar(relayer.url);
      const newcomer = Ed25519Keypair.generate();
      const rpc = new SuiJsonRpcClient({ url: net.sui.url, network: "localnet" });
      const tx = new Transaction();
      tx.setSender(newcomer.toSuiAddress());
      createAccountCall(tx, net.ids);
      const kind = await tx.build({ client: rpc, onlyTransactionKind: true });
      const sponsored = await (await fetch(`${relayer.url}/sponsor`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          transactionKind: kind.toBase64(),
          sender: newcomer.toSuiAddress(),
        }),
      })).json();
      const { signature } = await newcomer.signTransaction(Uint8Array.fromBase64(sponsored.bytes));
      const executed = await (await fetch(`${relayer.url}/sponsor/execute`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ digest: sponsored.digest, signature }),
      })).json();
      const created = net.sui.network.getObject(executed.effects.account_id)!;
      assert.equal(created.type, accountType(net.ids.packageId));
      assert.equal(created.fields.owner, newcomer.toSuiAddress());

      // A key removed from the account stops working (the cache holds results for 1 s here).
      await net.wallet.removeDelegateKey(owner, accountId, delegate.publicKey);
      await new Promise((r) => setTimeout(r, 1200));
      await assert.rejects(
        () => client.recall("am I vegetarian?", { namespace: "e2e" }),
        (error: SvcError) => error.status === 401,
      );
    } finally {
      await relayer.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "network mode: a relayer without a sponsor says so at start",
  async fn() {
    await using net = await startNetwork();
    const { SVC_SPONSOR_PRIVATE_KEY: _, ...unpaid } = net.env;
    // (Seal erases need the sponsor too: the local cipher here.)
    const env = { ...unpaid, SVC_CIPHER: "local" };
    const dataDir = await Deno.makeTempDir({ prefix: "svc-network-unpaid-" });
    const relayer = await startRelayer(dataDir, env);
    try {
      // Said before the sidecar starts.
      await waitForSidecar(relayer.url);
      assert.match(relayer.log(), /no SVC_SPONSOR_PRIVATE_KEY: \/sponsor answers 501/);
    } finally {
      await relayer.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "network mode: DELETE erases on chain; no key server releases the memory's key again",
  async fn() {
    await using net = await startNetwork();
    const owner = Ed25519Keypair.generate();
    const accountId = await net.wallet.createAccount(owner);
    const delegate = newDelegateKey();
    await net.wallet.addDelegateKey(owner, accountId, delegate.publicKey, "laptop");
    const dataDir = await Deno.makeTempDir({ prefix: "svc-network-erase-" });
    const relayer = await startRelayer(dataDir, net.env);
    try {
      await waitForSidecar(relayer.url); // its gas station pays for the erase
      const client = await SvcClient.create({
        baseUrl: relayer.url,
        privateKey: delegate.seed,
        accountId,
        sendDelegateKey: true,
        retries: 0,
      });
      const job_id = jobIdOf(await client.remember("My locker code is 4711", { namespace: "e2e" }));
      const job = await client.waitForJob(job_id);
      assert.equal(job.status, "done");
      const copy = net.walrus.blobs.get(job.blob_id!)!.bytes.slice(); // a replica, a backup

      // Walrus blobs are public: another account stores a copy as its own memory, then erases
      // it. Only its own Blob object goes; the memory it copied stays readable.
      const bob = Ed25519Keypair.generate();
      const bobAccount = await net.wallet.createAccount(bob);
      const bobKey = newDelegateKey();
      await net.wallet.addDelegateKey(bob, bobAccount, bobKey.publicKey, "bob");
      const bobClient = await SvcClient.create({
        baseUrl: relayer.url,
        privateKey: bobKey.seed,
        accountId: bobAccount,
        sendDelegateKey: true,
        retries: 0,
      });
      const { dimensions } = await LexicalEmbedder.open();
      const copied = await bobClient.rememberManual(copy, Array(dimensions).fill(0.5));
      assert.equal(copied.blob_id, job.blob_id);
      const objects = () => net.chain.blobObjects(net.operator.toSuiAddress()).length;
      assert.equal(objects(), 2);
      await bobClient.forget(copied.id);
      assert.equal(objects(), 1);
      assert.equal((await client.get(job_id)).text, "My locker code is 4711");

      // List, get and update work as in embedded mode (Seal decrypts with the caller's key).
      const parked = jobIdOf(await client.remember("I park in spot B12", { namespace: "e2e" }));
      await client.waitForJob(parked);
      const texts = async () =>
        (await client.list({ namespace: "e2e" })).memories.map((m) => m.text);
      assert.deepEqual(await texts(), ["I park in spot B12", "My locker code is 4711"]);
      const got = await client.get(job_id);
      assert.equal(got.text, "My locker code is 4711");
      // Provenance: the delegate key's address and its label on chain.
      assert.deepEqual(
        { address: got.remembered_by?.address, label: got.remembered_by?.label },
        { address: addressOf(delegate.publicKey), label: "laptop" },
      );
      const update = await client.update(parked, { text: "I park in spot C7" });
      assert.equal((await client.waitForJob(update.job_id)).status, "done");
      assert.deepEqual(await texts(), ["I park in spot C7", "My locker code is 4711"]);
      await assert.rejects(client.get(parked), (error: SvcError) => error.code === "not_found");
      const erase = async (withKey: boolean) => {
        const path = `/api/memories/${job_id}?namespace=e2e`;
        const headers = new Headers(
          await signRequest({ key: delegate.seed, method: "DELETE", path, audience: relayer.url }),
        );
        if (withKey) headers.set("x-delegate-key", delegate.seed);
        const response = await fetch(relayer.url + path, { method: "DELETE", headers });
        return { status: response.status, body: await response.json() };
      };

      // Without the caller's key nothing can be signed on chain: refused, nothing erased.
      const refused = await erase(false);
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.match(refused.body.error, /x-delegate-key/);
      const lockers = async () =>
        (await client.recall("locker", { namespace: "e2e" })).results.filter((r) =>
          r.id === job_id
        );
      assert.equal((await lockers()).length, 1);
      // The access log names the key and the memory the recall returned, in network mode too.
      const { entries } = await client.accessLog({ op: "recall", memory: job_id });
      assert.ok(entries.length >= 1);
      assert.deepEqual(entries[0].key, { address: addressOf(delegate.publicKey), label: "laptop" });
      assert.equal(entries[0].namespace, "e2e");

      const erased = await erase(true);
      assert.equal(erased.status, 200, JSON.stringify(erased.body));
      assert.equal(erased.body.memory_id, job_id);
      const table = net.sui.network.getObject(accountId)!.fields.erased as {
        fields: { size: string };
      };
      assert.equal(table.fields.size, "1", "the account's erased set holds the memory");
      assert.deepEqual(await lockers(), []);
      // Another relayer's cipher, on the same chain, with the same delegate key: refused.
      const outsider = await SealCipher.open({
        rpcUrl: net.sui.url,
        packageId: net.ids.packageId,
        registryId: net.ids.registryId,
        keyServers: net.seal.serverConfigs,
        threshold: 2,
      });
      await assert.rejects(
        outsider.decrypt(owner.toSuiAddress(), copy, {
          credentials: { delegatePrivateKey: delegate.seed },
        }),
        (error: unknown) => error instanceof SvcError && error.code === "forbidden",
      );
    } finally {
      await relayer.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "network mode: svc export (Seal decrypts with the caller's key), erase, svc import back",
  async fn() {
    await using net = await startNetwork();
    const owner = Ed25519Keypair.generate();
    const accountId = await net.wallet.createAccount(owner);
    const delegate = newDelegateKey();
    await net.wallet.addDelegateKey(owner, accountId, delegate.publicKey, "laptop");
    const dataDir = await Deno.makeTempDir({ prefix: "svc-network-export-" });
    const relayer = await startRelayer(dataDir, net.env);
    try {
      await waitForSidecar(relayer.url); // its gas station pays for the erase
      const client = await SvcClient.create({
        baseUrl: relayer.url,
        privateKey: delegate.seed,
        accountId,
        sendDelegateKey: true,
        retries: 0,
      });
      const facts: [string, string[]][] = [["I am vegetarian", ["diet"]], ["I keep bees", [
        "hobby",
      ]]];
      for (const [text, tags] of facts) {
        const job = jobIdOf(await client.remember(text, { namespace: "e2e", tags }));
        assert.equal((await client.waitForJob(job)).status, "done");
      }
      const shown = async () =>
        (await client.list({ namespace: "e2e" })).memories.map((m) => [m.text, m.tags]);
      const before = await shown();
      const env = {
        SVC_SERVER_URL: relayer.url,
        SVC_DELEGATE_KEY: delegate.seed,
        SVC_ACCOUNT_ID: accountId,
        SVC_EXPORT_PASSPHRASE: "network mode export passphrase",
      };
      const file = `${dataDir}/e2e.svc`;
      const saved = await svcCli(dataDir, ["export", "--namespace", "e2e", "-o", file], env);
      assert.equal(saved.memories, 2);
      assert.equal((await client.forgetNamespace("e2e")).erased, 2);
      assert.deepEqual(await shown(), []);
      const imported = await svcCli(dataDir, ["import", file, "--wait"], env);
      assert.deepEqual([imported.imported, imported.failed, imported.failed_jobs], [2, [], 0]);
      assert.deepEqual(await shown(), before);
    } finally {
      await relayer.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "network mode on PostgreSQL: two relayers share Sui accounts, Seal and Walrus unchanged",
  async fn() {
    await using net = await startNetwork();
    await using db = await testDatabase();
    const owner = Ed25519Keypair.generate();
    const accountId = await net.wallet.createAccount(owner);
    const delegate = newDelegateKey();
    await net.wallet.addDelegateKey(owner, accountId, delegate.publicKey, "laptop");
    const env = {
      ...net.env,
      SVC_STORE: "postgres",
      SVC_DATABASE_URL: db.url,
      SVC_DATABASE_POOL: "3",
      SVC_MASTER_KEY: "c3".repeat(32),
    };
    const dirs = [await Deno.makeTempDir(), await Deno.makeTempDir()];
    const relayers = [];
    for (const dir of dirs) relayers.push(await startRelayer(dir, env));
    try {
      const [a, b] = await Promise.all(relayers.map((relayer) =>
        SvcClient.create({
          baseUrl: relayer.url,
          privateKey: delegate.seed,
          accountId,
          sendDelegateKey: true,
          retries: 0,
        })
      ));
      const health = await a.health();
      assert.deepEqual(
        [health.backends.chain, health.backends.cipher, health.backends.blobStore],
        ["sui", "seal", "walrus"],
      );
      // Remembered through A: the blob on Walrus, the job and the index in the database.
      const job = await a.waitForJob(jobIdOf(await a.remember("My locker code is 4711")));
      assert.equal(job.status, "done");
      assert.ok(net.walrus.blobs.get(job.blob_id!), "the ciphertext is on Walrus");
      // Recalled and read through B, which decrypts with Seal.
      const found = await b.recall("locker code");
      assert.deepEqual(found.results.map((r) => r.text), ["My locker code is 4711"]);
      assert.equal((await b.get(job.memory_id!)).text, "My locker code is 4711");
    } finally {
      for (const relayer of relayers) await relayer.stop();
      for (const dir of dirs) await Deno.remove(dir, { recursive: true });
    }
  },
});
