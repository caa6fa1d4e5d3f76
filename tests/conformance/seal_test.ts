/**
 * The Seal cipher passes the Cipher conformance suite against three key servers (threshold 2)
 * that decide access by dev-inspecting `seal_approve` on a fake Sui network, where both owners
 * have accounts created by signed transactions.
 */
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { newDelegateKey, startSealSetup } from "../fixtures/seal/seal_setup.ts";
import { cipherSuite } from "../../src/testing/mod.ts";

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
