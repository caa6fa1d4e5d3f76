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

/** A ledger file in a temporary directory; each `open` is another handle on it. */
async function ledgerFile(): Promise<LedgerStorage> {
  const dir = await Deno.makeTempDir({ prefix: "svc-ledger-" });
  const handles: Deno.Kv[] = [];
  return {
    async open() {
      const kv = await Deno.openKv(`${dir}/ledger.kv`);
      handles.push(kv);
      return new KvLedgerStore(kv);
    },
    async [Symbol.asyncDispose]() {
      for (const kv of handles) kv.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

ledgerRulesSuite("ledger (Deno KV)", ledgerFile);
ledgerResolveSuite("ledger resolve (Deno KV)", ledgerFile);

Deno.test("the local package id is the hash its documentation names", async () => {
  assert.equal(LOCAL_PACKAGE_ID, "0x" + await sha256Hex("svc local ledger v1"));
});
