import assert from "node:assert/strict";
import { addressOf, generateKeyPair, type KeyPair, sha256Hex, SvcError } from "../../src/kit.ts";
import {
  LOCAL_PACKAGE_ID,
  LocalLedger,
  MAX_DELEGATE_KEYS,
  type TransactionEffects,
} from "./mod.ts";
import { encodeKind, signDigest, submitTransaction, type TransactionKind } from "./transactions.ts";
import type { RejectionReason } from "../../src/kit.ts";

async function withLedger(use: (ledger: LocalLedger, clock: { now: number }) => Promise<void>) {
  const kv = await Deno.openKv(":memory:");
  const clock = { now: 1_800_000_000_000 };
  try {
    await use(new LocalLedger(kv, { now: () => clock.now }), clock);
  } finally {
    kv.close();
  }
}

const STATUS: Partial<Record<RejectionReason, number>> = {
  bad_signature: 401,
  replayed: 409,
  account_exists: 409,
  duplicate_key: 409,
};

async function rejects(promise: Promise<unknown>, reason: RejectionReason) {
  const status = STATUS[reason] ?? 400;
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof SvcError, String(error));
    assert.equal(error.details.reason, reason, error.message);
    assert.equal(error.status, status);
    return true;
  });
}

async function newAccount(ledger: LocalLedger): Promise<{ owner: KeyPair; id: string }> {
  const owner = await generateKeyPair();
  const { effects } = await submitTransaction(ledger, owner, { kind: "create_account" });
  return { owner, id: (effects as TransactionEffects).account_id };
}

const key = (n: number) => n.toString(16).padStart(64, "0");
const addKey = (id: string, publicKey: string, label = "laptop"): TransactionKind => ({
  kind: "add_delegate_key",
  account_id: id,
  public_key: publicKey,
  label,
});

Deno.test("ledger: every transaction kind, with its effects", async () => {
  await withLedger(async (ledger) => {
    const { owner, id } = await newAccount(ledger);
    const address = addressOf(owner.publicKey);
    assert.equal((await ledger.accountOf(address))?.id, id);

    const added = await submitTransaction(ledger, owner, addKey(id, key(1)));
    assert.deepEqual(
      { ...added.effects as TransactionEffects, executed_at: undefined },
      {
        status: "success",
        kind: "add_delegate_key",
        account_id: id,
        sender: address,
        public_key: key(1),
        executed_at: undefined,
      },
    );
    assert.deepEqual(await ledger.resolve(key(1)), {
      accountId: id,
      owner: address,
      active: true,
      label: "laptop",
    });
    const [entry] = (await ledger.getAccount(id))!.delegate_keys;
    assert.deepEqual([entry.label, entry.address], ["laptop", addressOf(key(1))]);

    await submitTransaction(ledger, owner, { kind: "deactivate_account", account_id: id });
    assert.equal((await ledger.resolve(key(1)))?.active, false);
    await submitTransaction(ledger, owner, { kind: "reactivate_account", account_id: id });
    assert.equal((await ledger.resolve(key(1)))?.active, true);

    await submitTransaction(ledger, owner, {
      kind: "remove_delegate_key",
      account_id: id,
      public_key: key(1),
    });
    assert.equal(await ledger.resolve(key(1)), null);
    assert.deepEqual((await ledger.getAccount(id))!.delegate_keys, []);
  });
});

Deno.test("ledger: account and key rules, each with its reason", async () => {
  await withLedger(async (ledger) => {
    const { owner, id } = await newAccount(ledger);
    const stranger = await newAccount(ledger);
    await rejects(submitTransaction(ledger, owner, { kind: "create_account" }), "account_exists");
    await rejects(submitTransaction(ledger, stranger.owner, addKey(id, key(1))), "not_owner");
    await rejects(
      submitTransaction(ledger, owner, addKey("0x" + "9".repeat(64), key(1))),
      "no_account",
    );
    await rejects(
      submitTransaction(ledger, owner, addKey(id, key(1), "x".repeat(65))),
      "label_too_long",
    );
    await submitTransaction(ledger, owner, addKey(id, key(1), "é".repeat(32))); // 64 bytes
    await rejects(submitTransaction(ledger, owner, addKey(id, key(1))), "duplicate_key");
    await rejects(
      submitTransaction(ledger, stranger.owner, addKey(stranger.id, key(1))),
      "duplicate_key",
    );
    for (let n = 2; n <= MAX_DELEGATE_KEYS; n++) {
      await submitTransaction(ledger, owner, addKey(id, key(n)));
    }
    await rejects(submitTransaction(ledger, owner, addKey(id, key(99))), "too_many_keys");
    await rejects(
      submitTransaction(ledger, owner, {
        kind: "remove_delegate_key",
        account_id: id,
        public_key: key(99),
      }),
      "unknown_key",
    );
    await submitTransaction(ledger, owner, { kind: "deactivate_account", account_id: id });
    await rejects(
      submitTransaction(ledger, owner, { kind: "deactivate_account", account_id: id }),
      "inactive_account",
    );
    await submitTransaction(ledger, owner, {
      kind: "remove_delegate_key",
      account_id: id,
      public_key: key(1),
    });
    await rejects(
      submitTransaction(ledger, stranger.owner, addKey(stranger.id, key(200))).then(() =>
        submitTransaction(ledger, owner, addKey(id, key(100)))
      ),
      "inactive_account",
    );
    await submitTransaction(ledger, owner, { kind: "reactivate_account", account_id: id });
    await rejects(
      submitTransaction(ledger, owner, { kind: "reactivate_account", account_id: id }),
      "already_active",
    );
  });
});

Deno.test("ledger: malformed, expired, replayed and wrongly signed transactions", async () => {
  await withLedger(async (ledger, clock) => {
    const { owner, id } = await newAccount(ledger);
    const sender = addressOf(owner.publicKey);
    const text = (s: string) => new TextEncoder().encode(s);
    for (
      const bad of [
        text("not json"),
        text("[]"),
        text('{"kind":"mint_coins"}'),
        text(`{"kind":"add_delegate_key","account_id":"${id}","public_key":"xyz","label":""}`),
        text(`{"kind":"add_delegate_key","account_id":"${id}","public_key":"${key(1)}"}`),
        text('{"kind":"deactivate_account","account_id":"0x12"}'),
        new Uint8Array([0xff, 0xfe]),
      ]
    ) {
      await rejects(ledger.sponsor(bad, sender), "malformed");
    }
    await rejects(ledger.sponsor(encodeKind({ kind: "create_account" }), "alice"), "malformed");
    await rejects(ledger.execute("nothex", "AA=="), "malformed");

    // Wrongly signed: another key, a garbled signature, a signature of another digest.
    const sponsored = await ledger.sponsor(encodeKind(addKey(id, key(1))), sender);
    const other = await generateKeyPair();
    await rejects(
      ledger.execute(sponsored.digest, await signDigest(other, sponsored.digest)),
      "bad_signature",
    );
    await rejects(ledger.execute(sponsored.digest, "%%%"), "bad_signature");
    const wrongDigest = await signDigest(owner, "0".repeat(64));
    await rejects(ledger.execute(sponsored.digest, wrongDigest), "bad_signature");
    assert.equal(await ledger.resolve(key(1)), null);

    // Executed once; the same digest again is a replay.
    const signature = await signDigest(owner, sponsored.digest);
    await ledger.execute(sponsored.digest, signature);
    await rejects(ledger.execute(sponsored.digest, signature), "replayed");

    // Expired: signed too late.
    const late = await ledger.sponsor(encodeKind(addKey(id, key(2))), sender);
    clock.now += 5 * 60_000 + 1;
    await rejects(ledger.execute(late.digest, await signDigest(owner, late.digest)), "expired");
    await rejects(ledger.execute("a".repeat(64), signature), "expired");
    assert.equal(await ledger.resolve(key(2)), null);
  });
});

Deno.test("ledger: concurrent executions of one digest apply it exactly once", async () => {
  await withLedger(async (ledger) => {
    const { owner, id } = await newAccount(ledger);
    const { digest } = await ledger.sponsor(
      encodeKind(addKey(id, key(7))),
      addressOf(owner.publicKey),
    );
    const signature = await signDigest(owner, digest);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, () => ledger.execute(digest, signature)),
    );
    assert.equal(outcomes.filter((o) => o.status === "fulfilled").length, 1);
    for (const outcome of outcomes) {
      if (outcome.status === "rejected") {
        assert.equal((outcome.reason as SvcError).details.reason, "replayed");
      }
    }
    assert.equal((await ledger.getAccount(id))!.delegate_keys.length, 1);
  });
});

Deno.test("the local package id is the hash its documentation names", async () => {
  assert.equal(LOCAL_PACKAGE_ID, "0x" + await sha256Hex("svc local ledger v1"));
});

Deno.test("ledger: a key may carry an expiry, which resolve reports", async () => {
  await withLedger(async (ledger) => {
    const { owner, id } = await newAccount(ledger);
    await submitTransaction(ledger, owner, {
      ...addKey(id, key(7)),
      expires_at: "2027-01-15T10:00:00Z",
    } as TransactionKind);
    const resolved = await ledger.resolve(key(7));
    assert.equal(resolved?.expiresAt, Date.parse("2027-01-15T10:00:00.000Z"));
    assert.equal(
      (await ledger.getAccount(id))?.delegate_keys[0].expires_at,
      "2027-01-15T10:00:00.000Z",
    );
    await submitTransaction(ledger, owner, addKey(id, key(8)));
    assert.equal((await ledger.resolve(key(8)))?.expiresAt, undefined);
    assert.ok(!("expiresAt" in (await ledger.resolve(key(8)))!));
    for (const expires_at of ["tomorrow", "2027-13-01T00:00:00Z", "2027-01-15 10:00:00", 5]) {
      await rejects(
        submitTransaction(ledger, owner, { ...addKey(id, key(9)), expires_at } as TransactionKind),
        "malformed",
      );
    }
    assert.equal(ledger.cacheable, false, "resolve reads the ledger every time");
  });
});
