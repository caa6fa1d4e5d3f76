/**
 * The Seal cipher passes the Cipher conformance suite against three key servers (threshold 2)
 * that decide access by dev-inspecting `seal_approve` on a fake Sui network, where both owners
 * have accounts created by signed transactions; and the erase contract, on chain.
 */
import assert from "node:assert/strict";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { newDelegateKey, startSealSetup } from "../fixtures/seal/seal_setup.ts";
import { cipherSuite } from "../../src/testing/mod.ts";
import { SvcError } from "../../src/errors.ts";
import { timeOrderedId } from "../../src/ids.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

const first = Ed25519Keypair.generate();
const second = Ed25519Keypair.generate();
const delegate = newDelegateKey();

cipherSuite(
  "SealCipher (3 key servers, threshold 2)",
  async () => {
    const setup = await startSealSetup({ servers: 3, threshold: 2, verifyKeyServers: true });
    try {
      await setup.createAccount({ owner: first, delegate });
      await setup.createAccount({ owner: second });
      const cipher = await setup.openCipher();
      return Object.assign(cipher, { [Symbol.asyncDispose]: () => setup[Symbol.asyncDispose]() });
    } catch (error) {
      await setup[Symbol.asyncDispose]();
      throw error;
    }
  },
  {
    owners: [first.toSuiAddress(), second.toSuiAddress()],
    decryptOptions: { credentials: { delegatePrivateKey: delegate.seed } },
  },
);

/**
 * The erase contract for Seal: once `erase` resolves, a copy of the memory's ciphertext taken
 * before no longer decrypts through any key (the key servers refuse its identity), while the
 * owner's other memories do; unknown ids and a second erase are fine; an abort is respected.
 */
Deno.test("SealCipher (3 key servers, threshold 2): erase makes a memory unreadable to every key", async () => {
  await using setup = await startSealSetup({ servers: 3, threshold: 2 });
  const account = await setup.createAccount();
  const other = newDelegateKey();
  await setup.wallet.addDelegateKey(account.owner, account.accountId, other.publicKey, "other");
  const cipher = await setup.openCipher();
  const credentials = { delegatePrivateKey: account.delegateSeed };
  const [gone, kept] = [timeOrderedId(), timeOrderedId()];
  const sealedGone = await cipher.encrypt(account.address, enc("I am vegetarian"), {
    memoryId: gone,
  });
  const sealedKept = await cipher.encrypt(account.address, enc("I live in Oslo"), {
    memoryId: kept,
  });
  const unbound = await cipher.encrypt(account.address, enc("no memory id"));
  const copy = sealedGone.slice();
  assert.equal(
    dec(await cipher.decrypt(account.address, sealedGone, { credentials })),
    "I am vegetarian",
  );

  await cipher.erase(account.address, [gone], { credentials });
  const keys = [account.delegateSeed, other.seed, account.ownerSeed];
  for (
    const [label, reader] of [["the same cipher", cipher], [
      "a fresh one",
      await setup.openCipher(),
    ]] as const
  ) {
    for (const key of keys) {
      const error = await reader.decrypt(account.address, copy, {
        credentials: { delegatePrivateKey: key },
      }).catch((e) => e);
      assert.ok(error instanceof SvcError, `${label}: ${error}`);
      assert.equal(error.code, "forbidden", `${label}: ${error.message}`);
      assert.equal(
        dec(
          await reader.decrypt(account.address, sealedKept, {
            credentials: { delegatePrivateKey: key },
          }),
        ),
        "I live in Oslo",
      );
    }
    assert.equal(
      dec(await reader.decrypt(account.address, unbound, { credentials })),
      "no memory id",
    );
  }

  // Unknown ids, an id erased already, and nothing at all: fine.
  await cipher.erase(account.address, [gone, timeOrderedId()], { credentials });
  await cipher.erase(account.address, [], { credentials });
  // An aborted erase is refused before anything is sent, and erases nothing.
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(
    cipher.erase(account.address, [kept], { credentials, signal: controller.signal }),
    (error) => error === controller.signal.reason,
  );
  assert.equal(
    dec(await cipher.decrypt(account.address, sealedKept, { credentials })),
    "I live in Oslo",
  );
  // Erasing needs the caller's key: it signs the transaction.
  await assert.rejects(cipher.erase(account.address, [kept]), (error: unknown) => {
    assert.ok(error instanceof SvcError && error.code === "bad_request", String(error));
    assert.match(error.message, /x-delegate-key/);
    return true;
  });
});
