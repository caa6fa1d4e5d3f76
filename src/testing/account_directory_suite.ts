/** The account directory conformance suite: every `AccountDirectory` must pass it. */
import assert from "node:assert/strict";
import type { AccountDirectory, ResolvedAccount } from "../backends/types.ts";
import { refusesAborted } from "./refuses_aborted.ts";

/** The account fields of a resolution (a key's label, scope and expiry left out). */
function accountOf(resolved: ResolvedAccount | null) {
  return resolved && {
    accountId: resolved.accountId,
    owner: resolved.owner,
    active: resolved.active,
  };
}

/**
 * Registers the account directory tests, for the fresh directories `open` makes, each with the
 * means to add and remove keys; `close`, when given, is called after its test.
 */
export function accountDirectorySuite(
  name: string,
  open: () => Promise<
    {
      directory: AccountDirectory;
      /** Registers a key on a new account; returns the account and its owner. */
      add(publicKey: string): Promise<{ accountId: string; owner: string }>;
      /** Removes a key from its account. */
      remove(accountId: string, publicKey: string): Promise<void>;
      close?(): void | Promise<void>;
    }
  >,
) {
  Deno.test(`${name}: resolves registered keys, honours the hint, forgets removed keys`, async () => {
    const { directory, add, remove, close } = await open();
    await using _ = { [Symbol.asyncDispose]: async () => await close?.() };
    const k1 = "1".repeat(64), k2 = "2".repeat(64);
    const { accountId: id, owner } = await add(k1);
    // A key added without limits: full access (no scope, or an empty one), whatever its label.
    const account = (r: ResolvedAccount | null) =>
      r && { accountId: r.accountId, owner: r.owner, active: r.active, scope: r.scope ?? {} };
    const found = { accountId: id, owner, active: true, scope: {} };
    assert.deepEqual(account(await directory.resolve(k1)), found);
    assert.deepEqual(account(await directory.resolve(k1, id)), found);
    assert.equal(await directory.resolve(k1, "0x" + "9".repeat(64)), null);
    assert.equal(await directory.resolve(k2), null);
    await remove(id, k1);
    assert.equal(await directory.resolve(k1), null);
  });

  Deno.test(`${name}: an aborted resolve is refused`, async () => {
    const { directory, add, close } = await open();
    await using _ = { [Symbol.asyncDispose]: async () => await close?.() };
    const key = "3".repeat(64);
    const { accountId } = await add(key);
    await refusesAborted((o) => directory.resolve(key, undefined, o), "resolve");
    await refusesAborted((o) => directory.resolve(key, accountId, o), "resolve with a hint");
  });

  Deno.test(`${name}: resolveOwner finds the account an owner owns, when offered`, async () => {
    const { directory, add, close } = await open();
    await using _ = { [Symbol.asyncDispose]: async () => await close?.() };
    if (!directory.resolveOwner) return; // a directory of delegate keys only
    const { accountId, owner } = await add("4".repeat(64));
    assert.deepEqual(accountOf(await directory.resolveOwner(owner)), {
      accountId,
      owner,
      active: true,
    });
    assert.equal(await directory.resolveOwner("0x" + "5".repeat(64)), null);
  });
}
