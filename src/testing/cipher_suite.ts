/**
 * The Cipher conformance suite: a round trip that is randomised, bound to the owner (and to the
 * memory asked for) and tamper-evident; aborted calls refused; and erase, which destroys a
 * memory's key so that no copy of its ciphertext, made before or after, decrypts again.
 */
import assert from "node:assert/strict";
import type { Cipher } from "../backends/types.ts";
import { SvcError } from "../errors.ts";
import { refusesAborted } from "./refuses_aborted.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/**
 * Registers the cipher tests, for the fresh ciphers `open` makes. `options.owners`: two
 * distinct owners the cipher accepts (default `"o1"`, `"o2"`; Seal needs Sui addresses);
 * `options.decryptOptions`: passed to every decrypt (e.g. Seal's delegate key). A cipher with
 * `Symbol.asyncDispose` is disposed after its test.
 */
export function cipherSuite(
  name: string,
  open: () => Promise<Cipher & Partial<AsyncDisposable>>,
  options: {
    owners?: [string, string];
    decryptOptions?: { credentials?: { delegatePrivateKey?: string } };
  } = {},
) {
  const [o1, o2] = options.owners ?? ["o1", "o2"];
  const withCredentials = options.decryptOptions ?? {};
  Deno.test(`${name}: round trip, randomised, bound to the owner, tamper-evident`, async () => {
    const cipher = await open();
    await using _ = { [Symbol.asyncDispose]: async () => await cipher[Symbol.asyncDispose]?.() };
    const decrypt = (owner: string, bytes: Uint8Array<ArrayBuffer>) =>
      cipher.decrypt(owner, bytes, withCredentials);
    const a = await cipher.encrypt(o1, enc("I am vegetarian"));
    const b = await cipher.encrypt(o1, enc("I am vegetarian"));
    assert.notDeepEqual(a, b);
    assert.equal(new TextDecoder().decode(await decrypt(o1, a)), "I am vegetarian");
    assert.ok(!new TextDecoder().decode(a).includes("vegetarian"));
    await assert.rejects(() => decrypt(o2, a), SvcError);
    for (const at of [0, 5, 40, 70, a.length - 1].filter((at) => at < a.length)) {
      const tampered = a.slice();
      tampered[at] ^= 1;
      await assert.rejects(() => decrypt(o1, tampered), SvcError, `byte ${at}`);
    }
    await assert.rejects(() => decrypt(o1, a.slice(0, 20)), SvcError);
    assert.deepEqual(
      await decrypt(o1, await cipher.encrypt(o1, new Uint8Array())),
      new Uint8Array(),
    );
  });

  Deno.test(`${name}: a ciphertext asked for as another memory is refused`, async () => {
    const cipher = await open();
    await using _ = { [Symbol.asyncDispose]: async () => await cipher[Symbol.asyncDispose]?.() };
    const decrypt = (bytes: Uint8Array<ArrayBuffer>, memoryId?: string) =>
      cipher.decrypt(o1, bytes, { ...withCredentials, memoryId });
    const text = async (bytes: Uint8Array<ArrayBuffer>, memoryId?: string) =>
      new TextDecoder().decode(await decrypt(bytes, memoryId));
    const [idA, idB] = [crypto.randomUUID(), crypto.randomUUID()];
    const a = await cipher.encrypt(o1, enc("I am vegetarian"), { memoryId: idA });
    const b = await cipher.encrypt(o1, enc("I live in Lyon"), { memoryId: idB });
    assert.equal(await text(a, idA), "I am vegetarian");
    assert.equal(await text(b), "I live in Lyon", "no memory expected: any of the owner's");
    await assert.rejects(() => decrypt(b, idA), (error: unknown) => {
      assert.ok(error instanceof SvcError);
      assert.equal(error.code, "forbidden");
      assert.equal(error.details.reason, "mismatch");
      return true;
    });
    await assert.rejects(
      () => cipher.decrypt(o2, a, { ...withCredentials, memoryId: idA }),
      SvcError,
      "another owner's",
    );
    const unbound = await cipher.encrypt(o1, enc("I like tea"));
    assert.equal(await text(unbound), "I like tea", "no memory id, none expected");
  });

  Deno.test(`${name}: an aborted signal is refused`, async () => {
    const cipher = await open();
    await using _ = { [Symbol.asyncDispose]: async () => await cipher[Symbol.asyncDispose]?.() };
    const sealed = await cipher.encrypt(o1, enc("I am vegetarian"));
    await refusesAborted((o) => cipher.encrypt(o1, enc("I am vegetarian"), o), "encrypt");
    await refusesAborted(
      (o) => cipher.decrypt(o1, sealed, { ...withCredentials, ...o }),
      "decrypt",
    );
    const memoryId = crypto.randomUUID();
    const erasable = await cipher.encrypt(o1, enc("I run"), { memoryId });
    await refusesAborted(
      (o) => cipher.encrypt(o1, enc("I run"), { memoryId: crypto.randomUUID(), ...o }),
      "encrypt with a memory id",
    );
    await refusesAborted(
      (o) => cipher.erase(o1, [memoryId], { ...withCredentials, ...o }),
      "erase",
    );
    assert.equal(
      new TextDecoder().decode(await cipher.decrypt(o1, erasable, withCredentials)),
      "I run",
      "nothing was erased",
    );
  });

  Deno.test(`${name}: erase destroys a memory's key, copies of its ciphertext included`, async () => {
    const cipher = await open();
    await using _ = { [Symbol.asyncDispose]: async () => await cipher[Symbol.asyncDispose]?.() };
    const text = async (bytes: Uint8Array<ArrayBuffer>) =>
      new TextDecoder().decode(await cipher.decrypt(o1, bytes, withCredentials));
    const erased = (what: string) => (error: unknown) => {
      assert.ok(error instanceof SvcError, what);
      assert.equal(error.code, "forbidden", what);
      return true;
    };
    const [idA, idB, idC] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    const a = await cipher.encrypt(o1, enc("I am vegetarian"), { memoryId: idA });
    const b = await cipher.encrypt(o1, enc("I live in Lyon"), { memoryId: idB });
    // A memory encrypted twice (a retried job): erasing it reaches both ciphertexts.
    const [c1, c2] = await Promise.all([
      cipher.encrypt(o1, enc("I play chess"), { memoryId: idC }),
      cipher.encrypt(o1, enc("I play chess"), { memoryId: idC }),
    ]);
    const unbound = await cipher.encrypt(o1, enc("I like tea"));
    assert.ok(!new TextDecoder().decode(a).includes("vegetarian"));
    assert.notDeepEqual(a, await cipher.encrypt(o1, enc("I am vegetarian"), { memoryId: idA }));
    const backup = a.slice();
    assert.equal(await text(a), "I am vegetarian");
    assert.equal(await text(b), "I live in Lyon");
    assert.equal(await text(c2), "I play chess");
    await assert.rejects(() => cipher.decrypt(o2, b, withCredentials), SvcError, "another owner");
    for (const at of [0, 1, 3, b.length - 1]) {
      const tampered = b.slice();
      tampered[at] ^= 1;
      await assert.rejects(() => cipher.decrypt(o1, tampered, withCredentials), SvcError, `${at}`);
    }

    // Erasing another owner's memories (refused or ignored) does not reach o1's.
    await cipher.erase(o2, [idB], withCredentials).catch(() => {});
    assert.equal(await text(b), "I live in Lyon");

    await cipher.erase(o1, [idA, idC], withCredentials);
    await assert.rejects(() => cipher.decrypt(o1, backup, withCredentials), erased("the copy"));
    await assert.rejects(() => cipher.decrypt(o1, a, withCredentials), erased("the original"));
    await assert.rejects(() => cipher.decrypt(o1, c1, withCredentials), erased("first of two"));
    await assert.rejects(() => cipher.decrypt(o1, c2, withCredentials), erased("second of two"));
    assert.equal(await text(b), "I live in Lyon", "the other memory is untouched");
    assert.equal(await text(unbound), "I like tea", "a ciphertext with no memory id is untouched");

    // Erasing again, unknown ids, or nothing, is fine.
    await cipher.erase(o1, [idA], withCredentials);
    await cipher.erase(o1, [crypto.randomUUID(), "never-encrypted"], withCredentials);
    await cipher.erase(o1, [], withCredentials);
    await assert.rejects(() => cipher.decrypt(o1, backup, withCredentials), erased("still"));
    assert.equal(await text(b), "I live in Lyon");
  });
}
