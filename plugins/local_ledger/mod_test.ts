/**
 * The local ledger on Deno KV: its rules and its resolution (the suites every storage of the
 * ledger passes), each handle a connection to one ledger file, as the relayer's, the sidecar's
 * and the CLI's are.
 */
import assert from "node:assert/strict";
import { sha256Hex } from "../../src/kit.ts";
import { KvLedgerStore, LOCAL_PACKAGE_ID } from "./mod.ts";
import { ledgerRulesSuite, type LedgerStorage } from "./rules_suite.ts";
import { ledgerResolveSuite } from "./resolve_suite.ts";

/**
 * A ledger file in a temporary directory; each `open` is another handle on it, given the file's
 * path (so it counts SQLite's commits) when `withPath`.
 */
async function ledgerFile(withPath = false): Promise<LedgerStorage> {
  const dir = await Deno.makeTempDir({ prefix: "svc-ledger-" });
  const path = `${dir}/ledger.kv`;
  const handles: { kv: Deno.Kv; store: KvLedgerStore }[] = [];
  return {
    async open() {
      const kv = await Deno.openKv(path);
      const store = new KvLedgerStore(kv, withPath ? { path } : {});
      handles.push({ kv, store });
      return store;
    },
    async [Symbol.asyncDispose]() {
      for (const { kv, store } of handles) {
        store.close();
        kv.close();
      }
      await Deno.remove(dir, { recursive: true });
    },
  };
}

ledgerRulesSuite("ledger (Deno KV)", () => ledgerFile());
ledgerResolveSuite("ledger resolve (Deno KV)", () => ledgerFile());
ledgerResolveSuite("ledger resolve (Deno KV, commits counted)", () => ledgerFile(true));

Deno.test("given its path, the store reads the version from Deno KV only after a commit, by any process", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-ledger-" });
  const path = `${dir}/ledger.kv`;
  const kv = await Deno.openKv(path);
  const store = new KvLedgerStore(kv, { path });
  const get = kv.get.bind(kv);
  let reads = 0;
  kv.get = ((key: Deno.KvKey) => (reads++, get(key))) as typeof kv.get;
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
    store.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the local package id is the hash its documentation names", async () => {
  assert.equal(LOCAL_PACKAGE_ID, "0x" + await sha256Hex("svc local ledger v1"));
});
