/**
 * The local ledger on Deno KV: its rules and its resolution (the suites every storage of the
 * ledger passes), each handle a connection to one ledger file, as the relayer's, the sidecar's
 * and the CLI's are.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { addressOf, generateKeyPair } from "@svc/util/keys";
import { KvLedgerStore, LOCAL_PACKAGE_ID, LocalLedger } from "./mod.ts";
import { encodeKind, signDigest, submitTransaction } from "./transactions.ts";
import { ledgerRulesSuite, type LedgerStorage } from "./testing/rules_suite.ts";
import { ledgerResolveSuite } from "./testing/resolve_suite.ts";

/**
 * A ledger file in a temporary directory; each `open` is another handle on it: opened by path
 * (counting SQLite's commits, as the relayer's is) when `byPath`, else from a Deno KV handle.
 */
async function ledgerFile(byPath = false): Promise<LedgerStorage> {
  const dir = await Deno.makeTempDir({ prefix: "svc-ledger-" });
  const path = `${dir}/ledger.kv`;
  const closing: (() => void)[] = [];
  return {
    async open() {
      if (byPath) {
        const store = await KvLedgerStore.open(path);
        closing.push(() => store.close());
        return store;
      }
      const kv = await Deno.openKv(path);
      closing.push(() => kv.close());
      return new KvLedgerStore(kv);
    },
    async [Symbol.asyncDispose]() {
      for (const close of closing) close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

ledgerRulesSuite("ledger (Deno KV)", () => ledgerFile());
ledgerRulesSuite("ledger (Deno KV, opened by path)", () => ledgerFile(true));
ledgerResolveSuite("ledger resolve (Deno KV)", () => ledgerFile());
ledgerResolveSuite("ledger resolve (Deno KV, opened by path)", () => ledgerFile(true));

Deno.test("a ledger opened by path reads its version from Deno KV only after a commit, by any process", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-ledger-" });
  const path = `${dir}/ledger.kv`;
  const store = await KvLedgerStore.open(path);
  // Every read of the version from Deno KV, by any handle in this process.
  const get = Deno.Kv.prototype.get;
  let reads = 0;
  Deno.Kv.prototype.get = function (this: Deno.Kv, ...args: Parameters<Deno.Kv["get"]>) {
    if (args[0][0] === "ledger_version") reads++;
    return get.apply(this, args);
  } as Deno.Kv["get"];
  try {
    const first = await store.version();
    for (let i = 0; i < 5; i++) assert.equal(await store.version(), first);
    assert.equal(reads, 1, "no commit: the version is not read again");

    const another = await Deno.openKv(path);
    await another.atomic().sum(["ledger_version"], 1n).commit();
    another.close();
    const second = await store.version();
    assert.notEqual(second, first);
    assert.equal(await store.version(), second);
    assert.equal(reads, 2, "a commit through another handle: read once");

    const other = new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        "--unstable-kv",
        `const kv = await Deno.openKv(${JSON.stringify(path)});
         await kv.atomic().sum(["ledger_version"], 1n).commit(); kv.close();`,
      ],
    });
    assert.equal((await other.output()).code, 0);
    const third = await store.version();
    assert.ok(third !== first && third !== second, "another process's commit is seen");
    assert.equal(reads, 3);
  } finally {
    Deno.Kv.prototype.get = get;
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the local package id is the hash its documentation names", () => {
  const digest = createHash("sha256").update("svc local ledger v1").digest("hex");
  assert.equal(LOCAL_PACKAGE_ID, "0x" + digest);
});

Deno.test("a ledger file an earlier version wrote goes on: its accounts, keys and counted version", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    // As the earlier store wrote it: the entries as they are, the version a counter.
    const owner = await generateKeyPair();
    const key = await generateKeyPair();
    const account = {
      id: "0x" + "ab".repeat(32),
      owner: addressOf(owner.publicKey),
      delegate_keys: [{
        public_key: key.publicKey,
        address: addressOf(key.publicKey),
        label: "phone",
        created_at: "2026-01-01T00:00:00.000Z",
      }],
      active: true,
      created_at: "2026-01-01T00:00:00.000Z",
    };
    await kv.atomic().set(["account", account.id], account)
      .set(["account_owner", account.owner], account.id)
      .set(["delegate_key", key.publicKey], account.id)
      .sum(["ledger_version"], 3n).commit();
    const ledger = new LocalLedger(kv);
    assert.equal((await ledger.resolve(key.publicKey))?.label, "phone");
    await submitTransaction(ledger, owner, { kind: "deactivate_account", account_id: account.id });
    assert.equal((await ledger.resolve(key.publicKey))?.active, false);
    assert.equal((await kv.get(["ledger_version"])).value, 4);
  } finally {
    kv.close();
  }
});

Deno.test("an execute aborted while other handles keep beating its commit stops at once", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const stop = new AbortController();
    let tries = 0;
    // Another handle's commit beats every try; the caller gives up after the first.
    const beaten = new class extends KvLedgerStore {
      override apply() {
        tries++;
        stop.abort(new Error("gave up"));
        return Promise.resolve(null);
      }
    }(kv);
    const ledger = new LocalLedger(beaten);
    const owner = await generateKeyPair();
    const { digest } = await ledger.sponsor(
      encodeKind({ kind: "create_account" }),
      addressOf(owner.publicKey),
    );
    await assert.rejects(
      ledger.execute(digest, signDigest(owner, digest), { signal: stop.signal }),
      /gave up/,
    );
    assert.equal(tries, 1);
  } finally {
    kv.close();
  }
});

Deno.test("a key's label that would read as another's is refused: controls, direction, invisible, separators", async () => {
  const { decodeKind, encodeKind } = await import("./transactions.ts");
  const publicKey = "ab".repeat(32);
  const kind = (label: string) =>
    encodeKind({
      kind: "add_delegate_key",
      account_id: `0x${"01".repeat(32)}`,
      public_key: publicKey,
      label,
    });
  assert.equal((decodeKind(kind("phone")) as { label: string }).label, "phone");
  for (const label of ["ph\u001bone", "pho\u202ene", "phone\u200b", "pho\u00adne", "ph\u2028one"]) {
    assert.throws(
      () => decodeKind(kind(label)),
      /must not contain control, text-direction or invisible/,
    );
  }
});
