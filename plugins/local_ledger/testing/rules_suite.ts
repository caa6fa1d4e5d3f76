/**
 * The local ledger's rules, for any storage: every transaction kind and its effects, the account
 * and key rules with their reasons, malformed, expired, replayed and wrongly signed
 * transactions, and each transaction executed once, however many handles execute it together.
 * `mod_test.ts` runs it on Deno KV, the postgres plugin on PostgreSQL.
 */
import assert from "node:assert/strict";
import { SvcError } from "@svc/relayer/kit";
import { addressOf, generateKeyPair, type KeyPair } from "@svc/util/keys";
import type { RejectionReason } from "@svc/relayer/kit";
import { LocalLedger, MAX_DELEGATE_KEYS, type TransactionEffects } from "../mod.ts";
import type { LedgerStore } from "../store.ts";
import {
  encodeKind,
  signDigest,
  submitTransaction,
  type TransactionKind,
} from "../transactions.ts";

/** One ledger under test, which several handles (processes, relayers) may open. */
export interface LedgerStorage extends AsyncDisposable {
  /** A new handle on the ledger: to the ledger, another process's. */
  open(): Promise<LedgerStore>;
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

/** Runs `use` on a fresh ledger, whose clock it may move. */
type WithLedger = (
  use: (ledger: LocalLedger, clock: { now: number }) => Promise<void>,
) => Promise<void>;

/** Registers the rules' tests for the fresh ledgers `create` makes. */
export function ledgerRulesSuite(name: string, create: () => Promise<LedgerStorage>) {
  const withLedger: WithLedger = async (use) => {
    await using storage = await create();
    const clock = { now: 1_800_000_000_000 };
    await use(new LocalLedger(await storage.open(), { now: () => clock.now }), clock);
  };

  transactionEffectTests(name, withLedger);
  accountAndKeyRuleTests(name, withLedger);
  executionTests(name, withLedger);
  keyExpiryAndScopeTests(name, withLedger);
  twoHandleTests(name, create);
}

/** Each transaction kind, and what it changes. */
function transactionEffectTests(name: string, withLedger: WithLedger) {
  Deno.test(`${name}: every transaction kind, with its effects`, async () => {
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
        scope: {},
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
}

/** The account and key rules, each refusal with its reason. */
function accountAndKeyRuleTests(name: string, withLedger: WithLedger) {
  Deno.test(`${name}: account and key rules, each with its reason`, async () => {
    await withLedger(async (ledger) => {
      const { owner, id } = await newAccount(ledger);
      const stranger = await newAccount(ledger);
      await rejects(submitTransaction(ledger, owner, { kind: "create_account" }), "account_exists");
      await rejects(submitTransaction(ledger, stranger.owner, addKey(id, key(1))), "not_owner");
      // Anyone may send a transaction: the refusal does not tell them who the owner is.
      await assert.rejects(
        submitTransaction(ledger, stranger.owner, addKey(id, key(1))),
        (error: Error) => !error.message.includes(addressOf(owner.publicKey).slice(2, 12)),
      );
      await rejects(
        submitTransaction(ledger, owner, addKey("0x" + "9".repeat(64), key(1))),
        "no_account",
      );
      await rejects(
        submitTransaction(ledger, owner, addKey(id, key(1), "x".repeat(65))),
        "label_too_long",
      );
      for (const label of ["a\u001b[2Jb", "line\nbreak", "nul\u0000", "\u202egnp.exe"]) {
        await rejects(submitTransaction(ledger, owner, addKey(id, key(1), label)), "malformed");
      }
      // A key of small order is no one's: anyone could sign for it.
      await rejects(
        submitTransaction(ledger, owner, addKey(id, "01" + "00".repeat(31))),
        "malformed",
      );
      await submitTransaction(ledger, owner, addKey(id, key(1), "é".repeat(32))); // 64 bytes
      await rejects(submitTransaction(ledger, owner, addKey(id, key(1))), "duplicate_key");
      await rejects(
        submitTransaction(ledger, stranger.owner, addKey(stranger.id, key(1))),
        "duplicate_key",
      );
      // An owner's key is not a delegate key, of another account or its own: a request it
      // signs would otherwise be taken for that delegate's.
      for (const account of [stranger, { owner, id }]) {
        await rejects(
          submitTransaction(ledger, account.owner, addKey(account.id, owner.publicKey)),
          "duplicate_key",
        );
      }
      // The reverse is not refused: anyone may register any public key as a delegate key, and
      // a wallet must still be able to open its account (the relayer then takes the key for the
      // owner's).
      const delegate = await generateKeyPair();
      await submitTransaction(ledger, stranger.owner, addKey(stranger.id, delegate.publicKey));
      await submitTransaction(ledger, delegate, { kind: "create_account" });
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
}

/** Malformed, wrongly signed, replayed and expired transactions; each digest applied once. */
function executionTests(name: string, withLedger: WithLedger) {
  Deno.test(`${name}: malformed, expired, replayed and wrongly signed transactions`, async () => {
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
          // A label that is not valid Unicode.
          text(
            `{"kind":"add_delegate_key","account_id":"${id}","public_key":"${key(1)}",` +
              String.raw`"label":"\ud800"}`,
          ),
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
        ledger.execute(sponsored.digest, signDigest(other, sponsored.digest)),
        "bad_signature",
      );
      await rejects(ledger.execute(sponsored.digest, "%%%"), "bad_signature");
      const wrongDigest = signDigest(owner, "0".repeat(64));
      await rejects(ledger.execute(sponsored.digest, wrongDigest), "bad_signature");
      assert.equal(await ledger.resolve(key(1)), null);

      // Executed once; the same digest again is a replay.
      const signature = signDigest(owner, sponsored.digest);
      await ledger.execute(sponsored.digest, signature);
      await rejects(ledger.execute(sponsored.digest, signature), "replayed");

      // Expired: signed too late.
      const late = await ledger.sponsor(encodeKind(addKey(id, key(2))), sender);
      clock.now += 5 * 60_000 + 1;
      await rejects(ledger.execute(late.digest, signDigest(owner, late.digest)), "expired");
      await rejects(ledger.execute("a".repeat(64), signature), "expired");
      assert.equal(await ledger.resolve(key(2)), null);
    });
  });

  Deno.test(`${name}: concurrent executions of one digest apply it exactly once`, async () => {
    await withLedger(async (ledger) => {
      const { owner, id } = await newAccount(ledger);
      const { digest } = await ledger.sponsor(
        encodeKind(addKey(id, key(7))),
        addressOf(owner.publicKey),
      );
      const signature = signDigest(owner, digest);
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
}

/** A delegate key's expiry and scope: kept, reported by `resolve`, malformed ones refused. */
function keyExpiryAndScopeTests(name: string, withLedger: WithLedger) {
  Deno.test(`${name}: a key may carry an expiry, which resolve reports`, async () => {
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
          submitTransaction(
            ledger,
            owner,
            { ...addKey(id, key(9)), expires_at } as TransactionKind,
          ),
          "malformed",
        );
      }
      assert.equal(ledger.cacheable, false, "resolve reads the ledger every time");
    });
  });

  Deno.test(`${name}: a key may carry a scope, which the account shows and resolve reports`, async () => {
    await withLedger(async (ledger) => {
      const { owner, id } = await newAccount(ledger);
      await submitTransaction(ledger, owner, {
        ...addKey(id, key(7), "reader"),
        namespaces: ["work", "notes", "work"],
        operations: ["write", "read"],
      } as TransactionKind);
      const [stored] = (await ledger.getAccount(id))!.delegate_keys;
      assert.deepEqual([stored.namespaces, stored.operations], [["notes", "work"], [
        "read",
        "write",
      ]]);
      const resolved = await ledger.resolve(key(7));
      assert.equal(resolved?.label, "reader");
      assert.deepEqual(resolved?.scope, {
        namespaces: ["notes", "work"],
        operations: ["read", "write"],
      });

      // The wire's nulls, and keys without scope fields (accounts from before scopes): no limit.
      await submitTransaction(ledger, owner, {
        ...addKey(id, key(8)),
        namespaces: null,
        operations: null,
        expires_at: null,
      } as unknown as TransactionKind);
      await submitTransaction(ledger, owner, addKey(id, key(9)));
      for (const full of [key(8), key(9)]) {
        const account = (await ledger.getAccount(id))!.delegate_keys.find((k) =>
          k.public_key === full
        )!;
        assert.deepEqual(Object.keys(account).sort(), [
          "address",
          "created_at",
          "label",
          "public_key",
        ]);
        assert.deepEqual((await ledger.resolve(full))?.scope, {});
      }

      const malformed: Record<string, unknown>[] = [
        { namespaces: [] },
        { namespaces: "work" },
        { namespaces: [""] },
        { namespaces: ["a\u0000b"] },
        { namespaces: Array.from({ length: 33 }, (_, i) => `n${i}`) },
        { operations: [] },
        { operations: ["read", "delete"] },
        { operations: "read" },
      ];
      for (const fields of malformed) {
        await rejects(
          submitTransaction(
            ledger,
            owner,
            { ...addKey(id, key(10)), ...fields } as TransactionKind,
          ),
          "malformed",
        );
      }
      assert.equal((await ledger.getAccount(id))!.delegate_keys.length, 3);
    });
  });
}

/** Two handles on one ledger at once: a transaction applied once, both accounts kept. */
function twoHandleTests(name: string, create: () => Promise<LedgerStorage>) {
  Deno.test(`${name}: one transaction executed through two handles at once applies once`, async () => {
    await using storage = await create();
    const [a, b] = [new LocalLedger(await storage.open()), new LocalLedger(await storage.open())];
    const { owner, id } = await newAccount(a);
    const { digest } = await a.sponsor(encodeKind(addKey(id, key(7))), addressOf(owner.publicKey));
    const signature = signDigest(owner, digest);
    const outcomes = await Promise.allSettled(
      [a, b, a, b].map((ledger) => ledger.execute(digest, signature)),
    );
    assert.equal(outcomes.filter((o) => o.status === "fulfilled").length, 1);
    for (const outcome of outcomes) {
      if (outcome.status === "rejected") {
        assert.equal((outcome.reason as SvcError).details.reason, "replayed");
      }
    }
    assert.equal((await b.getAccount(id))!.delegate_keys.length, 1);
    assert.equal((await b.resolve(key(7)))?.accountId, id);
  });

  Deno.test(`${name}: of two owners' accounts created through two handles at once, each is kept`, async () => {
    await using storage = await create();
    const [a, b] = [new LocalLedger(await storage.open()), new LocalLedger(await storage.open())];
    const [first, second] = await Promise.all([newAccount(a), newAccount(b)]);
    assert.notEqual(first.id, second.id);
    assert.equal((await b.accountOf(addressOf(first.owner.publicKey)))?.id, first.id);
    assert.equal((await a.accountOf(addressOf(second.owner.publicKey)))?.id, second.id);
  });

  Deno.test(`${name}: many accounts created at once, through one handle and two, are all kept`, async () => {
    await using storage = await create();
    const [a, b] = [new LocalLedger(await storage.open()), new LocalLedger(await storage.open())];
    const created = await Promise.all([...Array(24).keys()].map((i) => newAccount(i % 3 ? a : b)));
    assert.equal(new Set(created.map(({ id }) => id)).size, created.length);
    for (const { owner, id } of created) {
      assert.equal((await a.accountOf(addressOf(owner.publicKey)))?.id, id);
    }
  });
}
