/**
 * An operator-blind namespace whose content key is also sealed with Seal (three key servers on a
 * fake Sui network, threshold 2): a key of the account opens it without being let in, a key the
 * chain no longer lists cannot, and erasing the namespace destroys the content key's key.
 */
import assert from "node:assert/strict";
import { BlindMemory } from "../src/client/blind.ts";
import { SvcError } from "../src/errors.ts";
import { keyPairFromSeed } from "@svc/util/keys";
import { LexicalEmbedder } from "../plugins/lexical_embedder/mod.ts";
import { newDelegateKey, startSealSetup } from "./fixtures/seal/seal_setup.ts";
import { BASE, type Caller, jsonOf, startTestRelayer } from "./fixtures.ts";
import type { Cipher } from "../src/backends/types.ts";

Deno.test("a content key sealed with Seal opens the namespace for every key the chain lists, until erased", async () => {
  await using setup = await startSealSetup({ servers: 3, threshold: 2 });
  const account = await setup.createAccount();
  const [phone, tablet] = [newDelegateKey(), newDelegateKey()];
  for (const key of [phone, tablet]) {
    await setup.wallet.addDelegateKey(account.owner, account.accountId, key.publicKey, "device");
  }
  await using t = await startTestRelayer();
  const keys = [account.delegatePublicKey, phone.publicKey, tablet.publicKey];
  t.directory.add({ accountId: account.accountId, owner: account.address, active: true }, keys);
  const seal = await setup.openCipher();
  const device = (seed: string, cipher?: Cipher) =>
    BlindMemory.open({
      baseUrl: BASE,
      privateKey: seed,
      accountId: account.accountId,
      embedder: new LexicalEmbedder(),
      namespace: "private",
      retries: 0,
      seal: cipher,
      fetch: (input, init) => t.relayer.handler(new Request(input, init)),
    });
  const caller = async (seed: string): Promise<Caller> => ({
    key: await keyPairFromSeed(seed),
    owner: account.address,
    accountId: account.accountId,
    ownerKey: await keyPairFromSeed(account.ownerSeed),
  });

  const laptop = await device(account.delegateSeed, seal);
  await laptop.enable();
  await laptop.remember([{ text: "My bank PIN hint is the year we met" }]);

  // The phone was never let in: Seal gives it the content key, and it lets itself in.
  const onPhone = await device(phone.seed, seal);
  assert.equal((await onPhone.recall("bank PIN hint")).results[0]?.text.includes("PIN"), true);
  const phoneHead = await jsonOf(
    await t.signed(await caller(phone.seed), "GET", "/api/blind?namespace=private"),
  );
  assert.equal(typeof phoneHead.wrapped, "string");
  assert.equal(phoneHead.sealed_key, undefined);

  // Without the cipher, a key not let in is told how to get in.
  await assert.rejects(
    (await device(tablet.seed)).sync(),
    (error: SvcError) =>
      error.code === "forbidden" && /cipher that sealed its key/.test(error.message),
  );
  const tabletHead = await jsonOf(
    await t.signed(await caller(tablet.seed), "GET", "/api/blind?namespace=private"),
  );
  const sealedCopy = Uint8Array.fromBase64(tabletHead.sealed_key);

  // A key the account removed on chain gets nothing from Seal, though the relayer still lists it.
  await setup.wallet.removeDelegateKey(account.owner, account.accountId, tablet.publicKey);
  await assert.rejects(
    (await device(tablet.seed, seal)).sync(),
    (error: SvcError) => error.code === "forbidden" && !/let it in/.test(error.message),
  );

  // Erasing the namespace destroys the content key's key: a copy of it opens for nobody.
  await laptop.forgetAll();
  await assert.rejects(
    seal.decrypt(account.address, sealedCopy, {
      credentials: { delegatePrivateKey: account.delegateSeed },
    }),
    (error: SvcError) => error.code === "forbidden",
  );
});
