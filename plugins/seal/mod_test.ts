import assert from "node:assert/strict";
import { SvcError } from "../../src/errors.ts";
import { newDelegateKey, startSealSetup } from "../../tests/fixtures/seal/seal_setup.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

async function rejectsWith(promise: Promise<unknown>, code: string, pattern?: RegExp) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof SvcError, `expected an SvcError, got ${error}`);
    assert.equal(error.code, code, error.message);
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}

Deno.test("SealCipher: the owner's delegate decrypts with one key server down", async () => {
  await using setup = await startSealSetup();
  const account = await setup.createAccount();
  const cipher = await setup.openCipher();
  const sealed = await cipher.encrypt(account.address, enc("I am vegetarian"));
  const credentials = { delegatePrivateKey: account.delegateSeed };

  await setup.seal.servers[0].setDown("refused");
  assert.equal(
    dec(await cipher.decrypt(account.address, sealed, { credentials })),
    "I am vegetarian",
  );
  const fresh = await cipher.encrypt(account.address, enc("I live in Oslo"));
  await setup.seal.servers[0].setUp();
  await setup.seal.servers[1].setDown("unavailable");
  assert.equal(
    dec(await cipher.decrypt(account.address, fresh, { credentials })),
    "I live in Oslo",
  );
});
